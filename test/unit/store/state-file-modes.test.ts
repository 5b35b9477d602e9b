// The state on disk is private: a fresh state directory is created 0700 and bridge.db, its -wal and
// -shm files and bridge.lock 0600, whatever the umask lets through (measured with umask 022, the
// common default that made them 0755/0644); an existing bridge.db that others may read is narrowed.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';
import { dirAccessProblem } from '../../../src/util/make-dirs.js';

const mode = (p: string): string => (statSync(p).mode & 0o777).toString(8);
let root: string;
let umask: number;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'bridge-modes-'));
  umask = process.umask(0o022);
});
afterEach(() => {
  process.umask(umask);
  rmSync(root, { recursive: true, force: true });
});

describe('state directory modes', () => {
  it('creates directories 0700 and every file 0600', async () => {
    const dir = join(root, 'a', 'state');
    const store = await openSqliteStore(dir);
    try {
      await store.probeWritable();
      expect(mode(join(root, 'a'))).toBe('700');
      expect(mode(dir)).toBe('700');
      for (const f of ['bridge.db', 'bridge.db-wal', 'bridge.db-shm', 'bridge.lock'])
        expect(mode(join(dir, f)), f).toBe('600');
    } finally {
      await store.close();
    }
  });

  it('narrows an existing bridge.db that others may read', async () => {
    const dir = join(root, 'old');
    await (await openSqliteStore(dir)).close();
    chmodSync(join(dir, 'bridge.db'), 0o644);
    const store = await openSqliteStore(dir);
    await store.close();
    expect(mode(join(dir, 'bridge.db'))).toBe('600');
  });
});

describe('dirAccessProblem (the warning at start)', () => {
  it.each([
    [0o700, undefined],
    [0o750, /open to its group/],
    [0o755, /open to every user/],
    [0o777, /open to every user/],
  ])('mode %o', (m, expected) => {
    const dir = join(root, `d${m.toString(8)}`);
    mkdirSync(dir);
    chmodSync(dir, m);
    const problem = dirAccessProblem(dir);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
  });
});
