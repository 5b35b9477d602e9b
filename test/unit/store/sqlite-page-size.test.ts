// The spool's database uses 64 KiB pages when the bridge creates it (sqlite-store.ts says why); a
// database created before keeps its page size and works as it did.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, PAGE_SIZE } from '../../../src/store/sqlite-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'bridge-page-'));
  dirs.push(d);
  return d;
}
function pageSize(dir: string): number {
  const db = new Database(join(dir, 'bridge.db'), { readonly: true });
  try {
    return db.pragma('page_size', { simple: true }) as number;
  } finally {
    db.close();
  }
}
const segment = (seq: number) => ({
  sessionId: 's',
  firstSeq: seq,
  lastSeq: seq,
  records: 1,
  oldestTsMicros: 1,
  payload: Buffer.alloc(100_000, seq),
});

describe('the state database page size', () => {
  it('is 64 KiB for a database the bridge creates', async () => {
    const dir = tempDir();
    const store = await openSqliteStore(dir);
    await store.commit([segment(1)], []);
    await store.close();
    expect(pageSize(dir)).toBe(PAGE_SIZE);
  });

  it('stays what it was for an existing database, which keeps working', async () => {
    const dir = tempDir();
    const old = new Database(join(dir, 'bridge.db'));
    old.pragma('journal_mode = WAL');
    old.close();
    expect(pageSize(dir)).toBe(4096);
    const store = await openSqliteStore(dir);
    await store.putSession({ id: 's', attributes: {} }, 'config');
    const ids = await store.commit([segment(1), segment(2)], [{ sessionId: 's', checkpoint: 2, epoch: 0 }]);
    const read = await store.readSegments(0, ids[1]!, 10);
    expect(read.map((s) => s.payload[0])).toEqual([1, 2]);
    await store.close();
    expect(pageSize(dir)).toBe(4096);
  });
});

describe('the WAL checkpoint threshold', () => {
  it('is about 4 MB whatever the page size, so the WAL grows no larger than with 4 KiB pages', async () => {
    for (const preset of [undefined, 4096]) {
      const dir = tempDir();
      if (preset) {
        const old = new Database(join(dir, 'bridge.db'));
        old.pragma(`page_size = ${preset}`);
        old.pragma('journal_mode = WAL');
        old.close();
      }
      const store = await openSqliteStore(dir);
      const db = (store as unknown as { db: Database.Database }).db;
      const pages = db.pragma('wal_autocheckpoint', { simple: true }) as number;
      const size = db.pragma('page_size', { simple: true }) as number;
      expect(Math.abs(pages * size - 4096 * 1000)).toBeLessThanOrEqual(size);
      expect(pages).toBe(size === 4096 ? 1000 : 63);
      await store.close();
    }
  });
});
