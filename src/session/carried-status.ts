// A session that moves between threads (to an ingest worker once the workers start, or back after a
// worker died) is stopped and followed again from its checkpoint by a new pipeline, whose status
// starts from zero. Its counts are what this run saw of the session, wherever it was read, so the
// new follower's counts are added to the ones the earlier followers left (GET /v1/sessions, `top`
// and the status line then agree with lastReceivedSeq and with the process's metrics, which never
// reset). Positions and state are the newest follower's.
import type { SessionSpec } from '../config/schema.js';
import type { AttributeValue } from '../vocabulary/log-record.js';
import type { SessionSource } from '../store/store.js';
import type { FollowedSession } from './session-pipeline.js';
import type { SessionStatus } from './session-status.js';

/** The counts of a status that add up across followers (the rest describe the current one). */
const COUNTS = ['received', 'filtered', 'duplicates', 'gaps', 'missingEvents', 'malformedFrames', 'repaired'] as const;

/** `later`'s status with `earlier`'s counts added; positions, state and errors are `later`'s. */
export function addCounts(earlier: SessionStatus, later: SessionStatus): SessionStatus {
  const out: SessionStatus = { ...later, reconnects: { ...earlier.reconnects } };
  for (const k of COUNTS) out[k] = earlier[k] + later[k];
  for (const [reason, n] of Object.entries(later.reconnects) as Array<[keyof SessionStatus['reconnects'], number]>)
    out.reconnects[reason] = (out.reconnects[reason] ?? 0) + n;
  return out;
}

/** `session` reporting its status on top of what `earlier` followers of the same session counted. */
export function carryCounts(earlier: SessionStatus | undefined, session: FollowedSession): FollowedSession {
  if (earlier === undefined) return session;
  return new CarriedSession(earlier, session);
}

class CarriedSession implements FollowedSession {
  constructor(
    private readonly earlier: SessionStatus,
    private readonly inner: FollowedSession,
  ) {}

  get id(): string {
    return this.inner.id;
  }
  get spec(): SessionSpec {
    return this.inner.spec;
  }
  get source(): SessionSource {
    return this.inner.source;
  }
  updateSpec(spec: SessionSpec): void {
    this.inner.updateSpec(spec);
  }
  setEnrichment(attrs: Record<string, AttributeValue>): void {
    this.inner.setEnrichment(attrs);
  }
  start(): void {
    this.inner.start();
  }
  // `removed` passed on: a moved session removed for good flushes its open spans as any other does.
  stop(removed?: boolean): Promise<void> {
    return this.inner.stop(removed);
  }
  status(): SessionStatus {
    return addCounts(this.earlier, this.inner.status());
  }
  delivered(seq: number, epoch: number): void {
    this.inner.delivered(seq, epoch);
  }
  spansSettled(): Promise<void> {
    return this.inner.spansSettled();
  }
}
