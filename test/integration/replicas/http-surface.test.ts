// The HTTP surface of a replica on the shared store: /readyz unready while the database is
// unreachable (and ready again by itself), the ownership metrics, and the owner in GET /v1/sessions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../../../src/server/http-server.js';
import { silentLogger } from '../../../src/util/logger.js';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

let server: PgServer;
let proxy: TcpProxy;
let h: Harness;
beforeAll(async () => {
  server = await startPostgres();
  proxy = await startTcpProxy(server.port);
  h = await harness();
});
afterAll(async () => {
  await h?.close();
  await proxy?.close();
  server?.close();
});

const metric = (text: string, series: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(' ')[1]) : NaN;
};

describe("a replica's HTTP surface on the shared store", () => {
  it('is unready while the database is unreachable, ready again by itself; counts ownership; names owners', async () => {
    const url = (await server.createDatabase('surface')).replace(`:${server.port}/`, `:${proxy.port}/`);
    h.sim.createSession('hs1').produce(20);
    const bridge = await h.startBridge(FAST, {
      BRIDGE_SESSIONS: 'hs1',
      BRIDGE_STORE_URL: url,
      BRIDGE_REPLICA_ID: 'solo',
      BRIDGE_STORE_LEASE: '3s',
    });
    const http = await startHttpServer(bridge, { host: '127.0.0.1', port: 0 }, silentLogger());
    try {
      await until(() => h.receiver.records.length > 0, 'records from the replica', 15_000);
      expect((await fetch(`${http.url}/readyz`)).status).toBe(200);
      const m = await (await fetch(`${http.url}/metrics`)).text();
      expect(metric(m, 'bridge_owned_sessions')).toBe(1);
      expect(metric(m, 'bridge_lease_renewals_total{outcome="success"}')).toBeGreaterThan(0);
      expect(metric(m, 'bridge_session_handovers_total{kind="claimed"}')).toBe(1);
      expect(metric(m, 'bridge_fenced_writes_total')).toBe(0);
      const list = (await (await fetch(`${http.url}/v1/sessions`)).json()) as {
        replica: string;
        sessions: Array<{ id: string; owner: string }>;
      };
      expect(list.replica).toBe('solo');
      expect(list.sessions).toMatchObject([{ id: 'hs1', owner: 'solo', state: 'streaming' }]);
      expect(h.receiver.records[0]!.resource['service.instance.id']).toBe('solo');

      proxy.cut();
      let body: { status: string; problems: string[] } | undefined;
      // Readiness reads what commits and the lease found (it writes nothing of its own): the cut
      // shows once a commit or a renewal ran into it.
      for (let i = 0; i < 60 && body?.status !== 'not_ready'; i++) {
        const res = await fetch(`${http.url}/readyz`);
        body = (await res.json()) as typeof body;
        if (res.status === 503) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      // A delete of delivered records that was under way when the link went may be named as well.
      expect(body?.status).toBe('not_ready');
      expect(body?.problems.join('\n')).toMatch(/^(store not writable|lease not held|spool cannot delete)/m);
      proxy.restore();
      let ready = 0;
      for (let i = 0; i < 50 && ready !== 200; i++) {
        ready = (await fetch(`${http.url}/readyz`)).status;
        if (ready !== 200) await new Promise((r) => setTimeout(r, 200));
      }
      expect(ready).toBe(200);
      const after = await (await fetch(`${http.url}/metrics`)).text();
      expect(metric(after, 'bridge_lease_renewals_total{outcome="failure"}')).toBeGreaterThan(0);
    } finally {
      await http.close();
    }
  });

  it('is unready once checkpoint writes fail, before the lease is lost: delivery from memory waits for them', async () => {
    // A lease long enough that the checkpoints' stall makes the replica unready first: a cut link
    // fails a query after a third of the lease (5 s), a checkpoint waiting 2 s more pauses delivery.
    const url = (await server.createDatabase('stall')).replace(`:${server.port}/`, `:${proxy.port}/`);
    h.sim.createSession('hs2').produce(20);
    const bridge = await h.startBridge(FAST, {
      BRIDGE_SESSIONS: 'hs2',
      BRIDGE_STORE_URL: url,
      BRIDGE_REPLICA_ID: 'stalled',
      BRIDGE_STORE_LEASE: '15s',
    });
    const http = await startHttpServer(bridge, { host: '127.0.0.1', port: 0 }, silentLogger());
    try {
      await until(
        () => h.receiver.records.filter((r) => r.attributes['browser.session.id'] === 'hs2').length > 40,
        'records of hs2',
        15_000,
      );
      proxy.cut();
      let body: { status: string; problems: string[] } | undefined;
      for (let i = 0; i < 100 && body?.status !== 'not_ready'; i++) {
        body = (await (await fetch(`${http.url}/readyz`)).json()) as typeof body;
        if (body?.status !== 'not_ready') await new Promise((r) => setTimeout(r, 100));
      }
      proxy.restore();
      expect(body?.problems).toContainEqual(expect.stringMatching(/^store not writable: .*delivery from memory waits/));
      expect(body?.problems.join('\n')).not.toMatch(/lease not held/);
      let ready = 0;
      for (let i = 0; i < 100 && ready !== 200; i++) {
        ready = (await fetch(`${http.url}/readyz`)).status;
        if (ready !== 200) await new Promise((r) => setTimeout(r, 200));
      }
      expect(ready).toBe(200);
    } finally {
      proxy.restore();
      await http.close();
    }
  }, 60_000);
});
