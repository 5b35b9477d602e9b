// Which sessions of the shared store this replica owns, and the SQL that moves them between
// replicas: claims (taking over orphans, with their spool) and releases (handing one over).
//
// Every session row has an `owner` (a replica id) and a `lease_epoch` that is bumped on every change
// of owner. This process remembers, per session it owns, the epoch it claimed it at; its writes are
// fenced on that pair (pg-spool-writes.ts). A claim takes the rows FOR UPDATE (SKIP LOCKED), so a
// claim and an owner's write never interleave, and renumbers the session's undelivered segments with
// fresh ids (in their order) in the same transaction: the new owner reads them as backlog after
// everything it has already seen, and a previous owner that still holds the old ids in memory can
// neither read nor delete them any more.
import type pg from 'pg';
import { GEN_SHIFT, GENERATIONS, SEGMENT_COLUMNS } from './pg-schema.js';
import { SESSION_COLUMNS, toRow, type RawSession } from './pg-sessions.js';
import type { SessionRow } from './store.js';
import { rollBack } from './pg-rollback.js';

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

export class PgOwnership {
  /** Sessions this process owns → the lease epoch it claimed them at. */
  private readonly owned = new Map<string, number>();

  constructor(
    private readonly db: pg.Pool,
    readonly replicaId: string,
  ) {}

  /** Sessions owned by this process (id → lease epoch). */
  get sessions(): ReadonlyMap<string, number> {
    return this.owned;
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
    let broken: Error | undefined;
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
         SELECT x.nid, ((x.nid >> ${GEN_SHIFT}) % ${GENERATIONS})::smallint, x.session_id, x.first_seq, x.last_seq, x.records, x.bytes, x.oldest_ts, x.payload, x.epoch
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
      broken = await rollBack(c);
      throw err;
    } finally {
      c.release(broken);
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
}
