// The durable state of the bridge, behind an interface so a shared implementation (several replicas
// following one set of sessions) can replace SQLite without touching the pipeline (DESIGN.md,
// "Performance envelope"). One contract test suite runs against every implementation.
import type { SessionSpec } from '../config/schema.js';

export type SessionSource = 'config' | 'api';
/** active: followed; ended: the service answered 404; removed: stopped by DELETE /v1/sessions/{id}. */
export type SessionLifecycle = 'active' | 'ended' | 'removed';

export interface SessionRow {
  spec: SessionSpec;
  source: SessionSource;
  lifecycle: SessionLifecycle;
  /** Highest seq durably handled (spooled, filtered or covered by a gap record); 0 = none yet. */
  checkpoint: number;
  /** Service epoch: bumped when seq went backwards inside one connection (service restart). */
  epoch: number;
}

/** One record to spool: the mapped log record as JSON. */
export interface SpoolEntry {
  sessionId: string;
  seq: number;
  tsMicros: number;
  payload: string;
  /** UTF-8 size of `payload`, measured once by the writer; what the spool's size limit counts. */
  bytes: number;
}

export interface CheckpointUpdate {
  sessionId: string;
  checkpoint: number;
  epoch: number;
}

export interface SpooledRecord {
  id: number;
  sessionId: string;
  seq: number;
  payload: string;
  bytes: number;
}

export interface SpoolStats {
  records: number;
  bytes: number;
  /** Event time of the oldest undelivered record, Unix microseconds. */
  oldestTsMicros: number | null;
}

export interface Store {
  sessions(): SessionRow[];
  /** Inserts a session or replaces its spec; a re-added session becomes active again, keeping its checkpoint. */
  putSession(spec: SessionSpec, source: SessionSource): SessionRow;
  setLifecycle(sessionId: string, lifecycle: SessionLifecycle): void;
  /** Spools entries and moves checkpoints in ONE transaction: a checkpoint never runs ahead of the spool. */
  commit(entries: readonly SpoolEntry[], checkpoints: readonly CheckpointUpdate[]): void;
  /** Oldest spooled records with id > afterId, in id order. */
  readBatch(afterId: number, limit: number): SpooledRecord[];
  /** Deletes delivered records (their sizes keep the byte total exact without a table scan). */
  ack(records: readonly Pick<SpooledRecord, 'id' | 'bytes'>[]): void;
  spoolStats(): SpoolStats;
  /** Bytes spooled now; cheap (no query), called on the hot path for back-pressure. */
  spoolBytes(): number;
  /** Throws when the store cannot be written (readiness probe). */
  probeWritable(): void;
  close(): void;
}
