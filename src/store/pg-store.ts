// PostgreSQL implementation of the Store, shared by several replicas (docs/design.md "Scale beyond
// one machine"). This file is its face; the parts behind it:
//   - pg-sessions.ts: the session rows every replica reads (specs, lifecycles, checkpoints);
//   - pg-ownership.ts: which sessions this replica owns, claims (the spool moves with its session)
//     and releases;
//   - pg-spool-writes.ts: an owner's segments and checkpoints, fenced on ownership, and the backlog;
//   - pg-owed-spans.ts: which replica sends a finished session's owed spans;
//   - pg-discovery-slot.ts: one poll of the service's session list per interval for the cluster;
//   - pg-schema.ts, pg-pool.ts, pg-spool-rotation.ts: the schema, the connections, the spool's
//     generations.
// The lease itself (bridge_replicas) is the cluster's: cluster/lease.ts, on its own connection.
import type pg from 'pg';
import type { SessionSpec } from '../config/schema.js';
import { migratePg } from './pg-schema.js';
import { createPgPool } from './pg-pool.js';
import { PgOwnership, type Claimed } from './pg-ownership.js';
import * as sessionRows from './pg-sessions.js';
import { claimDiscoveryPoll, recordDiscoveryPoll } from './pg-discovery-slot.js';
import { claimOwedSpans } from './pg-owed-spans.js';
import { commitSpool, deleteSegments, ownedSpool, readSegments } from './pg-spool-writes.js';
import { once } from '../util/lifecycle.js';
import type { NewSegment, Segment } from '../wire/segment-framing.js';
import {
  PRUNE_FINISHED_AFTER_MS,
  type CheckpointUpdate,
  type DiscoveryClaim,
  type SessionLifecycle,
  type SessionRow,
  type SessionSource,
  type SpoolStats,
  type SpoolTotals,
  type Store,
} from './store.js';

export { createPgPool } from './pg-pool.js';
export type { Claimed } from './pg-ownership.js';

export interface PgStoreOptions {
  replicaId: string;
  /** Rows of sessions finished longer ago are deleted at open and by pruneFinished(); PRUNE_FINISHED_AFTER_MS by default. */
  pruneFinishedAfterMs?: number;
}

export interface OpenPgStoreOptions extends PgStoreOptions {
  url: string;
  password?: string | undefined;
  queryTimeoutMs?: number;
}

/** Connects, creates or migrates the schema, and returns the store (which owns the db). */
export async function openPgStore(o: OpenPgStoreOptions): Promise<PgStore> {
  const db = createPgPool(o.url, {
    password: o.password,
    queryTimeoutMs: o.queryTimeoutMs ?? 5000,
    replicaId: o.replicaId,
  });
  try {
    await migratePg(db);
    await sessionRows.pruneFinished(db, o.pruneFinishedAfterMs ?? PRUNE_FINISHED_AFTER_MS);
  } catch (err) {
    await db.end().catch(() => undefined);
    throw err;
  }
  // The lease gets a connection of its own: commits, claims, control requests and scrapes queueing
  // for the shared pool must never make a renewal wait past the lease.
  const leaseDb = createPgPool(o.url, {
    password: o.password,
    queryTimeoutMs: o.queryTimeoutMs ?? 5000,
    replicaId: `${o.replicaId} lease`,
    max: 1,
  });
  return new PgStore(db, o, leaseDb);
}

export class PgStore implements Store {
  readonly replicaId: string;
  private readonly owners: PgOwnership;

  /** The lease's own connection (renewals and the live-replica list). */
  readonly leaseDb: pg.Pool;

  constructor(
    readonly db: pg.Pool,
    opts: PgStoreOptions,
    leaseDb?: pg.Pool,
  ) {
    this.replicaId = opts.replicaId;
    this.retentionMs = opts.pruneFinishedAfterMs ?? PRUNE_FINISHED_AFTER_MS;
    this.leaseDb = leaseDb ?? db;
    this.owners = new PgOwnership(db, opts.replicaId);
  }

  /** Sessions owned by this process (id → lease epoch). */
  ownedSessions(): ReadonlyMap<string, number> {
    return this.owners.sessions;
  }

  private readonly retentionMs: number;

