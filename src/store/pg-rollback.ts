// How a shared-store transaction ends when it failed. Apart from pg-pool.ts, which loads the pg
// client: the modules that use this are loaded by every daemon, and a sidecar never loads pg.
import type { PoolClient } from 'pg';

/**
 * Ends a failed transaction; returns what to give `release()`. A connection whose ROLLBACK fails too
 * (the server paused or cut off past the query timeout) is destroyed instead of pooled: pg gives up
 * on a timed-out query client-side, yet what the connection had sent still runs once the server
 * goes on, so pooled it would sit inside this transaction, holding its locks, and the next caller's
 * statement (a checkpoint write) would run in it and never be committed.
 */
export async function rollBack(c: PoolClient): Promise<Error | undefined> {
  try {
    await c.query('ROLLBACK');
    return undefined;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}
