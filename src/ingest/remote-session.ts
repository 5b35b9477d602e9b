// A session followed by an ingest worker, as the supervisor sees it (the FollowedSession of
// session/session-pipeline.ts). Commands go to the worker as messages; status() answers at once from the worker's
// latest report (at most one report interval old) with the delivered seq, which only the main
// thread knows, kept here. A stop waits for the worker's answer, which comes after the session's
// last records: once stop() resolves, nothing more of this session reaches the spool.
import type { SessionSpec } from '../config/schema.js';
import type { AttributeValue } from '../vocabulary/log-record.js';
import type { SessionRow, SessionSource } from '../store/store.js';
import type { FollowedSession } from '../session/session-pipeline.js';
import { advance, initialStatus, seqIn, type SessionStatus, type StreamPosition } from '../session/session-status.js';
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
  /** What the collector acknowledged; only the main thread knows it. */
  private readonly deliveredAt: StreamPosition;
  /**
   * The newest record of the session the main thread holds: newer than the worker's last report (up
   * to a second old), and never behind what the collector acknowledged.
   */
  private readonly held: StreamPosition;
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
    this.deliveredAt = { epoch: row.epoch, seq: row.checkpoint };
    this.held = { epoch: row.epoch, seq: row.checkpoint };
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

  /** A record of the session reached the main thread (each record of a worker's batch). */
  appended(epoch: number, seq: number): void {
    advance(this.held, epoch, seq);
  }

  status(): SessionStatus {
    const s = this.snapshot;
    // A record delivered was received: the report may not say so yet, the records held here do.
    const epoch = Math.max(s.epoch, this.held.epoch);
    return {
      ...s,
      epoch,
      lastReceivedSeq: Math.max(s.epoch === epoch ? s.lastReceivedSeq : 0, seqIn(this.held, epoch)),
      lastDeliveredSeq: seqIn(this.deliveredAt, epoch),
      reconnects: { ...s.reconnects },
    };
  }

  delivered(seq: number, epoch: number): void {
    advance(this.deliveredAt, epoch, seq);
  }

  spansSettled(): Promise<void> {
    return this.link.spansSettled();
  }
}
