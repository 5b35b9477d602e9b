// The state database's page size follows `spool.mode` (store/sqlite-page-size.ts says why): 4 KiB
// pages for the overflow mode, whose healthy path writes checkpoints only, 64 KiB for the always
// mode, which writes every record's segment. A file with the other size is rebuilt at open when it
// is small, keeping everything in it; a large one, or one another connection reads, is kept as it
// is and keeps working.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ALWAYS_PAGE_SIZE,
  OVERFLOW_PAGE_SIZE,
  pageSizeFor,
  type PageSizeOutcome,
} from '../../../src/store/sqlite-page-size.js';
import { openSqliteStore, type SqliteStoreOptions } from '../../../src/store/sqlite-store.js';
import { storeConnection } from '../../helpers/store-connection.js';

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
const segment = (seq: number, size = 100_000) => ({
  sessionId: 's',
  firstSeq: seq,
  lastSeq: seq,
  records: 1,
  oldestTsMicros: 1,
  payload: Buffer.alloc(size, seq),
});

/** A state directory written with `size` pages: a session, its checkpoint and span state, two spooled segments. */
async function filled(size: number, segmentBytes = 100_000): Promise<string> {
  const dir = tempDir();
  const store = await openSqliteStore(dir, { pageSize: size });
  await store.putSession({ id: 's', attributes: { team: 'a' } }, 'config');
  await store.commit(
    [segment(1, segmentBytes), segment(2, segmentBytes)],
    [{ sessionId: 's', checkpoint: 2, epoch: 3, spans: () => '{"v":1,"open":[]}' }],
  );
  await store.close();
  expect(pageSize(dir)).toBe(size);
  return dir;
}

/** Opens `dir` with `opts`, checks that everything `filled` wrote is there, and that it still writes. */
async function expectIntact(dir: string, opts: SqliteStoreOptions): Promise<void> {
  const store = await openSqliteStore(dir, opts);
  const [row] = await store.sessions();
  expect(row).toMatchObject({ spec: { id: 's', attributes: { team: 'a' } }, checkpoint: 2, epoch: 3 });
  expect(row!.spans).toBe('{"v":1,"open":[]}');
  const read = await store.readSegments(0, Number.MAX_SAFE_INTEGER, 10);
  expect(read.slice(0, 2).map((s) => [s.firstSeq, s.payload[0]])).toEqual([
    [1, 1],
    [2, 2],
  ]);
  const last = read.at(-1)!;
  const [id] = await store.commit([segment(last.firstSeq + 1)], []);
  expect((await store.readSegments(last.id, id!, 10)).map((s) => s.payload[0])).toEqual([last.firstSeq + 1]);
  await store.close();
}

describe('the page size of a new state database', () => {
  it.each([
    ['overflow', OVERFLOW_PAGE_SIZE],
    ['always', ALWAYS_PAGE_SIZE],
    [undefined, OVERFLOW_PAGE_SIZE],
  ] as const)('spool.mode %s: %i-byte pages', async (mode, expected) => {
    expect(pageSizeFor(mode)).toBe(expected);
    const dir = tempDir();
    const outcomes: PageSizeOutcome[] = [];
    const store = await openSqliteStore(dir, { pageSize: pageSizeFor(mode), onPageSize: (o) => outcomes.push(o) });
    await store.commit([segment(1)], []);
    await store.close();
    expect(pageSize(dir)).toBe(expected);
    expect(outcomes).toEqual([]);
  });
});

