// A stored span state that does not inflate (a corrupt page, a row written by hand) must not stop
// the store from reading its sessions: the bridge would fail at every start (a crash loop) over
// spans, which are secondary to the records. The session is read without a state (its spans start
// afresh), the operator is told which session, and its next state is written over the bad one.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';
import { ALWAYS_PAGE_SIZE, OVERFLOW_PAGE_SIZE } from '../../../src/store/sqlite-page-size.js';
import { packSpans } from '../../../src/store/sqlite-span-states.js';
import type { Store } from '../../../src/store/store.js';
import { capturePhase } from '../../../src/traces/capture-phase.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-span-states-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function withCorruptState(): Promise<void> {
  const s = await openSqliteStore(dir);
  for (const id of ['bad', 'good']) {
    await s.putSession({ id, attributes: {} }, 'config');
    await s.commit([], [{ sessionId: id, checkpoint: 3, epoch: 0, spans: () => `{"v":1,"id":"${id}"}` }]);
  }
  await s.close();
  const db = new Database(join(dir, 'bridge.db'));
  db.prepare("UPDATE span_states SET state = ? WHERE session_id = 'bad'").run(Buffer.from([0xff, 0x00, 0x13, 0x37]));
  db.close();
}

it('reads a session whose stored state does not inflate without it, says which, and keeps the others', async () => {
  await withCorruptState();
  const unreadable: Array<{ session: string; error: string }> = [];
  const s = await openSqliteStore(dir, {
    onSpanStateUnreadable: (session, error) => unreadable.push({ session, error }),
  });
  const rows = await s.sessions();
  expect(rows.map((r) => [r.spec.id, r.checkpoint, r.spans])).toEqual([
    ['bad', 3, undefined],
    ['good', 3, '{"v":1,"id":"good"}'],
  ]);
  expect(unreadable).toEqual([{ session: 'bad', error: expect.any(String) }]);
  // The next state the session writes replaces the bad one.
  await s.commit([], [{ sessionId: 'bad', checkpoint: 4, epoch: 0, spans: () => '{"v":1,"again":true}' }]);
  expect((await s.sessions())[0]!.spans).toBe('{"v":1,"again":true}');
  await s.close();
});

it('a corrupt state does not fail putSession either (the control API re-adding the session)', async () => {
  await withCorruptState();
  const s = await openSqliteStore(dir);
  const row = await s.putSession({ id: 'bad', attributes: {} }, 'api');
  expect(row).toMatchObject({ checkpoint: 3 });
  expect(row.spans).toBeUndefined();
  await s.close();
});

// Which sessions have a stored state is known in memory (a checkpoint without one deletes nothing
// when nothing is stored: with traces off, a DELETE per session per write before). That set must
// never miss a stored state, or a stale one would outlive the checkpoint it belonged to.
it('a state stored by an earlier run is dropped by the next checkpoint without one', async () => {
  const first = await openSqliteStore(dir);
  await first.putSession({ id: 'a', attributes: {} }, 'config');
  await first.commit([], [{ sessionId: 'a', checkpoint: 3, epoch: 0, spans: () => '{"v":1}' }]);
  await first.close();
  const s = await openSqliteStore(dir);
  expect((await s.sessions())[0]!.spans).toBe('{"v":1}');
  await s.commit([], [{ sessionId: 'a', checkpoint: 4, epoch: 0 }]);
  expect((await s.sessions())[0]!.spans).toBeUndefined();
  await s.close();
});

it('a drop whose transaction rolled back leaves the state known, and the next checkpoint drops it', async () => {
  const s = await openSqliteStore(dir);
  for (const id of ['a', 'b']) await s.putSession({ id, attributes: {} }, 'config');
  await s.commit([], [{ sessionId: 'a', checkpoint: 3, epoch: 0, spans: () => '{"v":1}' }]);
  // A write after the drop fails (as a full disk would): the whole transaction rolls back.
  const other = new Database(join(dir, 'bridge.db'));
  other.exec(
    "CREATE TRIGGER fail_b BEFORE UPDATE ON sessions WHEN NEW.id = 'b' BEGIN SELECT RAISE(ABORT, 'disk full'); END",
  );
  await expect(
    s.commit(
      [],
      [
        { sessionId: 'a', checkpoint: 4, epoch: 0 },
        { sessionId: 'b', checkpoint: 1, epoch: 0 },
      ],
    ),
  ).rejects.toThrow('disk full');
  expect((await s.sessions())[0]!.spans).toBe('{"v":1}');
  other.exec('DROP TRIGGER fail_b');
  other.close();
  await s.commit([], [{ sessionId: 'a', checkpoint: 4, epoch: 0 }]);
  expect((await s.sessions())[0]).toMatchObject({ checkpoint: 4 });
  expect((await s.sessions())[0]!.spans).toBeUndefined();
  await s.close();
});

