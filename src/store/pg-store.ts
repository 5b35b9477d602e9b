// PostgreSQL implementation of the Store, shared by several replicas (docs/design.md "Scale beyond
// one machine").
//
// Ownership and fencing: every session row has an `owner` (a replica id) and a `lease_epoch` that
// is bumped on every change of owner (claim and release). This process remembers, per session it
// owns, the epoch it claimed it at. Every write of an owner — its segments and checkpoints, in one
// transaction — first locks its session rows FOR SHARE where owner and epoch still match; a missing
// row means another replica claimed the session (our lease ran out: GC pause, SIGSTOP, partition),
// and the whole transaction is rolled back with a FencedError naming those sessions. A claim takes
// the rows FOR UPDATE (SKIP LOCKED), so a claim and an owner's write never interleave. Checkpoints
// only move forward in (service epoch, seq) order, whoever writes them.
//
// The spool moves with its session: a claim renumbers the session's undelivered segments with
// fresh ids (in their order) in the same transaction. The new owner then reads them as backlog after
// everything it has already seen, and a previous owner that still holds the old ids in memory can
// neither read nor delete them any more. Reads of the backlog return only segments of sessions this
// replica owns.
import pg from 'pg';
import type { SessionSpec } from '../config/schema.js';
import { GEN_SHIFT, GENERATIONS, generationOf, migratePg } from './pg-schema.js';
import { once } from '../util/lifecycle.js';
import type { NewSegment, Segment } from '../wire/segment-framing.js';
import {
  FencedError,
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

const READ_MAX_SEGMENTS = 256;
/** Rows per multi-row INSERT (9 parameters each; PostgreSQL allows 65535 per statement). */
const INSERT_ROWS = 500;
const SEGMENT_COLUMNS = '(id, gen, session_id, first_seq, last_seq, records, bytes, oldest_ts, payload)';
const SESSION_COLUMNS = 'id, spec, source, lifecycle, checkpoint, epoch, source_id, span_state';

export interface PgStoreOptions {
  replicaId: string;
  /** Rows of sessions finished longer ago are deleted at open; PRUNE_FINISHED_AFTER_MS by default. */
  pruneFinishedAfterMs?: number;
}

/** Sessions a claim took over, and the backlog that moved with them. */
export interface Claimed {
  sessions: SessionRow[];
  records: number;
  bytes: number;
  /** Highest (renumbered) segment id of the moved backlog; 0 when none. */
  maxId: number;
  /** Revision of each claimed session's spec (a PUT anywhere bumps it). */
  specRevs: Map<string, number>;
}

/** Creates the connection pool the store, the lease and the placement loop share. */
export function createPgPool(
  url: string,
  opts: { password?: string | undefined; queryTimeoutMs: number; replicaId: string; max?: number },
): pg.Pool {
  const db = new pg.Pool({
    connectionString: url,
    ...(opts.password !== undefined ? { password: opts.password } : {}),
    max: opts.max ?? 6,
    connectionTimeoutMillis: opts.queryTimeoutMs,
    // A query that hangs on a cut connection must fail well within a lease, so the caller notices.
    query_timeout: opts.queryTimeoutMs,
    statement_timeout: opts.queryTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: `browser-telemetry-bridge ${opts.replicaId}`.slice(0, 63),
  });
  // An idle connection dropped by the server (restart, failover) is an event, not a crash: the
  // next query opens a new one.
  db.on('error', () => undefined);
  // The same for a connection checked out for a transaction: the query under way fails and is
  // retried; the event itself must not take the process down (an unhandled 'error' event would).
  db.on('connect', (client) => client.on('error', () => undefined));
  return db;
}

export interface OpenPgStoreOptions extends PgStoreOptions {
  url: string;
  password?: string | undefined;
  queryTimeoutMs?: number;
}

/**
 * Deletes the rows of sessions that ended or were removed longer ago than `afterMs` and have nothing
 * spooled, as the embedded store does (sqlite-store.ts): PUT churn must not grow the table that every
 * replica reads. Any replica may do it at its start; the statement is idempotent.
 */
async function pruneFinished(db: pg.Pool, afterMs: number): Promise<number> {
  const r = await db.query(
    `DELETE FROM bridge_sessions s WHERE s.lifecycle <> 'active' AND s.ended_at < now() - make_interval(secs => $1::double precision / 1000)
       AND NOT EXISTS (SELECT 1 FROM bridge_segments g WHERE g.session_id = s.id)`,
    [afterMs],
  );
  return r.rowCount ?? 0;
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
    await pruneFinished(db, o.pruneFinishedAfterMs ?? PRUNE_FINISHED_AFTER_MS);
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
  /** Sessions this process owns → the lease epoch it claimed them at. */
  private readonly owned = new Map<string, number>();

  /** The lease's own connection (renewals and the live-replica list). */
  readonly leaseDb: pg.Pool;

  constructor(
    readonly db: pg.Pool,
    opts: PgStoreOptions,
    leaseDb?: pg.Pool,
  ) {
    this.replicaId = opts.replicaId;
    this.leaseDb = leaseDb ?? db;
  }

  /** Sessions owned by this process (id → lease epoch). */
  ownedSessions(): ReadonlyMap<string, number> {
    return this.owned;
  }

  async sessions(): Promise<SessionRow[]> {
    const r = await this.db.query<RawSession>(`SELECT ${SESSION_COLUMNS} FROM bridge_sessions ORDER BY added_order`);
    return r.rows.map(toRow);
  }

  async putSession(spec: SessionSpec, source: SessionSource): Promise<SessionRow> {
    const r = await this.db.query<RawSession>(
      `INSERT INTO bridge_sessions (id, spec, source) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET spec = excluded.spec, lifecycle = 'active', ended_at = NULL, spec_rev = bridge_sessions.spec_rev + 1,
         source = CASE WHEN bridge_sessions.source = 'api' THEN 'api' ELSE excluded.source END
       RETURNING ${SESSION_COLUMNS}`,
      [spec.id, JSON.stringify(spec), source],
    );
    return toRow(r.rows[0]!);
  }

  async addSessions(specs: readonly SessionSpec[], source: SessionSource): Promise<SessionRow[]> {
    if (specs.length === 0) return [];
    // One statement: replicas listing the same session at once insert it once; the owner claims it.
    const r = await this.db.query<RawSession>(
      `INSERT INTO bridge_sessions (id, spec, source)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
       ON CONFLICT (id) DO NOTHING
       RETURNING ${SESSION_COLUMNS}`,
      [specs.map((s) => s.id), specs.map((s) => JSON.stringify(s)), specs.map(() => source)],
    );
    return r.rows.map(toRow);
  }

  async claimDiscoveryPoll(minGapMs: number): Promise<DiscoveryClaim> {
    // A conditional UPDATE on the database clock: of replicas asking at once, one row update wins.
    const r = await this.db.query<{ claimed: boolean; last: Date | null; now: Date }>(
      `WITH c AS (
         UPDATE bridge_discovery SET claimed_at = clock_timestamp(), claimed_by = $2
         WHERE id = 1 AND (claimed_at IS NULL OR claimed_at <= clock_timestamp() - $1 * interval '1 millisecond' OR claimed_at > clock_timestamp())
         RETURNING claimed_at)
       SELECT EXISTS (SELECT 1 FROM c) AS claimed, d.last_success AS last, coalesce((SELECT claimed_at FROM c), clock_timestamp()) AS now
       FROM bridge_discovery d WHERE d.id = 1`,
      [minGapMs, this.replicaId],
    );
    const row = r.rows[0]!;
    return { claimed: row.claimed, lastSuccessAt: row.last ? row.last.getTime() : null, now: row.now.getTime() };
  }

  async recordDiscoveryPoll(startedAt: number): Promise<void> {
    await this.db.query(
      `UPDATE bridge_discovery SET last_success = to_timestamp($1::double precision / 1000)
       WHERE id = 1 AND (last_success IS NULL OR last_success < to_timestamp($1::double precision / 1000))`,
      [startedAt],
    );
  }

  /** The current specs of some sessions (the owner re-reads them after a PUT elsewhere). */
  async specs(ids: readonly string[]): Promise<SessionRow[]> {
    const r = await this.db.query<RawSession>(
      `SELECT ${SESSION_COLUMNS} FROM bridge_sessions WHERE id = ANY($1::text[])`,
      [ids],
    );
    return r.rows.map(toRow);
  }

  async setLifecycle(sessionId: string, lifecycle: SessionLifecycle): Promise<void> {
    await this.db.query(
      "UPDATE bridge_sessions SET lifecycle = $1, ended_at = CASE WHEN $1 = 'active' THEN NULL ELSE coalesce(ended_at, now()) END, span_state = CASE WHEN $1 = 'removed' THEN NULL ELSE span_state END WHERE id = $2",
      [lifecycle, sessionId],
    );
  }

  async commit(segments: readonly NewSegment[], checkpoints: readonly CheckpointUpdate[]): Promise<number[]> {
    const ids = new Set<string>();
    for (const s of segments) ids.add(s.sessionId);
    for (const c of checkpoints) ids.add(c.sessionId);
    const notOwned = [...ids].filter((id) => !this.owned.has(id));
    if (notOwned.length > 0) throw new FencedError(notOwned);
    if (ids.size === 0) return [];
    const c = await this.db.connect();
    try {
      await c.query('BEGIN');
      const want = [...ids];
      const held = await c.query<{ id: string }>(
        `SELECT s.id FROM bridge_sessions s, unnest($1::text[], $2::bigint[]) AS o(id, ep)
         WHERE s.id = o.id AND s.owner = $3 AND s.lease_epoch = o.ep FOR SHARE OF s`,
        [want, want.map((id) => this.owned.get(id)!), this.replicaId],
      );
      if (held.rows.length !== want.length) {
        await c.query('ROLLBACK');
        const ok = new Set(held.rows.map((r) => r.id));
        const lost = want.filter((id) => !ok.has(id));
        for (const id of lost) this.owned.delete(id);
        throw new FencedError(lost);
      }
      const out: number[] = [];
      if (segments.length > 0) {
        const next = await c.query<{ id: string }>(
          "SELECT nextval('bridge_segment_id') AS id FROM generate_series(1, $1)",
          [segments.length],
        );
        for (const r of next.rows) out.push(Number(r.id));
        // One session's nextval calls are increasing; sorted, they follow the segments' order.
        out.sort((a, b) => a - b);
        for (let i = 0; i < segments.length; i += INSERT_ROWS) {
          const chunk = segments.slice(i, i + INSERT_ROWS);
          const params: unknown[] = [];
          const rows: string[] = [];
          chunk.forEach((s, j) => {
            const id = out[i + j]!;
            const b = params.length;
            rows.push(
              `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, $${b + 8}, $${b + 9})`,
            );
            params.push(
              id,
              generationOf(id),
              s.sessionId,
              s.firstSeq,
              s.lastSeq,
              s.records,
              s.payload?.length ?? 0,
              s.oldestTsMicros,
              s.payload,
            );
          });
          await c.query(`INSERT INTO bridge_segments ${SEGMENT_COLUMNS} VALUES ${rows.join(', ')}`, params);
        }
      }
      if (checkpoints.length > 0) {
        // Forward only, in (service epoch, seq) order: a stale writer can never move it back.
        await c.query(
          `UPDATE bridge_sessions s SET checkpoint = o.cp, epoch = o.ep, source_id = coalesce(o.src, s.source_id), span_state = o.spans
           FROM unnest($1::text[], $2::bigint[], $3::int[], $4::text[], $5::text[]) AS o(id, cp, ep, src, spans)
           WHERE s.id = o.id AND (s.epoch < o.ep OR (s.epoch = o.ep AND s.checkpoint <= o.cp))`,
          [
            checkpoints.map((x) => x.sessionId),
            checkpoints.map((x) => x.checkpoint),
            checkpoints.map((x) => x.epoch),
            checkpoints.map((x) => x.sourceId ?? null),
            checkpoints.map((x) => x.spans?.() ?? null),
          ],
        );
      }
      await c.query('COMMIT');
      return out;
    } catch (err) {
      if (!(err instanceof FencedError)) await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  async readSegments(
    afterId: number,
    upToId: number,
    maxRecords: number,
    maxBytes = Number.POSITIVE_INFINITY,
  ): Promise<Segment[]> {
    // Sizes first, payloads only of what fits: a backlog of screenshots is megabytes per segment.
    const heads = await this.db.query<{ id: string; records: number; bytes: number }>(
      `SELECT g.id, g.records, g.bytes FROM bridge_segments g JOIN bridge_sessions s ON s.id = g.session_id AND s.owner = $3
       WHERE g.id > $1 AND g.id <= $2 ORDER BY g.id LIMIT ${READ_MAX_SEGMENTS}`,
      [afterId, upToId, this.replicaId],
    );
    let records = 0;
    let bytes = 0;
    const ids: number[] = [];
    for (const h of heads.rows) {
      if (ids.length > 0 && (records + h.records > maxRecords || bytes + h.bytes > maxBytes)) break;
      records += h.records;
      bytes += h.bytes;
      ids.push(Number(h.id));
    }
    if (ids.length === 0) return [];
    const r = await this.db.query<RawSegment>(
      `SELECT id, session_id, first_seq, last_seq, records, oldest_ts, payload FROM bridge_segments WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [ids],
    );
    return r.rows.map((x) => ({
      id: Number(x.id),
      sessionId: x.session_id,
      firstSeq: Number(x.first_seq),
      lastSeq: Number(x.last_seq),
      records: x.records,
      oldestTsMicros: Number(x.oldest_ts),
      payload: x.payload,
    }));
  }

  async deleteSegments(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query('DELETE FROM bridge_segments WHERE id = ANY($1::bigint[])', [ids]);
  }

  /** Only owned sessions count: a replica's spool is the backlog of the sessions it follows. */
  async spoolTotals(): Promise<SpoolTotals> {
    const r = await this.ownedSpool('coalesce(max(id), 0) AS m');
    return { records: r.records, bytes: r.bytes, maxId: Number(r.m) };
  }

  async spoolStats(): Promise<SpoolStats> {
    const r = await this.ownedSpool('min(oldest_ts) AS m');
    return { records: r.records, bytes: r.bytes, oldestTsMicros: r.m === null ? null : Number(r.m) };
  }

  private async ownedSpool(extra: string): Promise<{ records: number; bytes: number; m: string | null }> {
    const r = await this.db.query<{ records: string; bytes: string; m: string | null }>(
      `SELECT coalesce(sum(records), 0) AS records, coalesce(sum(bytes), 0) AS bytes, ${extra} FROM bridge_segments WHERE session_id = ANY($1::text[])`,
      [[...this.owned.keys()]],
    );
    const row = r.rows[0]!;
    return { records: Number(row.records), bytes: Number(row.bytes), m: row.m };
  }

  async probeWritable(): Promise<void> {
    await this.db.query("UPDATE bridge_meta SET value = value WHERE key = 'schema_version'");
  }

  /**
   * Takes over the sessions of `ids` that are active and have no live owner (or whose owner is this
   * replica's previous incarnation): owner := this replica, lease epoch + 1, backlog renumbered.
   * Rows another replica is claiming or writing right now are skipped (SKIP LOCKED).
   */
  async claim(ids: readonly string[]): Promise<Claimed> {
    const none: Claimed = { sessions: [], records: 0, bytes: 0, maxId: 0, specRevs: new Map() };
    if (ids.length === 0) return none;
    const c = await this.db.connect();
    try {
      await c.query('BEGIN');
      const free = await c.query<{ id: string }>(
        `SELECT s.id FROM bridge_sessions s
         LEFT JOIN bridge_replicas r ON r.id = s.owner AND r.lease_until > now()
         WHERE s.id = ANY($1::text[]) AND (s.owner IS NULL OR s.owner = $2 OR r.id IS NULL)
           AND (s.lifecycle = 'active' OR EXISTS (SELECT 1 FROM bridge_segments g WHERE g.session_id = s.id))
         FOR UPDATE OF s SKIP LOCKED`,
        [ids, this.replicaId],
      );
      const got = free.rows.map((r) => r.id);
      if (got.length === 0) {
        await c.query('ROLLBACK');
        return none;
      }
      const rows = await c.query<RawSession & { lease_epoch: string; spec_rev: string }>(
        `UPDATE bridge_sessions SET owner = $2, lease_epoch = lease_epoch + 1, released_at = NULL
         WHERE id = ANY($1::text[]) RETURNING ${SESSION_COLUMNS}, lease_epoch, spec_rev`,
        [got, this.replicaId],
      );
      // Renumber in id order: nextval runs over the ordered inner query, row by row.
      await c.query(
        `WITH moved AS (DELETE FROM bridge_segments WHERE session_id = ANY($1::text[]) RETURNING *)
         INSERT INTO bridge_segments ${SEGMENT_COLUMNS}
         SELECT x.nid, ((x.nid >> ${GEN_SHIFT}) % ${GENERATIONS})::smallint, x.session_id, x.first_seq, x.last_seq, x.records, x.bytes, x.oldest_ts, x.payload
         FROM (SELECT nextval('bridge_segment_id') AS nid, m.* FROM (SELECT * FROM moved ORDER BY id) m) x`,
        [got],
      );
      const t = await c.query<{ records: string; bytes: string; m: string }>(
        'SELECT coalesce(sum(records), 0) AS records, coalesce(sum(bytes), 0) AS bytes, coalesce(max(id), 0) AS m FROM bridge_segments WHERE session_id = ANY($1::text[])',
        [got],
      );
      await c.query('COMMIT');
      for (const r of rows.rows) this.owned.set(r.id, Number(r.lease_epoch));
      const row = t.rows[0]!;
      return {
        sessions: rows.rows.map(toRow),
        records: Number(row.records),
        bytes: Number(row.bytes),
        maxId: Number(row.m),
        specRevs: new Map(rows.rows.map((r) => [r.id, Number(r.spec_rev)])),
      };
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  /** Gives a session up (after flushing it): no owner, epoch + 1, so the preferred replica claims it at once. */
  async release(sessionId: string): Promise<void> {
    const epoch = this.owned.get(sessionId);
    if (epoch === undefined) return;
    await this.db.query(
      'UPDATE bridge_sessions SET owner = NULL, lease_epoch = lease_epoch + 1, released_at = now() WHERE id = $1 AND owner = $2 AND lease_epoch = $3',
      [sessionId, this.replicaId, epoch],
    );
    // Only now: a release that failed leaves the session ours, and the next pass hands it over again.
    if (this.owned.get(sessionId) === epoch) this.owned.delete(sessionId);
  }

  /** Forgets a session locally (lost to another replica, or our lease ran out): its writes are refused here. */
  forget(sessionId: string): void {
    this.owned.delete(sessionId);
  }

  forgetAll(): string[] {
    const ids = [...this.owned.keys()];
    this.owned.clear();
    return ids;
  }

  /** Ends the connection pool; idempotent (pg refuses a second end). */
  readonly close = once(async (): Promise<void> => {
    if (this.leaseDb !== this.db) await this.leaseDb.end().catch(() => undefined);
    await this.db.end();
  });
}

interface RawSession {
  id: string;
  spec: string;
  source: SessionSource;
  lifecycle: SessionLifecycle;
  checkpoint: string;
  epoch: number;
  source_id: string | null;
  span_state: string | null;
}
interface RawSegment {
  id: string;
  session_id: string;
  first_seq: string;
  last_seq: string;
  records: number;
  oldest_ts: string;
  payload: Buffer;
}

function toRow(r: RawSession): SessionRow {
  const row: SessionRow = {
    spec: JSON.parse(r.spec) as SessionSpec,
    source: r.source,
    lifecycle: r.lifecycle,
    checkpoint: Number(r.checkpoint),
    epoch: r.epoch,
  };
  if (r.source_id !== null && r.source_id !== undefined) row.sourceId = r.source_id;
  if (r.span_state !== null && r.span_state !== undefined) row.spans = r.span_state;
  return row;
}
