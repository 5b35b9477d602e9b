// A stored span state that does not inflate (a corrupt page, a row written by hand) must not stop
// the store from reading its sessions: the bridge would fail at every start (a crash loop) over
// spans, which are secondary to the records. The session is read without a state (its spans start
// afresh), the operator is told which session, and its next state is written over the bad one.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';

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
