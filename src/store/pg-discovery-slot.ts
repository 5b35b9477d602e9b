// The shared store's discovery slot (bridge_discovery): one poll of the service's session list per
// interval for the whole cluster, whichever replica asks first.
import type pg from 'pg';
import type { DiscoveryClaim } from './store.js';

export async function claimDiscoveryPoll(db: pg.Pool, replicaId: string, minGapMs: number): Promise<DiscoveryClaim> {
  // A conditional UPDATE on the database clock: of replicas asking at once, one row update wins.
  const r = await db.query<{ claimed: boolean; last: Date | null; now: Date }>(
    `WITH c AS (
       UPDATE bridge_discovery SET claimed_at = clock_timestamp(), claimed_by = $2
       WHERE id = 1 AND (claimed_at IS NULL OR claimed_at <= clock_timestamp() - $1 * interval '1 millisecond' OR claimed_at > clock_timestamp())
       RETURNING claimed_at)
     SELECT EXISTS (SELECT 1 FROM c) AS claimed, d.last_success AS last, coalesce((SELECT claimed_at FROM c), clock_timestamp()) AS now
     FROM bridge_discovery d WHERE d.id = 1`,
    [minGapMs, replicaId],
  );
  const row = r.rows[0]!;
  return { claimed: row.claimed, lastSuccessAt: row.last ? row.last.getTime() : null, now: row.now.getTime() };
}

export async function recordDiscoveryPoll(db: pg.Pool, startedAt: number): Promise<void> {
  await db.query(
    `UPDATE bridge_discovery SET last_success = to_timestamp($1::double precision / 1000)
     WHERE id = 1 AND (last_success IS NULL OR last_success < to_timestamp($1::double precision / 1000))`,
    [startedAt],
  );
}
