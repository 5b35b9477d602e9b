// A session followed by an ingest worker, as the supervisor sees it (the FollowedSession of
// session/session-pipeline.ts). Commands go to the worker as messages; status() answers at once from the worker's
// latest report (at most one report interval old) with the delivered seq, which only the main
// thread knows, kept here. A stop waits for the worker's answer, which comes after the session's
// last records: once stop() resolves, nothing more of this session reaches the spool.
import type { SessionSpec } from '../config/schema.js';
import type { AttributeValue } from '../vocabulary/log-record.js';
import type { SessionRow, SessionSource } from '../store/store.js';
import type { FollowedSession } from '../session/session-pipeline.js';
import { initialStatus, type SessionStatus } from '../session/session-status.js';
import type { ToWorker } from './protocol.js';

export interface WorkerLink {
  post(msg: ToWorker): void;
  /**
   * Sends a stop and resolves with the session's final status (undefined: the worker had none);
   * `removed`: for good, its open spans are flushed.
   */
  stop(h: number, removed: boolean): Promise<SessionStatus | undefined>;
  /** Resolves once the spans of the session the main thread offered left the export queue for good. */
  spansSettled(): Promise<void>;
}

export class RemoteSession implements FollowedSession {
  readonly id: string;
  spec: SessionSpec;
  readonly source: SessionSource;
  private snapshot: SessionStatus;
  private deliveredSeq: number;
  private stopping: Promise<void> | undefined;
  /** Until start(): what the worker follows the session from. */
  private row: SessionRow | undefined;

  constructor(
    readonly handle: number,
    row: SessionRow,
    private readonly link: WorkerLink,
  ) {
    this.row = row;
    this.id = row.spec.id;
    this.spec = row.spec;
    this.source = row.source;
    this.deliveredSeq = row.checkpoint;
    this.snapshot = initialStatus(row);
  }

  start(): void {
    if (this.row === undefined) return;
    this.link.post({ t: 'follow', h: this.handle, row: this.row });
    this.row = undefined;
  }

  updateSpec(spec: SessionSpec): void {
    this.spec = spec;
    if (spec.pool) this.snapshot.pool = spec.pool;
    else delete this.snapshot.pool;
    this.link.post({ t: 'spec', h: this.handle, spec });
  }

  setEnrichment(attrs: Record<string, AttributeValue>): void {
    this.link.post({ t: 'enrich', h: this.handle, attrs });
  }

  stop(removed = false): Promise<void> {
    this.stopping ??= this.link.stop(this.handle, removed).then((s) => {
      if (s) this.reported(s);
    });
    return this.stopping;
  }

  /** The worker's latest view of the session. */
  reported(s: SessionStatus): void {
    this.snapshot = s;
  }

  status(): SessionStatus {
    const s = this.snapshot;
    return { ...s, lastDeliveredSeq: Math.max(s.lastDeliveredSeq, this.deliveredSeq), reconnects: { ...s.reconnects } };
  }

  delivered(seq: number): void {
    if (seq > this.deliveredSeq) this.deliveredSeq = seq;
  }

  spansSettled(): Promise<void> {
    return this.link.spansSettled();
  }
}