describe('an existing file with the other page size', () => {
  it.each([
    [ALWAYS_PAGE_SIZE, OVERFLOW_PAGE_SIZE],
    [OVERFLOW_PAGE_SIZE, ALWAYS_PAGE_SIZE],
  ])('made with %i-byte pages, opened for %i: rebuilt, everything kept', async (from, to) => {
    const dir = await filled(from);
    const outcomes: PageSizeOutcome[] = [];
    await expectIntact(dir, { pageSize: to, onPageSize: (o) => outcomes.push(o) });
    expect(pageSize(dir)).toBe(to);
    expect(outcomes).toEqual([{ rebuilt: true, from, to, bytes: expect.any(Number), ms: expect.any(Number) }]);
    // Once rebuilt, the next open has nothing to do.
    await expectIntact(dir, { pageSize: to, onPageSize: (o) => outcomes.push(o) });
    expect(outcomes).toHaveLength(1);
  });

  it('over the rebuild limit: kept with its pages, said why, and works as it is', async () => {
    const dir = await filled(ALWAYS_PAGE_SIZE);
    const bytes = statSync(join(dir, 'bridge.db')).size;
    const outcomes: PageSizeOutcome[] = [];
    await expectIntact(dir, {
      pageSize: OVERFLOW_PAGE_SIZE,
      rebuildMaxBytes: 1000,
      onPageSize: (o) => outcomes.push(o),
    });
    expect(pageSize(dir)).toBe(ALWAYS_PAGE_SIZE);
    expect(outcomes).toEqual([
      {
        rebuilt: false,
        pageSize: ALWAYS_PAGE_SIZE,
        wanted: OVERFLOW_PAGE_SIZE,
        bytes: expect.any(Number),
        reason: expect.stringMatching(/^the file holds \d+ bytes, over 1000$/),
      },
    ]);
    expect((outcomes[0] as { bytes: number }).bytes).toBeGreaterThanOrEqual(bytes - ALWAYS_PAGE_SIZE);
  });

  it('over the rebuild limit in size but not in pages in use (a backlog delivered): rebuilt, and smaller', async () => {
    const dir = tempDir();
    const store = await openSqliteStore(dir, { pageSize: ALWAYS_PAGE_SIZE });
    await store.putSession({ id: 's', attributes: {} }, 'config');
    const ids = await store.commit(
      Array.from({ length: 30 }, (_, i) => segment(i + 1)),
      [{ sessionId: 's', checkpoint: 30, epoch: 1 }],
    );
    await store.deleteSegments(ids);
    await store.close();
    const before = statSync(join(dir, 'bridge.db')).size;
    expect(before).toBeGreaterThan(3_000_000);
    const outcomes: PageSizeOutcome[] = [];
    const again = await openSqliteStore(dir, {
      pageSize: OVERFLOW_PAGE_SIZE,
      rebuildMaxBytes: 1_000_000,
      onPageSize: (o) => outcomes.push(o),
    });
    expect((await again.sessions()).map((r) => [r.spec.id, r.checkpoint])).toEqual([['s', 30]]);
    await again.close();
    expect(outcomes).toEqual([
      {
        rebuilt: true,
        from: ALWAYS_PAGE_SIZE,
        to: OVERFLOW_PAGE_SIZE,
        bytes: expect.any(Number),
        ms: expect.any(Number),
      },
    ]);
    expect((outcomes[0] as { bytes: number }).bytes).toBeLessThan(1_000_000);
    expect(pageSize(dir)).toBe(OVERFLOW_PAGE_SIZE);
    expect(statSync(join(dir, 'bridge.db')).size).toBeLessThan(before / 10);
  });

  it('read by another connection: kept without waiting, rebuilt at a later start', async () => {
    const dir = await filled(ALWAYS_PAGE_SIZE);
    const reader = new Database(join(dir, 'bridge.db'), { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM sessions').get();
    const outcomes: PageSizeOutcome[] = [];
    try {
      await expectIntact(dir, { pageSize: OVERFLOW_PAGE_SIZE, onPageSize: (o) => outcomes.push(o) });
    } finally {
      reader.exec('COMMIT');
      reader.close();
    }
    expect(outcomes).toEqual([expect.objectContaining({ rebuilt: false, reason: expect.stringMatching(/locked/) })]);
    expect(pageSize(dir)).toBe(ALWAYS_PAGE_SIZE);
    await expectIntact(dir, { pageSize: OVERFLOW_PAGE_SIZE, onPageSize: (o) => outcomes.push(o) });
    expect(outcomes[1]).toMatchObject({ rebuilt: true, from: ALWAYS_PAGE_SIZE, to: OVERFLOW_PAGE_SIZE });
  });
});

describe('the WAL checkpoint threshold', () => {
  it.each([OVERFLOW_PAGE_SIZE, ALWAYS_PAGE_SIZE])(
    'is about 4 MB with %i-byte pages, so the WAL grows no larger than with 4 KiB pages',
    async (size) => {
      const store = await openSqliteStore(tempDir(), { pageSize: size });
      const db = storeConnection(store);
      const pages = db.pragma('wal_autocheckpoint', { simple: true }) as number;
      expect(db.pragma('page_size', { simple: true })).toBe(size);
      expect(Math.abs(pages * size - 4096 * 1000)).toBeLessThanOrEqual(size);
      expect(pages).toBe(size === 4096 ? 1000 : 63);
      await store.close();
    },
  );
});
