// The shared PostgreSQL store prunes like the embedded one (prune-finished.test.ts): rows of
// sessions finished longer ago than the retention go when a replica opens the store; active,
// recently finished and re-followed ones stay. A real server, started for this file. The store
// stamps ended_at on the database's clock, so the test moves the stamps back instead of waiting:
// ages are set, not slept for.
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { openPgStore } from '../../../src/store/pg-store.js';
import { PRUNE_FINISHED_AFTER_MS } from '../../../src/store/store.js';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';

let server: PgServer | undefined;
afterAll(() => server?.close());

const HOUR_MS = 3_600_000;

it('deletes long-finished rows at open', async () => {
  server = await startPostgres();
  const url = await server.createDatabase('prune');
  const a = await openPgStore({ url, replicaId: 'r1' });
  for (const id of ['active', 'ended-old', 'removed-old', 'ended-recent', 'revived'])
    await a.putSession({ id, attributes: {} }, 'api');
  await a.setLifecycle('ended-old', 'ended');
  await a.setLifecycle('removed-old', 'removed');
  await a.setLifecycle('revived', 'removed');
  await a.setLifecycle('ended-recent', 'ended');
  await a.putSession({ id: 'revived', attributes: {} }, 'api'); // followed again: no longer finished
  await a.close();

  // Finished an hour beyond the retention, or an hour within it (revived's stamp too: it is active
  // again, which alone must keep it).
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const age = async (ids: string[], ms: number): Promise<void> => {
    await db.query(
      'UPDATE bridge_sessions SET ended_at = now() - make_interval(secs => $2::double precision / 1000) WHERE id = ANY($1)',
      [ids, ms],
    );
  };
  await age(['ended-old', 'removed-old', 'revived'], PRUNE_FINISHED_AFTER_MS + HOUR_MS);
  await age(['ended-recent'], PRUNE_FINISHED_AFTER_MS - HOUR_MS);
  // Span state: a pruned session's goes with it; one kept in the sessions row (the previous layout)
  // moves to its own table when the store opens.
  await db.query("INSERT INTO bridge_span_states (session_id, state) VALUES ('ended-old', 'gone'), ('active', 'new')");
  await db.query("UPDATE bridge_sessions SET span_state = 'old' WHERE id = 'ended-recent'");
  await db.end();

  const b = await openPgStore({ url, replicaId: 'r2' });
  try {
    const rows = await b.sessions();
    expect(rows.map((s) => s.spec.id).sort()).toEqual(['active', 'ended-recent', 'revived']);
    expect(Object.fromEntries(rows.map((r) => [r.spec.id, r.spans]))).toEqual({
      active: 'new',
      'ended-recent': 'old',
      revived: undefined,
    });
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    const left = await check.query('SELECT session_id FROM bridge_span_states ORDER BY session_id');
    const column = await check.query('SELECT count(*)::int AS n FROM bridge_sessions WHERE span_state IS NOT NULL');
    await check.end();
    expect(left.rows.map((r: { session_id: string }) => r.session_id)).toEqual(['active', 'ended-recent']);
    expect(column.rows[0]).toEqual({ n: 0 });
  } finally {
    await b.close();
  }
}, 60_000);

it('an open store prunes when asked, without a restart', async () => {
  server ??= await startPostgres();
  const url = await server.createDatabase('prune_open');
  const a = await openPgStore({ url, replicaId: 'r1' });
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    for (const id of ['active', 'ended-old', 'ended-recent']) await a.putSession({ id, attributes: {} }, 'api');
    await a.setLifecycle('ended-old', 'ended');
    await a.setLifecycle('ended-recent', 'ended');
    expect(await a.pruneFinished()).toBe(0);
    await db.query(
      "UPDATE bridge_sessions SET ended_at = now() - make_interval(secs => $1::double precision / 1000) WHERE id = 'ended-old'",
      [PRUNE_FINISHED_AFTER_MS + HOUR_MS],
    );
    expect(await a.pruneFinished()).toBe(1);
    expect((await a.sessions()).map((s) => s.spec.id).sort()).toEqual(['active', 'ended-recent']);
  } finally {
    await db.end();
    await a.close();
  }
}, 60_000);
