// Keeps the shared spool from bloating. A spool is steady insert + delete: in PostgreSQL every
// deleted segment (and its TOASTed payload) stays as a dead tuple until autovacuum reclaims it, so
// under load the tables grow and vacuum competes with the writers. Instead, segments live in
// generations (list partitions by id range, pg-schema.ts): ids only grow, so writers move on to the
// next generation, the old one drains as delivery acknowledges it, and a drained generation is
// TRUNCATEd — its files are replaced by empty ones at once, with no dead tuples left behind.
//
// Safety: the emptiness check runs under an ACCESS EXCLUSIVE lock on that partition, so no insert
// or claim can be under way in it; the lock waits at most a moment (lock_timeout) and otherwise the
// generation is simply tried again next time. A generation that still holds a live segment (a
// backlog) is never truncated.
import type pg from 'pg';
import { GENERATIONS, generationOf } from './pg-schema.js';
import { rollBack } from './pg-rollback.js';

const LOCK_TIMEOUT_MS = 100;

/** Truncates every drained generation except the one being written; returns the generations truncated. */
export async function truncateDrainedGenerations(db: pg.Pool): Promise<number[]> {
  const seq = (await db.query<{ last_value: string }>('SELECT last_value FROM bridge_segment_id')).rows[0]!;
  const current = generationOf(Number(seq.last_value));
  const sizes = await db.query<{ g: number; bytes: string }>(
    `SELECT g, pg_total_relation_size(format('bridge_segments_g%s', g)::regclass) AS bytes FROM generate_series(0, ${GENERATIONS - 1}) AS g`,
  );
  const out: number[] = [];
  for (const row of sizes.rows) {
    const g = row.g;
    // The generation being written, and the next (writers reach it soon), are left alone; an
    // empty generation has nothing to give back (a fresh table is 8 KiB of indexes at most).
    if (g === current || g === (current + 1) % GENERATIONS || Number(row.bytes) <= 32 * 1024) continue;
    const c = await db.connect();
    let broken: Error | undefined;
    try {
      await c.query('BEGIN');
      await c.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT_MS}ms'`);
      await c.query(`LOCK TABLE bridge_segments_g${g} IN ACCESS EXCLUSIVE MODE`);
      const live = (await c.query(`SELECT EXISTS (SELECT 1 FROM bridge_segments_g${g}) AS live`)).rows[0] as {
        live: boolean;
      };
      if (!live.live) {
        await c.query(`TRUNCATE bridge_segments_g${g}`);
        out.push(g);
      }
      await c.query('COMMIT');
    } catch {
      // Busy (lock timeout) or unreachable: tried again at the next pass.
      broken = await rollBack(c);
    } finally {
      c.release(broken);
    }
  }
  return out;
}

/** Bytes the spool's tables take on disk (all generations, TOAST and indexes included). */
export async function spoolDiskBytes(db: pg.Pool): Promise<number> {
  const r = await db.query<{ bytes: string }>(
    `SELECT coalesce(sum(pg_total_relation_size(format('bridge_segments_g%s', g)::regclass)), 0) AS bytes FROM generate_series(0, ${GENERATIONS - 1}) AS g`,
  );
  return Number(r.rows[0]!.bytes);
}
