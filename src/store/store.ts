// The durable state of the bridge behind an asynchronous interface, so a networked implementation
// (several replicas following one set of sessions) can replace the embedded SQLite store without
// touching the pipeline (docs/design.md "Scale beyond one machine"). One contract test suite runs against
// every implementation.
import type { SessionSpec } from '../config/schema.js';
import type { NewSegment, Segment } from '../wire/segment-framing.js';

export type { NewSegment, Segment } from '../wire/segment-framing.js';

export type { SessionSource } from '../vocabulary/session-states.js';
import type { SessionSource } from '../vocabulary/session-states.js';
/**
 * Rows of sessions that ended or were removed longer ago than this are deleted when a store opens,
 * and every PRUNE_EVERY_MS while the bridge runs (daemon/finished-retention.ts).
 */
export const PRUNE_FINISHED_AFTER_MS = 7 * 24 * 3600 * 1000;
/**
 * How often a running bridge prunes: a process that runs for weeks would otherwise keep a finished
 * session's row (its spec, attributes and checkpoint) until its next start, past the retention.
 */
export const PRUNE_EVERY_MS = 3600 * 1000;

/** active: followed; ended: the service answered 404; removed: stopped by DELETE /v1/sessions/{id}. */
export type SessionLifecycle = 'active' | 'ended' | 'removed';

export interface SessionRow {
  spec: SessionSpec;
  source: SessionSource;
  lifecycle: SessionLifecycle;
  /** Highest seq durably handled (spooled, filtered or covered by a gap record); 0 = none yet. */
  checkpoint: number;
  /** Service epoch: bumped when the service restarted (its sequence began again at 1). */
  epoch: number;
  /**
   * The service process the checkpoint belongs to (`source.metadata.telemetry_session_id`): after a
   * restart of the bridge, events of another one are a new epoch even when their seq looks resumable.
   */
  sourceId?: string;
  /**
   * The session's open spans at the checkpoint and its spans not yet acknowledged by the traces
   * endpoint (session/span-state.ts), when traces are on: restored when it is followed again.
   */
  spans?: string;
}

/** Serializes a session's span state when its checkpoint is written (captured when the batch was sealed). */
export type SpanStateWriter = () => string;

export interface CheckpointUpdate {
  sessionId: string;
  checkpoint: number;
  epoch: number;
  sourceId?: string;
  /** The span state that goes with this checkpoint (traces on); written as null when absent. */
  spans?: SpanStateWriter;
  /**
   * Traces on, and the session's span state was not captured at this position (the tap captures it
   * at most every few seconds, session/span-tap.ts): the checkpoint must not move here, since a
   * restart from it would continue spans from a state that belongs to another position.
   */
  uncaptured?: true;
  /**
   * With `uncaptured`: the last position before it in the same batch whose state was captured (an
   * ingest worker's batches sealed together), where the checkpoint may move instead.
   */
  capturedBefore?: CheckpointUpdate;
}

/** Where an update may move a checkpoint to: itself, else its batch's captured position, else nowhere. */
export function movableTo(u: CheckpointUpdate): CheckpointUpdate | undefined {
  return u.uncaptured !== true ? u : u.capturedBefore;
}

export interface SpoolStats {
  /** Records in spooled segments. */
  records: number;
  /** Payload bytes of spooled segments: what the spool's size limit counts. */
  bytes: number;
  /** Event time of the oldest undelivered record, Unix microseconds. */
  oldestTsMicros: number | null;
}

export interface SpoolTotals {
  records: number;
  bytes: number;
  /** Highest segment id spooled (0 when empty): everything up to it is backlog at start. */
  maxId: number;
}

/**
 * A commit refused because this process no longer owns some of its sessions at the epoch it
 * holds (a shared store with leases): nothing of the commit was written. The caller drops what it
 * had pending for those sessions (their new owner reads them again from the checkpoint) and commits
 * the rest.
 */