// The rows are kept in capture-phase order (sqlite-span-states.ts): the sessions of one phase are
// captured together, and their states must sit on the same few pages, which SQLite rewrites whole.
const SESSIONS = Array.from({ length: 200 }, (_, i) => `s${i}`);
/** A state that does not compress, about 2 KiB as stored. */
const noise = (): string => JSON.stringify({ v: 1, n: randomBytes(1536).toString('base64') });
/** WAL frames (pages) the commit wrote, from an emptied WAL. */
async function framesOf(s: Store, write: () => Promise<unknown>): Promise<number> {
  const other = new Database(join(dir, 'bridge.db'));
  other.pragma('wal_checkpoint(TRUNCATE)');
  other.close();
  await write();
  const size = new Database(join(dir, 'bridge.db'), { readonly: true });
  const page = size.pragma('page_size', { simple: true }) as number;
  size.close();
  return (statSync(join(dir, 'bridge.db-wal')).size - 32) / (page + 24);
}

it.each([OVERFLOW_PAGE_SIZE, ALWAYS_PAGE_SIZE])(
  "a checkpoint write of one phase's states rewrites that phase's pages, not the whole table (%i-byte pages)",
  async (pageSize) => {
    const s = await openSqliteStore(dir, { pageSize });
    for (const id of SESSIONS) await s.putSession({ id, attributes: {} }, 'config');
    const all = () => SESSIONS.map((id) => ({ sessionId: id, checkpoint: 1, epoch: 0, spans: noise }));
    await s.commit([], all());
    const phase0 = SESSIONS.filter((id) => capturePhase(id) === 0);
    expect(phase0.length).toBeGreaterThan(20);
    const one = await framesOf(s, () =>
      s.commit(
        [],
        phase0.map((id) => ({ sessionId: id, checkpoint: 2, epoch: 0, spans: noise })),
      ),
    );
    const whole = await framesOf(s, () => s.commit([], all()));
    // The sessions table's rows are in id order, so a phase's checkpoints touch most of its pages.
    const db = new Database(join(dir, 'bridge.db'), { readonly: true });
    const sessionPages = (db.prepare("SELECT count(*) AS n FROM dbstat WHERE name = 'sessions'").get() as { n: number })
      .n;
    db.close();
    // A fifth of the rows: about a fifth of the state pages, the sessions table's and the tree's roots.
    expect(whole).toBeGreaterThan(5);
    expect(one).toBeLessThanOrEqual(Math.ceil((whole - sessionPages) / 5) + sessionPages + 2);
    await s.close();
  },
);

it('a table of the previous layout (ordered by session id) is rebuilt in phase order, and an older bridge still writes it', async () => {
  const first = await openSqliteStore(dir);
  for (const id of ['a', 'b', 'c']) await first.putSession({ id, attributes: {} }, 'config');
  await first.close();
  const db = new Database(join(dir, 'bridge.db'));
  db.exec('DROP TABLE span_states');
  db.exec('CREATE TABLE span_states (session_id TEXT PRIMARY KEY, state TEXT NOT NULL) WITHOUT ROWID');
  for (const id of ['a', 'b'])
    db.prepare('INSERT INTO span_states VALUES (?, ?)').run(id, packSpans(`{"v":1,"s":"${id}"}`));
  db.close();
  const s = await openSqliteStore(dir);
  expect((await s.sessions()).map((r) => [r.spec.id, r.spans])).toEqual([
    ['a', '{"v":1,"s":"a"}'],
    ['b', '{"v":1,"s":"b"}'],
    ['c', undefined],
  ]);
  await s.close();
  const raw = new Database(join(dir, 'bridge.db'));
  const phases = () => raw.prepare('SELECT session_id AS id, phase FROM span_states ORDER BY session_id').all();
  expect(phases()).toEqual(['a', 'b'].map((id) => ({ id, phase: capturePhase(id) })));
  // An older bridge's write (without a phase) of a row it has and of one it adds.
  const older = raw.prepare(
    'INSERT INTO span_states (session_id, state) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET state = excluded.state WHERE state IS NOT excluded.state',
  );
  older.run('a', packSpans('{"v":1,"s":"a2"}'));
  older.run('c', packSpans('{"v":1,"s":"c"}'));
  raw.close();
  const again = await openSqliteStore(dir);
  expect((await again.sessions()).map((r) => r.spans)).toEqual([
    '{"v":1,"s":"a2"}',
    '{"v":1,"s":"b"}',
    '{"v":1,"s":"c"}',
  ]);
  await again.close();
  const check = new Database(join(dir, 'bridge.db'), { readonly: true });
  expect(check.prepare('SELECT session_id AS id, phase FROM span_states ORDER BY session_id').all()).toEqual(
    ['a', 'b', 'c'].map((id) => ({ id, phase: capturePhase(id) })),
  );
  check.close();
});
