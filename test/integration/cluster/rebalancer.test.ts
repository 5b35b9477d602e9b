// The ownership pass against a real PostgreSQL: two replicas, hooks that only record and release,
// so each decision (claim, hand over, take back a row naming this replica) is visible.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lease } from '../../../src/cluster/lease.js';
import { preferredOwner } from '../../../src/cluster/placement.js';
import { Rebalancer } from '../../../src/cluster/rebalancer.js';
import { openPgStore, type PgStore } from '../../../src/store/pg-store.js';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';

let server: PgServer;
const stores: PgStore[] = [];
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
  server?.close();
});

function replica(store: PgStore): { pass: () => Promise<void>; log: string[]; lease: Lease } {
  const log: string[] = [];
  const lease = new Lease({ db: store.db, replicaId: store.replicaId, leaseMs: 60_000, onExpired: () => undefined });
  const r = new Rebalancer({
    store,
    lease,
    intervalMs: 1000,
    orphanGraceMs: 60_000,
    hooks: {
      acquired: async (c) => void log.push(`claimed ${c.sessions.map((s) => s.spec.id).join(',')}`),
      lost: async (ids) => void log.push(`lost ${ids.join(',')}`),
      finished: async (ids) => void log.push(`finished ${ids.join(',')}`),
      handOver: async (ids) => {
        log.push(`handed over ${ids.join(',')}`);
        for (const id of ids) await store.release(id);
      },
      kept: async () => undefined,
      respecified: async () => undefined,
    },
  });
  return { pass: () => r.tick(), log, lease };
}

describe('ownership pass', () => {
  it('takes back a row naming this replica that it does not hold, then hands it to the replica it prefers', async () => {
    const url = await server.createDatabase('rebalance');
    const a = await openPgStore({ url, replicaId: 'a' });
    const b = await openPgStore({ url, replicaId: 'b' });
    stores.push(a, b);
    // A session that prefers b when both are live.
    const id = Array.from({ length: 50 }, (_, i) => `s${i}`).find((s) => preferredOwner(s, ['a', 'b']) === 'b')!;
    await a.putSession({ id, attributes: {} }, 'config');
    // The database says a owns it (a release whose answer a never saw, or a's previous incarnation).
    await a.db.query("UPDATE bridge_sessions SET owner = 'a', lease_epoch = 5 WHERE id = $1", [id]);
    const ra = replica(a);
    const rb = replica(b);
    // Both live before either decides.
    await ra.lease.renew();
    await rb.lease.renew();
    await ra.pass();
    await rb.pass();
    // b does not take a session whose owner is live; a takes its own row back (new epoch)...
    expect(rb.log).toEqual([]);
    expect(ra.log).toEqual([`claimed ${id}`]);
    expect((await a.db.query('SELECT owner, lease_epoch FROM bridge_sessions WHERE id = $1', [id])).rows[0]).toEqual({
      owner: 'a',
      lease_epoch: '6',
    });
    // ...and hands it over to b, which claims it.
    await ra.pass();
    expect(ra.log.at(-1)).toBe(`handed over ${id}`);
    await rb.pass();
    expect(rb.log).toEqual([`claimed ${id}`]);
    expect((await b.db.query('SELECT owner FROM bridge_sessions WHERE id = $1', [id])).rows[0]).toEqual({ owner: 'b' });
  });
});
