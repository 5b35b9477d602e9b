// Read-only views of who owns what in the shared store: what the placement loop decides from
// (every active session, its owner, whether that owner's lease is live, how long it has had none),
// what GET /v1/sessions shows, and which ended sessions still have a spool to deliver. Every read
// goes through an index: finished rows are most of the table under churn (below).
import type pg from 'pg';
import type { SessionLifecycle } from '../store/store.js';

/** A session as the placement loop sees it. */
export interface OwnershipRow {
  id: string;
  owner: string | null;
  leaseEpoch: number;
  lifecycle: SessionLifecycle;
  /** The owner holds a valid lease (database clock). */
  ownerLive: boolean;
  /** How long the session has had no live owner, ms (database clock); 0 while it has one. */
  orphanMs: number;
  /** Bumped by every PUT: the owner re-reads the spec when it changes. */
  specRev: number;
  /** A session no longer active still has undelivered segments: someone must own it until they are delivered. */
  hasSpool: boolean;
}

/**
 * The rows the placement loop reads: every active session, every session this replica owns, and
 * every session with segments in the store. Each part is read through an index (the partial index
 * of active rows, the owner index, and the segments' session index walked one distinct session at a
 * time), never by scanning the table: finished rows stay for the retention (7 days) and churn makes
 * them the great majority. With 200,000 of them a scan with a segments probe per row took 0.5 s of
 * the database for every pass of every replica (a pass every `lease / 5`); the whole table was read
 * for every GET /v1/sessions as well.
 */
export const OWNERSHIP_VIEW_SQL = `WITH RECURSIVE spooled(id) AS (
    (SELECT session_id FROM bridge_segments ORDER BY session_id LIMIT 1)
    UNION ALL
    SELECT (SELECT g.session_id FROM bridge_segments g WHERE g.session_id > p.id ORDER BY g.session_id LIMIT 1)
    FROM spooled p WHERE p.id IS NOT NULL),
  wanted AS (
    SELECT id FROM bridge_sessions WHERE lifecycle = 'active'
    UNION SELECT id FROM bridge_sessions WHERE owner = $1
    UNION SELECT id FROM spooled WHERE id IS NOT NULL)
  SELECT s.id, s.owner, s.lease_epoch, s.lifecycle, s.spec_rev, (live.id IS NOT NULL) AS owner_live,
     (s.lifecycle <> 'active' AND EXISTS (SELECT 1 FROM bridge_segments g WHERE g.session_id = s.id)) AS has_spool,
     CASE WHEN live.id IS NOT NULL THEN 0
       ELSE floor(extract(epoch FROM now() - coalesce(s.released_at, any_r.lease_until, s.added_at)) * 1000)::float8 END AS orphan_ms
   FROM bridge_sessions s
   LEFT JOIN bridge_replicas live ON live.id = s.owner AND live.lease_until > now()
   LEFT JOIN bridge_replicas any_r ON any_r.id = s.owner
   -- An array, not a join: the planner cannot tell how many ids the recursive part yields, guessed
   -- thousands and hashed a scan of the whole table against them.
   WHERE s.id = ANY(ARRAY(SELECT id FROM wanted))`;

/** Every active session, every session this replica owns and every one with a spool, as the placement loop needs them. */
export async function readOwnershipView(db: pg.Pool, replicaId: string): Promise<OwnershipRow[]> {
  const r = await db.query<{
    id: string;
    owner: string | null;
    lease_epoch: string;
    lifecycle: SessionLifecycle;
    owner_live: boolean;
    orphan_ms: number;
    spec_rev: string;
    has_spool: boolean;
  }>(OWNERSHIP_VIEW_SQL, [replicaId]);
  return r.rows.map((x) => ({
    id: x.id,
    owner: x.owner,
    leaseEpoch: Number(x.lease_epoch),
    lifecycle: x.lifecycle,
    ownerLive: x.owner_live,
    orphanMs: Math.max(0, x.orphan_ms),
    specRev: Number(x.spec_rev),
    hasSpool: x.has_spool,
  }));
}

export type Owners = Map<string, { owner: string | null; lifecycle: SessionLifecycle }>;

/** The active sessions and their owners, through the index of active rows. */
export const ACTIVE_OWNERS_SQL = "SELECT id, owner, lifecycle FROM bridge_sessions WHERE lifecycle = 'active'";

/** Session id → owning replica (null: none): of the active sessions (GET /v1/sessions), or of the sessions named, whatever their lifecycle. */
export async function readOwners(db: pg.Pool, ids?: readonly string[]): Promise<Owners> {
  type Row = { id: string; owner: string | null; lifecycle: SessionLifecycle };
  const r =
    ids === undefined
      ? await db.query<Row>(ACTIVE_OWNERS_SQL)
      : await db.query<Row>('SELECT id, owner, lifecycle FROM bridge_sessions WHERE id = ANY($1::text[])', [ids]);
  return new Map(r.rows.map((x) => [x.id, { owner: x.owner, lifecycle: x.lifecycle }]));
}

/** Which of these sessions still have undelivered segments in the store. */
export async function sessionsWithSpool(db: pg.Pool, ids: readonly string[]): Promise<Set<string>> {
  const r = await db.query<{ session_id: string }>(
    'SELECT DISTINCT session_id FROM bridge_segments WHERE session_id = ANY($1::text[])',
    [ids],
  );
  return new Set(r.rows.map((x) => x.session_id));
}
