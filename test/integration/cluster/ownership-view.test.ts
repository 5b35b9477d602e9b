// What the placement loop and GET /v1/sessions read of the shared store (cluster/ownership-view.ts),
// against a real PostgreSQL: the rows each read returns, and that each reaches them through an index,
// never by scanning the sessions table. Finished rows stay for the retention (7 days) and are most of
// the table under churn: a scan made every ownership pass of every replica cost the database 0.5 s
// with 200,000 of them. Plans are asserted, not timed: with enough finished rows and fresh statistics
// the planner's choice is what a large store gets.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ACTIVE_OWNERS_SQL,
  OWNERSHIP_VIEW_SQL,
  readOwners,
  readOwnershipView,
} from '../../../src/cluster/ownership-view.js';
import { openPgStore, type PgStore } from '../../../src/store/pg-store.js';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';

let server: PgServer;
let store: PgStore;
let db: pg.Client;
beforeAll(async () => {
  server = await startPostgres();
  const url = await server.createDatabase('ownership_view');
  store = await openPgStore({ url, replicaId: 'me' });
  db = new pg.Client({ connectionString: url });
  await db.connect();
  const row = (id: string, lifecycle: string, owner: string | null): Promise<unknown> =>
    db.query(
      `INSERT INTO bridge_sessions (id, spec, source, lifecycle, owner, ended_at)
       VALUES ($1, json_build_object('id', $1::text, 'attributes', '{}'::json)::text, 'api', $2, $3, CASE WHEN $2 = 'active' THEN NULL ELSE now() END)`,
      [id, lifecycle, owner],
    );
  await row('active-mine', 'active', 'me');
  await row('active-other', 'active', 'other');
  await row('active-free', 'active', null);
  await row('ended-mine', 'ended', 'me');
  await row('removed-spooled-free', 'removed', null);
  await row('ended-spooled-other', 'ended', 'other');
  await row('ended-other', 'ended', 'other');
  await row('ended-free', 'ended', null);
  // A week of churn: finished, released rows.
  await db.query(
    `INSERT INTO bridge_sessions (id, spec, source, lifecycle, ended_at)
     SELECT 'churn-' || g, '{"id":"x","attributes":{}}', 'discovery', 'ended', now() FROM generate_series(1, 20000) g`,
  );
  const segment = (id: number, session: string): Promise<unknown> =>
    db.query(
      `INSERT INTO bridge_segments (id, gen, session_id, first_seq, last_seq, records, bytes, oldest_ts, payload)
       VALUES ($1, 0, $2, 1, 1, 1, 1, 1, '\\x00')`,
      [id, session],
    );
  await segment(1, 'removed-spooled-free');
  await segment(2, 'ended-spooled-other');
  await segment(3, 'active-mine');
  await segment(4, 'active-mine');
  await db.query('ANALYZE bridge_sessions');
  await db.query('ANALYZE bridge_segments');
}, 60_000);
afterAll(async () => {
  await db?.end();
  await store?.close();
  server?.close();
});

it("the placement view holds the active sessions, this replica's, and the finished ones with a spool", async () => {
  const view = await readOwnershipView(store.db, 'me');
  expect(Object.fromEntries(view.map((r) => [r.id, [r.lifecycle, r.owner, r.hasSpool]]))).toEqual({
    'active-mine': ['active', 'me', false],
    'active-other': ['active', 'other', false],
    'active-free': ['active', null, false],
    'ended-mine': ['ended', 'me', false],
    'removed-spooled-free': ['removed', null, true],
    'ended-spooled-other': ['ended', 'other', true],
  });
});

it('owners: the active sessions, or the sessions named whatever their lifecycle', async () => {
  expect([...(await readOwners(store.db)).keys()].sort()).toEqual(['active-free', 'active-mine', 'active-other']);
  expect(Object.fromEntries(await readOwners(store.db, ['ended-other', 'active-mine', 'unknown']))).toEqual({
    'ended-other': { owner: 'other', lifecycle: 'ended' },
    'active-mine': { owner: 'me', lifecycle: 'active' },
  });
  expect((await store.activeSessions()).map((r) => r.spec.id).sort()).toEqual([
    'active-free',
    'active-mine',
    'active-other',
  ]);
});

it.each([
  ['the placement view', OWNERSHIP_VIEW_SQL, ['me']],
  ['the active owners', ACTIVE_OWNERS_SQL, []],
])('%s reads the sessions table through its indexes, never a scan of it', async (_name, sql, params) => {
  const plan = (await db.query(`EXPLAIN (FORMAT JSON) ${sql}`, params)).rows[0]['QUERY PLAN'] as unknown;
  const scans: string[] = [];
  const walk = (node: Record<string, unknown>): void => {
    if (node['Relation Name'] === 'bridge_sessions') scans.push(String(node['Node Type']));
    for (const child of (node.Plans as Array<Record<string, unknown>> | undefined) ?? []) walk(child);
  };
  walk((plan as Array<{ Plan: Record<string, unknown> }>)[0]!.Plan);
  expect(scans.length).toBeGreaterThan(0);
  expect(scans, JSON.stringify(plan, null, 1)).not.toContain('Seq Scan');
});
