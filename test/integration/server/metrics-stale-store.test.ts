// A scrape (or GET /v1/sessions) while the shared store does not answer (PostgreSQL frozen with SIGSTOP: connections stay
// open, every query hangs until its timeout) is answered with the last spool figures the store gave,
// marked stale, instead of hanging until the query gives up. The lease is long here, so the store's
// query timeout (a third of it) is 20 s: a scrape that waited for the store could not answer within
// the 8 s the test's client gives it, while the bound it is answered within is 1 s.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';
import { eventually, startInProcess, startWorld, type RunningBridge, type World } from './bridge-harness.js';
import { parsePrometheusText, value } from './prom-text.js';

let server: PgServer;
let world: World;
let running: RunningBridge | undefined;

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => {
  server?.close();
});
afterEach(async () => {
  server.thaw();
  await running?.stop(Date.now());
  running = undefined;
  await world?.close();
});

/** One scrape, given 8 s: far more than the 1 s bound, far less than the store's 20 s timeout. */
async function get(url: string): Promise<Response> {
  return fetch(url, { signal: AbortSignal.timeout(8000) });
}

it('answers /metrics and /readyz with the last figures, marked stale, while PostgreSQL is frozen', async () => {
  world = await startWorld();
  world.sim.createSession('stale-1').produce(20);
  const url = await server.createDatabase('stale_figures');
  running = await startInProcess(
    world,
    { sessions: ['stale-1'] },
    { BRIDGE_STORE_URL: url, BRIDGE_REPLICA_ID: 'r1', BRIDGE_STORE_LEASE: '60s' },
  );
  const base = running.url;
  await eventually(() => (world.receiver.records.length >= 20 ? true : undefined), 'the records delivered');
  const first = parsePrometheusText(await (await get(`${base}/metrics`)).text());
  expect(value(first, 'bridge_spool_figures_stale')).toBe(0);

  const before = (await (await get(`${base}/v1/sessions`)).json()) as { othersStale?: unknown };
  expect(before.othersStale).toBeUndefined();

  server.freeze();
  // The figures read before the freeze are served for their period (5 s); the scrapes after it
  // must neither hang nor fail, and say the figures are stale.
  await eventually(
    async () => {
      const res = await get(`${base}/metrics`);
      expect(res.status).toBe(200);
      const text = await res.text();
      return value(parsePrometheusText(text), 'bridge_spool_figures_stale') === 1 ? true : undefined;
    },
    'a scrape that says the figures are stale',
    30_000,
  );
  const ready = await get(`${base}/readyz`);
  const body = (await ready.json()) as { spool: { stale?: boolean; storeAgeMs?: number; records: number } };
  expect(body.spool).toMatchObject({ stale: true, records: expect.any(Number) });
  expect(body.spool.storeAgeMs).toBeGreaterThanOrEqual(5000);
  // GET /v1/sessions (what `top` reads) asks the store for every replica's sessions and owners: it
  // answers too, with the sessions followed here and the others marked stale.
  const listed = await get(`${base}/v1/sessions`);
  expect(listed.status).toBe(200);
  const list = (await listed.json()) as {
    sessions: { id: string; owner?: string }[];
    othersStale?: { ageMs: number | null };
    spool: { stale?: boolean };
  };
  expect(list.sessions.map((s) => [s.id, s.owner])).toEqual([['stale-1', 'r1']]);
  expect(list.othersStale?.ageMs).toBeGreaterThanOrEqual(1000);
  expect(list.spool.stale).toBe(true);

  server.thaw();
  await eventually(async () => {
    const text = await (await get(`${base}/metrics`)).text();
    return value(parsePrometheusText(text), 'bridge_spool_figures_stale') === 0 ? true : undefined;
  }, 'the figures fresh again once the store answers');
  await eventually(async () => {
    const fresh = (await (await get(`${base}/v1/sessions`)).json()) as { othersStale?: unknown };
    return fresh.othersStale === undefined ? true : undefined;
  }, 'the owners fresh again once the store answers');
});
