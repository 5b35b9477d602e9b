// A refused write counts a session lost once: when the lease ran out, the sessions were lost (and
// counted) then, and a write already under way for them is refused afterwards. Counting that refusal
// as a second loss doubled bridge_session_handovers_total{kind="lost"} after every pause past the
// lease. Real PostgreSQL, the real Ownership and Spool.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Ownership } from '../../../src/cluster/ownership.js';
import { openPgStore, type PgStore } from '../../../src/store/pg-store.js';
import { Spool } from '../../../src/store/spool.js';
import { silentLogger } from '../../../src/util/logger.js';
import type { Fact } from '../../../src/vocabulary/facts.js';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';
import { INERT_HOST } from './inert-host.js';

let server: PgServer;
let store: PgStore | undefined;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  await store?.close().catch(() => undefined);
  server?.close();
});

it('a refused write for a session already given up is not a second loss', async () => {
  const url = await server.createDatabase('fenced_count');
  store = await openPgStore({ url, replicaId: 'a' });
  await store.putSession({ id: 'f1', attributes: {} }, 'config');
  await store.putSession({ id: 'f2', attributes: {} }, 'config');
  const spool = await Spool.open({
    store,
    mode: 'overflow',
    maxBytes: 1 << 30,
    memoryMaxBytes: 1 << 24,
    commitMaxRecords: 1000,
    commitIntervalMs: 5,
  });
  const facts: Fact[] = [];
  const ownership = new Ownership({
    store,
    spool,
    leaseMs: 60_000,
    emit: (f) => facts.push(f),
    log: silentLogger(),
    host: INERT_HOST,
  });
  await store.claim(['f1', 'f2']);
  expect([...store.ownedSessions().keys()].sort()).toEqual(['f1', 'f2']);
  const lost = (): string[] => facts.flatMap((f) => (f.f === 'sessions_lost' ? f.sessions : []));

  ownership.fenced(['f1']);
  for (let i = 0; i < 100 && lost().length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  expect(lost()).toEqual(['f1']);
  // f1 again (a second write of it was in flight) and f2, still held: only f2 is a new loss.
  ownership.fenced(['f1', 'f2']);
  for (let i = 0; i < 100 && lost().length === 1; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 50));
  expect(lost()).toEqual(['f1', 'f2']);
  await spool.close();
  await ownership.stop();
});
