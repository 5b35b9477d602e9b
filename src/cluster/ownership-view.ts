// Read-only views of who owns what in the shared store: what the placement loop decides from
// (every active session, its owner, whether that owner's lease is live, how long it has had none),
// what GET /v1/sessions shows, and which ended sessions still have a spool to deliver.
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

/** Every active session and every session this replica owns, as the placement loop needs them. */
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
  }>(
    `SELECT s.id, s.owner, s.lease_epoch, s.lifecycle, s.spec_rev, (live.id IS NOT NULL) AS owner_live,
       (s.lifecycle <> 'active' AND EXISTS (SELECT 1 FROM bridge_segments g WHERE g.session_id = s.id)) AS has_spool,
       CASE WHEN live.id IS NOT NULL THEN 0
         ELSE floor(extract(epoch FROM now() - coalesce(s.released_at, any_r.lease_until, s.added_at)) * 1000)::float8 END AS orphan_ms
     FROM bridge_sessions s
     LEFT JOIN bridge_replicas live ON live.id = s.owner AND live.lease_until > now()
     LEFT JOIN bridge_replicas any_r ON any_r.id = s.owner
     WHERE s.lifecycle = 'active' OR s.owner = $1 OR EXISTS (SELECT 1 FROM bridge_segments g WHERE g.session_id = s.id)`,
    [replicaId],
  );
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

/** Session id → owning replica (null: none), for GET /v1/sessions. */
export async function readOwners(
  db: pg.Pool,
): Promise<Map<string, { owner: string | null; lifecycle: SessionLifecycle }>> {
  const r = await db.query<{ id: string; owner: string | null; lifecycle: SessionLifecycle }>(
    'SELECT id, owner, lifecycle FROM bridge_sessions',
  );
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
