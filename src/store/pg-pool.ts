// The connection pools of the shared store: the store's own, and the lease's (cluster/lease.ts).
import pg from 'pg';

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
