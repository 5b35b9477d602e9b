// The overflow mode's healthy path writes checkpoints only, once per checkpoint interval, for every
// session whose acknowledgements moved: against a real PostgreSQL, such a write is one statement
// whatever the number of sessions, and what it costs the database's log (WAL) is measured here; a
// span state goes with a checkpoint only when it changed.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPgPool, openPgStore, type PgStore } from '../../../src/store/pg-store.js';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';

let server: PgServer;
const open: Array<{ close(): Promise<unknown> }> = [];
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  for (const s of open) await s.close().catch(() => undefined);
  server?.close();
});

const SESSIONS = 50;
const WRITES = 20;

/** A fresh database where replica `replica` holds a live lease and owns `ids`; an admin pool beside it. */
async function claimedBy(replica: string, database: string, ids: string[]) {
  const url = await server.createDatabase(database);
  const store: PgStore = await openPgStore({ url, replicaId: replica });
  const admin = createPgPool(url, { queryTimeoutMs: 5000, replicaId: 'admin' });
  open.push(store, { close: () => admin.end() });
  await admin.query("INSERT INTO bridge_replicas (id, lease_until) VALUES ($1, now() + interval '1 hour')", [replica]);
  for (const id of ids) await store.putSession({ id, attributes: {} }, 'config');
  await store.claim(ids);
  return { store, admin, url };
}

describe('PostgreSQL store: checkpoint writes', () => {
  it('writes the checkpoints of every moved session in one statement, and fences them as a transaction would', async () => {
    const ids = Array.from({ length: SESSIONS }, (_, i) => `s${i}`);
    const { store, admin } = await claimedBy('a', 'checkpoints', ids);
    const moveAll = (to: number) =>
      store.commit(
        [],
        ids.map((sessionId) => ({ sessionId, checkpoint: to, epoch: 0 })),
      );
    await moveAll(1); // the first write after the claim may carry full pages

    const lsn = async (): Promise<string> =>
      (await admin.query<{ l: string }>('SELECT pg_current_wal_lsn()::text AS l')).rows[0]!.l;
    const before = await lsn();
    const queries = vi.spyOn(pg.Client.prototype, 'query');
    for (let w = 2; w < WRITES + 2; w++) await moveAll(w * 10);
    const statements = queries.mock.calls.length;
    queries.mockRestore();
    const wal = Number(
      (
        await admin.query<{ d: string }>('SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::text AS d', [
          await lsn(),
          before,
        ])
      ).rows[0]!.d,
    );
    console.log(
      `checkpoint writes of ${SESSIONS} sessions: ${statements / WRITES} statements and ${Math.round(wal / WRITES)} WAL bytes each (${Math.round(wal / WRITES / SESSIONS)} per session)`,
    );
    expect(statements / WRITES).toBe(1);
    const rows = await admin.query<{ checkpoint: string }>('SELECT DISTINCT checkpoint FROM bridge_sessions');
    expect(rows.rows.map((r) => Number(r.checkpoint))).toEqual([(WRITES + 1) * 10]);

    // Another replica took one session over: nothing of the write goes in, and the error names it.
    await admin.query("UPDATE bridge_sessions SET owner = 'b', lease_epoch = lease_epoch + 1 WHERE id = 's7'");
    await expect(moveAll(1000)).rejects.toMatchObject({ name: 'FencedError', sessionIds: ['s7'] });
    const after = await admin.query<{ checkpoint: string }>('SELECT DISTINCT checkpoint FROM bridge_sessions');
    expect(after.rows.map((r) => Number(r.checkpoint))).toEqual([(WRITES + 1) * 10]);
  });

  it('rewrites a span state only when it changed: a checkpoint that moves with the same state leaves its row alone', async () => {
    const { store, admin } = await claimedBy('a', 'span_states', ['s']);
    const move = (to: number, state: string) =>
      store.commit([], [{ sessionId: 's', checkpoint: to, epoch: 0, spans: () => state }]);
    // xmin is the transaction that wrote the row's current version: it changes only on a rewrite.
    const version = async (): Promise<{ xmin: string; state: string }> =>
      (
        await admin.query<{ xmin: string; state: string }>(
          "SELECT xmin::text, state FROM bridge_span_states WHERE session_id = 's'",
        )
      ).rows[0]!;

    await move(1, '{"open":1}');
    const first = await version();
    await move(2, '{"open":1}');
    expect(await version()).toEqual(first);
    const checkpoint = await admin.query<{ checkpoint: string }>(
      "SELECT checkpoint FROM bridge_sessions WHERE id = 's'",
    );
    expect(Number(checkpoint.rows[0]!.checkpoint)).toBe(2);

    await move(3, '{"open":2}');
    const changed = await version();
    expect(changed.state).toBe('{"open":2}');
    expect(changed.xmin).not.toBe(first.xmin);

    // A checkpoint without a state (traces turned off) removes it.
    await store.commit([], [{ sessionId: 's', checkpoint: 4, epoch: 0 }]);
    const left = await admin.query("SELECT 1 FROM bridge_span_states WHERE session_id = 's'");
    expect(left.rowCount).toBe(0);
  });

  it('in a fleet with a replica of the previous version, the newest span state wins, whoever wrote it', async () => {
    const { store, admin, url } = await claimedBy('m', 'mixed_fleet', ['x', 'y']);
    // 'x': a replica of the previous version wrote its state in the sessions row (after this
    // bridge's migration ran), then this bridge took the session and moved on with a newer one.
    await admin.query("UPDATE bridge_sessions SET span_state = 'x-previous', checkpoint = 3 WHERE id = 'x'");
    await store.commit([], [{ sessionId: 'x', checkpoint: 5, epoch: 0, spans: () => 'x-newer' }]);
    // 'y': this bridge wrote first, then the previous version's replica moved it on.
    await store.commit([], [{ sessionId: 'y', checkpoint: 5, epoch: 0, spans: () => 'y-older' }]);
    await admin.query("UPDATE bridge_sessions SET span_state = 'y-newer', checkpoint = 8 WHERE id = 'y'");
    const spans = async (s: PgStore) => Object.fromEntries((await s.sessions()).map((r) => [r.spec.id, r.spans]));
    // Read by a replica already running, and by one that starts (its migration moves the column).
    expect(await spans(store)).toEqual({ x: 'x-newer', y: 'y-newer' });
    const next = await openPgStore({ url, replicaId: 'n' });
    open.push(next);
    expect(await spans(next)).toEqual({ x: 'x-newer', y: 'y-newer' });
  });
});
