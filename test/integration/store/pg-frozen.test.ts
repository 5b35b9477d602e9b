// The shared store's PostgreSQL frozen (SIGSTOP to the server and its backends: a paused VM) while a
// transaction of the bridge is under way, then continued. Every query of the transaction times out,
// the ROLLBACK too (it waits behind them on the same connection); pg gives up on them client-side,
// but what the connection had sent still runs when the server continues. A connection handed back
// to the pool then would sit inside that transaction: its locks held, and the next statement it runs
// (a checkpoint write) never committed. After the thaw, the next checkpoint must be durable and no
// connection of the replica left inside a transaction.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPgPool, openPgStore, type PgStore } from '../../../src/store/pg-store.js';
import type { NewSegment } from '../../../src/wire/segment-framing.js';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';

let server: PgServer;
let n = 0;
const open: Array<{ close(): Promise<unknown> }> = [];
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  server?.thaw();
  for (const s of open) await s.close().catch(() => undefined);
  server?.close();
});

const seg = (sessionId: string, first: number, last: number): NewSegment => {
  const payload = Buffer.from([0x12, 1, 0x41]);
  return { sessionId, payload, records: 1, firstSeq: first, lastSeq: last, oldestTsMicros: first };
};

/** Replica `a` with a short query timeout, owning session `s` (checkpoint 5); an admin pool beside it. */
async function owning(): Promise<{ store: PgStore; admin: pg.Pool }> {
  const url = await server.createDatabase(`frozen_${++n}`);
  const store = await openPgStore({ url, replicaId: 'a', queryTimeoutMs: 300 });
  const admin = createPgPool(url, { queryTimeoutMs: 5000, replicaId: 'admin' });
  open.push(store, { close: () => admin.end() });
  await admin.query("INSERT INTO bridge_replicas (id, lease_until) VALUES ('a', now() + interval '1 hour')");
  await store.putSession({ id: 's', attributes: {} }, 'config');
  await store.claim(['s']);
  await store.commit([seg('s', 1, 5)], [{ sessionId: 's', checkpoint: 5, epoch: 0 }]);
  return { store, admin };
}

const frozenTransactions: Array<[string, (store: PgStore) => Promise<unknown>]> = [
  ['a spool commit', (store) => store.commit([seg('s', 6, 9)], [{ sessionId: 's', checkpoint: 9, epoch: 0 }])],
  ['a claim', (store) => store.claim(['s'])],
];

it.each(frozenTransactions)(
  '%s under way while PostgreSQL is frozen: after the thaw a checkpoint write is durable, no connection left in a transaction',
  async (_, transaction) => {
    const { store, admin } = await owning();
    server.freeze();
    await expect(transaction(store)).rejects.toThrow();
    server.thaw();
    // Each checkpoint-only write is one statement on the pool; two, so a pooled connection that
    // was left inside the transaction is certainly among those that ran one.
    await store.commit([], [{ sessionId: 's', checkpoint: 12, epoch: 0 }]);
    await store.commit([], [{ sessionId: 's', checkpoint: 13, epoch: 0 }]);
    const row = await admin.query<{ checkpoint: string }>("SELECT checkpoint FROM bridge_sessions WHERE id = 's'");
    expect(row.rows[0]!.checkpoint).toBe('13');
    const stuck = await admin.query(
      "SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'browser-telemetry-bridge a%' AND state LIKE 'idle in transaction%'",
    );
    expect(stuck.rows).toEqual([]);
  },
);
