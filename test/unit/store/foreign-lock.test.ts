// Another program holding the state database inside a write transaction (a sqlite3 shell left after
// BEGIN, a backup tool) when the bridge starts: the start stops with one line that says so, instead
// of SQLite's bare "database is locked", and starts once the program lets go. The wait for such a
// lock is the store's own short one, not SQLite's 5 s (test/integration/store/state-locked.test.ts
// holds one under a running daemon).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { BUSY_TIMEOUT_MS } from '../../../src/store/sqlite-state-lock.js';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';
import { StoreOpenError } from '../../../src/store/sqlite-schema.js';
import { storeConnection } from '../../helpers/store-connection.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it('a start that meets another program inside a write transaction says so, and starts once it ends', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-foreign-lock-'));
  dirs.push(dir);
  await (await openSqliteStore(dir)).close();
  const other = new Database(join(dir, 'bridge.db'));
  other.exec('BEGIN IMMEDIATE');
  let problem: unknown;
  try {
    await openSqliteStore(dir);
  } catch (err) {
    problem = err;
  } finally {
    other.exec('ROLLBACK');
    other.close();
  }
  expect(problem).toBeInstanceOf(StoreOpenError);
  expect((problem as Error).message).toMatch(
    /^cannot use the state database .*bridge\.db: database is locked: another program holds it inside a transaction \(a sqlite3 shell, a backup\?\); end it and start again$/,
  );
  const store = await openSqliteStore(dir);
  // The store's own wait for such a lock, not SQLite's 5 s.
  expect(storeConnection(store).pragma('busy_timeout', { simple: true })).toBe(BUSY_TIMEOUT_MS);
  expect(BUSY_TIMEOUT_MS).toBeLessThanOrEqual(250);
  await store.close();
});