export class FencedError extends Error {
  override name = 'FencedError';
  constructor(readonly sessionIds: readonly string[]) {
    super(
      `no longer the owner of ${sessionIds.length} session(s): ${sessionIds.slice(0, 3).join(', ')}${sessionIds.length > 3 ? ', …' : ''}`,
    );
  }
}

/** What discovery (discovery/discovery-loop.ts) asks the store before it lists the service's sessions. */
export interface DiscoveryClaim {
  /** True when no poll was claimed within the interval (by any replica): this caller polls now. */
  claimed: boolean;
  /** When the last successful poll started, epoch ms on the store's clock; null before the first. */
  lastSuccessAt: number | null;
  /** The store's clock at the claim, epoch ms: what to record when this poll succeeds. */
  now: number;
}

export interface Store {
  sessions(): Promise<SessionRow[]>;
  /**
   * Deletes the rows (and span states) of sessions that ended or were removed longer ago than the
   * store's retention (PRUNE_FINISHED_AFTER_MS unless its options say otherwise) and have nothing
   * left in the spool; returns how many. Every store does it when it opens; idempotent, so any
   * replica of a shared store may run it at any time.
   */
  pruneFinished(): Promise<number>;
  /**
   * Inserts the sessions the store does not know in any lifecycle (ended and removed ones included)
   * and returns the rows it inserted; a known session is left exactly as it is. Discovery's write:
   * listing a session again must neither revive one that ended nor undo an operator's DELETE.
   */
  addSessions(specs: readonly SessionSpec[], source: SessionSource): Promise<SessionRow[]>;
  /**
   * Claims the next poll of the service's session list: granted when the last claim is at least
   * `minGapMs` old on the store's clock. One claim per interval across every replica of a shared store.
   */
  claimDiscoveryPoll(minGapMs: number): Promise<DiscoveryClaim>;
  /** Records a successful poll that started at `startedAt` (the claim's `now`); never moves back. */
  recordDiscoveryPoll(startedAt: number): Promise<void>;
  /** Inserts a session or replaces its spec; a re-added session becomes active again, keeping its checkpoint. */
  putSession(spec: SessionSpec, source: SessionSource): Promise<SessionRow>;
  /**
   * Marks the session ended, removed or active again. Its span state is kept whatever the lifecycle:
   * an ended or removed session's state lists the spans it still owes, sent at the next start
   * (session/finished-session-spans.ts), which then drops it. `sending`: this process offered those
   * spans as the session finished and drops the state once they settle (daemon/lifecycle-recorder.ts);
   * a shared store makes this replica their sender meanwhile, so no other sends them too.
   */
  setLifecycle(sessionId: string, lifecycle: SessionLifecycle, sending?: boolean): Promise<void>;
  /**
   * Forgets the span state of a session that is not active (an ended or removed session whose spans
   * all left the queue); a session followed again keeps the state its own checkpoints write.
   */
  dropSpanState(sessionId: string): Promise<void>;
  /**
   * Spools segments and moves checkpoints in ONE transaction: a checkpoint never runs ahead of the
   * spool. Returns the ids given to the segments, in order.
   */
  commit(segments: readonly NewSegment[], checkpoints: readonly CheckpointUpdate[]): Promise<number[]>;
  /**
   * Segments with afterId < id ≤ upToId in id order, at most `maxRecords` records and `maxBytes`
   * payload bytes — but always at least one segment.
   */
  readSegments(afterId: number, upToId: number, maxRecords: number, maxBytes?: number): Promise<Segment[]>;
  /**
   * Deletes delivered segments; ids already gone are ignored. `known` is what the caller knows the
   * segments hold (a claim does), so the store need not read them back to keep its totals.
   */
  deleteSegments(ids: readonly number[], known?: { records: number; bytes: number }): Promise<void>;
  /** Counts at open, to seed the spool's room accounting. */
  spoolTotals(): Promise<SpoolTotals>;
  spoolStats(): Promise<SpoolStats>;
  /** Rejects when the store cannot be written (readiness probe). */
  probeWritable(): Promise<void>;
  /** Set once the store's own file was deleted or replaced under this process (SQLite only). */
  stateProblem?(): string | undefined;
  close(): Promise<void>;
}
