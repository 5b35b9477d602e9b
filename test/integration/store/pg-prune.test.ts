// The shared PostgreSQL store prunes like the embedded one (prune-finished.test.ts): rows of
// sessions finished longer ago than the retention go when a replica opens the store; active,
// recently finished and re-followed ones stay. A real server, started for this file.
import { afterAll, expect, it } from 'vitest';
import { openPgStore } from '../../../src/store/pg-store.js';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';

let server: PgServer | undefined;
afterAll(() => server?.close());

it('deletes long-finished rows at open', async () => {
  server = await startPostgres();
  const url = await server.createDatabase('prune');
  const a = await openPgStore({ url, replicaId: 'r1' });
  for (const id of ['active', 'ended-old', 'removed-old', 'ended-recent', 'revived'])
    await a.putSession({ id, attributes: {} }, 'api');
  await a.setLifecycle('ended-old', 'ended');
  await a.setLifecycle('removed-old', 'removed');
  await a.setLifecycle('revived', 'removed');
  await new Promise((r) => setTimeout(r, 400));
  await a.setLifecycle('ended-recent', 'ended');
  await a.putSession({ id: 'revived', attributes: {} }, 'api');
  await a.close();

  const b = await openPgStore({ url, replicaId: 'r2', pruneFinishedAfterMs: 200 });
  try {
    expect((await b.sessions()).map((s) => s.spec.id).sort()).toEqual(['active', 'ended-recent', 'revived']);
  } finally {
    await b.close();
  }
}, 60_000);