  sessions(): Promise<SessionRow[]> {
    return sessionRows.listSessions(this.db);
  }

  /** The active sessions' rows only (finished ones stay for the retention, and are most of the table under churn). */
  activeSessions(): Promise<SessionRow[]> {
    return sessionRows.listActiveSessions(this.db);
  }

  pruneFinished(): Promise<number> {
    return sessionRows.pruneFinished(this.db, this.retentionMs);
  }

  putSession(spec: SessionSpec, source: SessionSource): Promise<SessionRow> {
    return sessionRows.putSession(this.db, spec, source);
  }

  addSessions(specs: readonly SessionSpec[], source: SessionSource): Promise<SessionRow[]> {
    return sessionRows.addSessions(this.db, specs, source);
  }

  /** The current specs of some sessions (the owner re-reads them after a PUT elsewhere). */
  specs(ids: readonly string[]): Promise<SessionRow[]> {
    return sessionRows.sessionSpecs(this.db, ids);
  }

  setLifecycle(sessionId: string, lifecycle: SessionLifecycle, sending = false): Promise<void> {
    return sessionRows.setLifecycle(this.db, sessionId, lifecycle, sending ? this.replicaId : null);
  }

  dropSpanState(sessionId: string): Promise<void> {
    return sessionRows.dropSpanState(this.db, sessionId, this.replicaId);
  }

  /** Takes the owed spans of finished sessions this replica is to send (pg-owed-spans.ts); `holding`: those it sends already. */
  claimOwedSpans(holding: readonly string[]): Promise<SessionRow[]> {
    return claimOwedSpans(this.db, this.replicaId, holding);
  }

  claimDiscoveryPoll(minGapMs: number): Promise<DiscoveryClaim> {
    return claimDiscoveryPoll(this.db, this.replicaId, minGapMs);
  }

  recordDiscoveryPoll(startedAt: number): Promise<void> {
    return recordDiscoveryPoll(this.db, startedAt);
  }

  commit(segments: readonly NewSegment[], checkpoints: readonly CheckpointUpdate[]): Promise<number[]> {
    return commitSpool(this.db, this.owners, segments, checkpoints);
  }

  readSegments(
    afterId: number,
    upToId: number,
    maxRecords: number,
    maxBytes = Number.POSITIVE_INFINITY,
  ): Promise<Segment[]> {
    return readSegments(this.db, this.replicaId, afterId, upToId, maxRecords, maxBytes);
  }

  deleteSegments(ids: readonly number[]): Promise<void> {
    return deleteSegments(this.db, ids);
  }

  /** Only owned sessions count: a replica's spool is the backlog of the sessions it follows. */
  async spoolTotals(): Promise<SpoolTotals> {
    const r = await ownedSpool(this.db, this.owners, 'coalesce(max(id), 0) AS m');
    return { records: r.records, bytes: r.bytes, maxId: Number(r.m) };
  }

  async spoolStats(): Promise<SpoolStats> {
    const r = await ownedSpool(this.db, this.owners, 'min(oldest_ts) AS m');
    return { records: r.records, bytes: r.bytes, oldestTsMicros: r.m === null ? null : Number(r.m) };
  }

  async probeWritable(): Promise<void> {
    await this.db.query("UPDATE bridge_meta SET value = value WHERE key = 'schema_version'");
  }

  /** Takes over the orphaned sessions of `ids`, with their spool (pg-ownership.ts). */
  claim(ids: readonly string[]): Promise<Claimed> {
    return this.owners.claim(ids);
  }

  /** Gives a session up (after flushing it): no owner, epoch + 1, so the preferred replica claims it at once. */
  release(sessionId: string): Promise<void> {
    return this.owners.release(sessionId);
  }

  /** Forgets a session locally (lost to another replica, or our lease ran out): its writes are refused here. */
  forget(sessionId: string): void {
    this.owners.forget(sessionId);
  }

  forgetAll(): string[] {
    return this.owners.forgetAll();
  }

  /** Ends the connection pool; idempotent (pg refuses a second end). */
  readonly close = once(async (): Promise<void> => {
    if (this.leaseDb !== this.db) await this.leaseDb.end().catch(() => undefined);
    await this.db.end();
  });
}
