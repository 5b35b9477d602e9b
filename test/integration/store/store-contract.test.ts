// One contract suite, run against every Store implementation: SQLite on disk and in memory, and
// PostgreSQL (a real server started for this file, one fresh database per store). The shared store
// writes only sessions it owns, so its factory claims each session as it is put.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';
import { ALWAYS_PAGE_SIZE, OVERFLOW_PAGE_SIZE, type PageSizeOutcome } from '../../../src/store/sqlite-page-size.js';
import { splitRecords, type NewSegment } from '../../../src/wire/segment-framing.js';
import type { Store } from '../../../src/store/store.js';
import { openPgStore, type PgStore } from '../../../src/store/pg-store.js';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'store-'));
  dirs.push(d);
  return d;
}

const impls: Array<[string, () => { open(): Promise<Store> }]> = [
  [
    'sqlite on disk',
    () => {
      const dir = tmp();
      return { open: () => openSqliteStore(dir) };
    },
  ],
  [
    'sqlite in memory',
    () => {
      let s: Store | undefined;
      // One database for the life of the factory: "reopen" hands back the same store.
      return { open: async () => (s ??= await openSqliteStore(':memory:')) };
    },
  ],
  [
    'postgresql',
    () => {
      let s: Store | undefined;
      return {
        open: async () => {
          if (s) return s;
          const url = await (await pgServer()).createDatabase(`contract_${++databases}`);
          const store = await openPgStore({ url, replicaId: 'contract' });
          s = ownEverything(store);
          return s;
        },
      };
    },
  ],
];

let server: Promise<PgServer> | undefined;
let databases = 0;
/** One server for the whole file, started on first use. */
const pgServer = (): Promise<PgServer> => (server ??= startPostgres());
afterAll(async () => (await server)?.close());

/** The shared store as a single replica uses it: every session put is claimed by this replica. */
function ownEverything(store: PgStore): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'putSession') {
        return async (...args: Parameters<Store['putSession']>) => {
          const row = await target.putSession(...args);
          if (!target.ownedSessions().has(row.spec.id)) await target.claim([row.spec.id]);
          return row;
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** A framed record carrying `text` (its content is opaque to the store). */
function framed(text: string): Buffer {
  const body = Buffer.from(text);
  return Buffer.concat([Buffer.from([0x12, body.length]), body]);
}

const segment = (sessionId: string, firstSeq: number, lastSeq: number): NewSegment => {
  const parts = [];
  for (let s = firstSeq; s <= lastSeq; s++) parts.push(framed(`${sessionId}:${s}:ü`));
  return {
    sessionId,
    payload: Buffer.concat(parts),
    records: parts.length,
    firstSeq,
    lastSeq,
    oldestTsMicros: 1_700_000_000_000_000 + firstSeq,
  };
};

for (const [name, make] of impls) {
  describe(`Store contract: ${name}`, () => {
    it('stores sessions and keeps their checkpoint and spool across reopen', async () => {
      const f = make();
      let s = await f.open();
      await s.putSession({ id: 'a', attributes: { team: 'x' } }, 'api');
      await s.commit([segment('a', 1, 2)], [{ sessionId: 'a', checkpoint: 2, epoch: 0 }]);
      if (name.includes('disk')) {
        await s.close();
        s = await f.open();
      }
      expect(await s.sessions()).toEqual([
        { spec: { id: 'a', attributes: { team: 'x' } }, source: 'api', lifecycle: 'active', checkpoint: 2, epoch: 0 },
      ]);
      expect((await s.spoolStats()).records).toBe(2);
      expect(await s.spoolTotals()).toMatchObject({ records: 2, maxId: expect.any(Number) });
      await s.close();
    });

    it('commits segments and checkpoints together and reads them back in id order, bytes intact', async () => {
      const s = await make().open();
      await s.putSession({ id: 'a', attributes: {} }, 'config');
      await s.putSession({ id: 'b', attributes: {} }, 'config');
      // The third after a service restart: its seqs are of epoch 2 (the session's status reads it).
      const segs = [segment('a', 1, 3), segment('b', 1, 1), { ...segment('a', 4, 5), epoch: 2 }];
      const ids = await s.commit(segs, [
        { sessionId: 'a', checkpoint: 5, epoch: 0 },
        { sessionId: 'b', checkpoint: 1, epoch: 0 },
      ]);
      expect(ids).toHaveLength(3);
      expect(ids[0]! < ids[1]! && ids[1]! < ids[2]!).toBe(true);
      const all = await s.readSegments(0, ids[2]!, 100);
      expect(all.map((r) => `${r.sessionId}:${r.firstSeq}-${r.lastSeq}/${r.records} e${r.epoch ?? 0}`)).toEqual([
        'a:1-3/3 e0',
        'b:1-1/1 e0',
        'a:4-5/2 e2',
      ]);
      expect(all[0]).not.toHaveProperty('epoch');
      expect(Buffer.compare(all[0]!.payload, segs[0]!.payload)).toBe(0);
      expect(splitRecords(all[2]!.payload).map((b) => b.subarray(2).toString())).toEqual(['a:4:ü', 'a:5:ü']);
      // After a cursor, up to a bound, and limited by records (but never fewer than one segment).
      expect((await s.readSegments(ids[0]!, ids[2]!, 100)).map((r) => r.id)).toEqual([ids[1], ids[2]]);
      expect((await s.readSegments(0, ids[1]!, 100)).map((r) => r.id)).toEqual([ids[0], ids[1]]);
      expect((await s.readSegments(0, ids[2]!, 4)).map((r) => r.id)).toEqual([ids[0], ids[1]]);
      expect((await s.readSegments(0, ids[2]!, 1)).map((r) => r.id)).toEqual([ids[0]]);
      await s.close();
    });

    it('a failed transaction moves neither segments nor checkpoints', async () => {
      const s = await make().open();
      await s.putSession({ id: 'a', attributes: {} }, 'config');
      const bad = { ...segment('a', 3, 3), payload: null as unknown as Buffer };
      await expect(
        s.commit([segment('a', 1, 2), bad], [{ sessionId: 'a', checkpoint: 3, epoch: 0 }]),
      ).rejects.toThrow();
      expect(await s.spoolStats()).toMatchObject({ records: 0, bytes: 0 });
      expect((await s.sessions())[0]!.checkpoint).toBe(0);
      await s.close();
    });

    it('deleting keeps the totals exact, also for a segment deleted twice', async () => {
      const s = await make().open();
      await s.putSession({ id: 'a', attributes: {} }, 'config');
      const segs = [segment('a', 1, 2), segment('a', 3, 3)];
      const ids = await s.commit(segs, []);
      expect((await s.spoolStats()).bytes).toBe(segs[0]!.payload.length + segs[1]!.payload.length);
      await s.deleteSegments([ids[0]!]);
      await s.deleteSegments([ids[0]!]);
      expect(await s.spoolStats()).toMatchObject({ records: 1, bytes: segs[1]!.payload.length });
      await s.deleteSegments([ids[1]!]);
      expect(await s.spoolStats()).toEqual({ records: 0, bytes: 0, oldestTsMicros: null });
      await s.close();
    });

    it('a commit of many segments keeps their order and ids; a claimed run of ids is deleted at once, also twice', async () => {
      const s = await make().open();
      for (let i = 0; i < 7; i++) await s.putSession({ id: `s${i}`, attributes: {} }, 'config');
      const segs = Array.from({ length: 75 }, (_, i) => segment(`s${i % 7}`, i + 1, i + 1));
      const ids = await s.commit(segs, []);
      expect(ids).toEqual(Array.from({ length: 75 }, (_, i) => ids[0]! + i));
      const back = await s.readSegments(0, ids[74]!, 1000);
      expect(back.map((b) => `${b.sessionId}:${b.firstSeq}`)).toEqual(segs.map((g) => `${g.sessionId}:${g.firstSeq}`));
      const run = back.slice(10, 40);
      const known = { records: 30, bytes: run.reduce((n, r) => n + r.payload.length, 0) };
      const before = await s.spoolStats();
      await s.deleteSegments(
        run.map((r) => r.id),
        known,
      );
      await s.deleteSegments(
        run.map((r) => r.id),
        known,
      );
      expect(await s.spoolStats()).toMatchObject({ records: before.records - 30, bytes: before.bytes - known.bytes });
      expect((await s.readSegments(0, ids[74]!, 1000)).map((r) => r.firstSeq)).toEqual([
        ...Array.from({ length: 10 }, (_, i) => i + 1),
        ...Array.from({ length: 35 }, (_, i) => i + 41),
      ]);
      await s.close();
    });

    it('keeps the service source id with the checkpoint, and an update without one keeps the last', async () => {
      const s = await make().open();
      await s.putSession({ id: 'a', attributes: {} }, 'config');
      expect((await s.sessions())[0]!.sourceId).toBeUndefined();
      await s.commit([], [{ sessionId: 'a', checkpoint: 3, epoch: 0, sourceId: 'tsid-1' }]);
      await s.commit([], [{ sessionId: 'a', checkpoint: 4, epoch: 0 }]);
      expect((await s.sessions())[0]).toMatchObject({ checkpoint: 4, sourceId: 'tsid-1' });
      await s.close();
    });

    it('keeps the span state written with a checkpoint, serialized at the write; an end or a removal keeps it', async () => {
      const f = make();
      let s = await f.open();
      await s.putSession({ id: 'a', attributes: {} }, 'config');
      let unsent = 'one';
      await s.commit([], [{ sessionId: 'a', checkpoint: 3, epoch: 0, spans: () => `{"unsent":"${unsent}"}` }]);
      unsent = 'two';
      if (name.includes('disk')) {
        await s.close();
        s = await f.open();
      }
      expect((await s.sessions())[0]).toMatchObject({ checkpoint: 3, spans: '{"unsent":"one"}' });
      // A checkpoint without span state (traces off, or a session read in a worker) leaves none.
      await s.commit([], [{ sessionId: 'a', checkpoint: 4, epoch: 0 }]);
      expect((await s.sessions())[0]!.spans).toBeUndefined();
      await s.commit([], [{ sessionId: 'a', checkpoint: 5, epoch: 0, spans: () => `{"unsent":"${unsent}"}` }]);
      await s.setLifecycle('a', 'ended');
      expect((await s.sessions())[0]!.spans).toBe('{"unsent":"two"}');
      // Removed for good: the state lists the spans it still owes until the next start sent them
      // (session/finished-session-spans.ts), which then drops it.
      await s.setLifecycle('a', 'removed');
      expect((await s.sessions())[0]).toMatchObject({ lifecycle: 'removed', spans: '{"unsent":"two"}' });
      await s.dropSpanState('a');
      expect((await s.sessions())[0]!.spans).toBeUndefined();
      await s.close();
    });

    it("drops an ended or removed session's span state on request, never an active one's", async () => {
      const f = make();
      const s = await f.open();
      for (const id of ['ended', 'removed', 'active']) {
        await s.putSession({ id, attributes: {} }, 'config');
        await s.commit([], [{ sessionId: id, checkpoint: 3, epoch: 0, spans: () => `{"id":"${id}"}` }]);
      }
      await s.setLifecycle('ended', 'ended');
      await s.setLifecycle('removed', 'removed');
      for (const id of ['ended', 'removed', 'active']) await s.dropSpanState(id);
      const rows = new Map((await s.sessions()).map((r) => [r.spec.id, r]));
      expect(rows.get('ended')).toMatchObject({ lifecycle: 'ended', checkpoint: 3 });
      expect(rows.get('ended')!.spans).toBeUndefined();
      expect(rows.get('removed')).toMatchObject({ lifecycle: 'removed', checkpoint: 3 });
      expect(rows.get('removed')!.spans).toBeUndefined();
      expect(rows.get('active')!.spans).toBe('{"id":"active"}');
      await s.close();
    });

    it('a checkpoint move with the same span state keeps it; a stale checkpoint writes no state', async () => {
      const f = make();
      let s = await f.open();
      await s.putSession({ id: 'a', attributes: {} }, 'config');
      await s.putSession({ id: 'b', attributes: {} }, 'config');
      await s.commit(
        [segment('a', 1, 2)],
        [
          { sessionId: 'a', checkpoint: 2, epoch: 0, spans: () => 'A1' },
          { sessionId: 'b', checkpoint: 7, epoch: 0, spans: () => 'B1' },
        ],
      );
      // Unchanged state (written only when changed) and a changed one in the same commit.
      await s.commit(
        [segment('a', 3, 4)],
        [
          { sessionId: 'a', checkpoint: 4, epoch: 0, spans: () => 'A1' },
          { sessionId: 'b', checkpoint: 8, epoch: 0, spans: () => 'B2' },
        ],
      );
      if (name.includes('disk')) {
        await s.close();
        s = await f.open();
      }
      const rows = new Map((await s.sessions()).map((r) => [r.spec.id, r]));
      expect(rows.get('a')).toMatchObject({ checkpoint: 4, spans: 'A1' });
      expect(rows.get('b')).toMatchObject({ checkpoint: 8, spans: 'B2' });
      // Dropping the removed session's state leaves the other's.
      await s.setLifecycle('b', 'removed');
      await s.dropSpanState('b');
      const after = new Map((await s.sessions()).map((r) => [r.spec.id, r]));
      expect(after.get('a')!.spans).toBe('A1');
      expect(after.get('b')!.spans).toBeUndefined();
      await s.close();
    });

    it('lifecycle: ended and removed stick, re-adding makes a session active with its checkpoint', async () => {
      const s = await make().open();
      await s.putSession({ id: 'a', attributes: {} }, 'config');
      await s.commit([], [{ sessionId: 'a', checkpoint: 9, epoch: 1 }]);
      await s.setLifecycle('a', 'removed');
      expect((await s.sessions())[0]!.lifecycle).toBe('removed');
      const row = await s.putSession({ id: 'a', attributes: { x: 1 } }, 'api');
      expect(row).toMatchObject({ lifecycle: 'active', checkpoint: 9, epoch: 1, source: 'api' });
      await s.close();
    });

    it('reports the oldest undelivered event time', async () => {
      const s = await make().open();
      await s.putSession({ id: 'a', attributes: {} }, 'config');
      await s.commit([segment('a', 5, 6)], []);
      expect((await s.spoolStats()).oldestTsMicros).toBe(1_700_000_000_000_005);
      await s.close();
    });

    it('addSessions inserts only unknown sessions: an ended, removed or configured one is left as it is', async () => {
      const s = await make().open();
      await s.putSession({ id: 'ended', attributes: {} }, 'config');
      await s.setLifecycle('ended', 'ended');
      await s.putSession({ id: 'removed', attributes: {} }, 'api');
      await s.setLifecycle('removed', 'removed');
      await s.putSession({ id: 'cfg', attributes: { k: 'v' } }, 'config');
      const added = await s.addSessions(
        ['ended', 'removed', 'cfg', 'new-1', 'new-2'].map((id) => ({ id, start: 'oldest' as const, attributes: {} })),
        'discovery',
      );
      expect(added.map((r) => [r.spec.id, r.source, r.lifecycle, r.checkpoint])).toEqual([
        ['new-1', 'discovery', 'active', 0],
        ['new-2', 'discovery', 'active', 0],
      ]);
      const rows = new Map((await s.sessions()).map((r) => [r.spec.id, r]));
      expect(rows.get('ended')).toMatchObject({ lifecycle: 'ended', source: 'config' });
      expect(rows.get('removed')).toMatchObject({ lifecycle: 'removed', source: 'api' });
      expect(rows.get('cfg')).toMatchObject({
        lifecycle: 'active',
        source: 'config',
        spec: { attributes: { k: 'v' } },
      });
      expect(rows.get('new-1')).toMatchObject({ source: 'discovery', spec: { start: 'oldest' } });
      expect(await s.addSessions([{ id: 'new-1', attributes: {} }], 'discovery')).toEqual([]);
      expect(await s.addSessions([], 'discovery')).toEqual([]);
      await s.close();
    });

    it('discovery polls: one claim per gap, and the last successful poll is durable and never moves back', async () => {
      const f = make();
      let s = await f.open();
      const first = await s.claimDiscoveryPoll(60_000);
      expect(first).toMatchObject({ claimed: true, lastSuccessAt: null });
      expect(Math.abs(first.now - Date.now())).toBeLessThan(5_000);
      expect((await s.claimDiscoveryPoll(60_000)).claimed).toBe(false);
      await s.recordDiscoveryPoll(first.now);
      await s.recordDiscoveryPoll(first.now - 1000);
      if (name.includes('disk')) {
        await s.close();
        s = await f.open();
      }
      const later = await s.claimDiscoveryPoll(60_000);
      expect(later).toMatchObject({ claimed: false, lastSuccessAt: first.now });
      await new Promise((r) => setTimeout(r, 30));
      expect((await s.claimDiscoveryPoll(20)).claimed).toBe(true);
      await s.close();
    });
  });
}

describe('SqliteStore state directory', () => {
  it('refuses a second store on the same directory until the first is closed', async () => {
    const dir = tmp();
    const first = await openSqliteStore(dir);
    await expect(openSqliteStore(dir)).rejects.toThrow(/in use by another bridge process/);
    // Named as the start line names it: a relative path (`./state`) is resolved.
    await expect(openSqliteStore(relative(process.cwd(), dir))).rejects.toThrow(`the state directory ${dir} is in use`);
    await first.close();
    const second = await openSqliteStore(dir);
    await second.close();
  });

  it('refuses a file that is not a database, in one line', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'bridge.db'), Buffer.alloc(8192, 0x5a));
    const err = await openSqliteStore(dir).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe('StoreOpenError');
    expect((err as Error).message).not.toContain('\n');
  });

  it('refuses a SQLite database of another application instead of adopting it', async () => {
    const dir = tmp();
    const other = new Database(join(dir, 'bridge.db'));
    other.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)');
    other.close();
    await expect(openSqliteStore(dir)).rejects.toThrow(/another application/);
    const marked = new Database(join(dir, 'bridge.db'));
    expect(marked.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([{ name: 'invoices' }]);
    marked.close();
  });

  it('refuses a database with a foreign application id', async () => {
    const dir = tmp();
    const other = new Database(join(dir, 'bridge.db'));
    other.pragma('application_id = 1234');
    other.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    other.close();
    await expect(openSqliteStore(dir)).rejects.toThrow(/application_id 1234/);
  });

  // The fixture has 4 KiB pages: the always mode's 64 KiB rebuilds it (sqlite-page-size.ts) before the migration.
  it.each([OVERFLOW_PAGE_SIZE, ALWAYS_PAGE_SIZE])(
    'migrates a schema-1 state directory written by the previous version, keeping every record and checkpoint (%i-byte pages)',
    async (pageSize) => {
      const dir = tmp();
      copyFileSync(resolve(import.meta.dirname, '../../fixtures/state-v1/bridge.db'), join(dir, 'bridge.db'));
      const converted: string[] = [];
      let report: unknown;
      const outcomes: PageSizeOutcome[] = [];
      const store = await openSqliteStore(dir, {
        pageSize,
        onPageSize: (o) => outcomes.push(o),
        migrateRecord: (json) => {
          const r = JSON.parse(json) as { attributes: Record<string, unknown> };
          converted.push(String(r.attributes['log.record.uid']));
          return framed(String(r.attributes['log.record.uid']));
        },
        onMigrated: (r) => (report = r),
      });
      expect(report).toEqual({ records: 300, segments: expect.any(Number), unreadable: 0 });
      expect(converted).toHaveLength(300);
      const sessions = await store.sessions();
      expect(sessions.map((s) => [s.spec.id, s.checkpoint])).toEqual([
        ['v1-a', 150],
        ['v1-b', 150],
      ]);
      const totals = await store.spoolTotals();
      expect(totals.records).toBe(300);
      const segs = await store.readSegments(0, totals.maxId, 100_000);
      const uids = segs.flatMap((s) => splitRecords(s.payload).map((b) => b.subarray(2).toString()));
      expect(uids).toEqual(converted);
      await store.close();
      expect(outcomes).toEqual(
        pageSize === OVERFLOW_PAGE_SIZE ? [] : [expect.objectContaining({ rebuilt: true, from: 4096, to: pageSize })],
      );
      // Reopening finds schema 2: nothing to migrate again.
      const again = await openSqliteStore(dir, { pageSize, onPageSize: (o) => outcomes.push(o) });
      expect((await again.spoolTotals()).records).toBe(300);
      await again.close();
      expect(outcomes.length).toBeLessThanOrEqual(1);
    },
  );

  it('moves span state kept in the sessions row (the previous layout) to its own table on open', async () => {
    const dir = tmp();
    const first = await openSqliteStore(dir);
    await first.putSession({ id: 'a', attributes: {} }, 'config');
    await first.commit([], [{ sessionId: 'a', checkpoint: 5, epoch: 0 }]);
    await first.close();
    // The previous layout: the state in the column, no row in span_states.
    const db = new Database(join(dir, 'bridge.db'));
    db.prepare("UPDATE sessions SET span_state = 'old-state' WHERE id = 'a'").run();
    db.close();
    const s = await openSqliteStore(dir);
    expect((await s.sessions())[0]).toMatchObject({ checkpoint: 5, spans: 'old-state' });
    await s.close();
    const raw = new Database(join(dir, 'bridge.db'), { readonly: true });
    expect(raw.prepare("SELECT span_state AS v FROM sessions WHERE id = 'a'").get()).toEqual({ v: null });
    raw.close();
  });

  it("adds the segments' epoch to a spool written without it: what was spooled is read back as epoch 0", async () => {
    const dir = tmp();
    const first = await openSqliteStore(dir);
    await first.putSession({ id: 'a', attributes: {} }, 'config');
    await first.commit([segment('a', 1, 2)], [{ sessionId: 'a', checkpoint: 2, epoch: 0 }]);
    await first.close();
    // The previous layout: spool_segments without the column (SQLite 3.35+ drops it in place).
    const db = new Database(join(dir, 'bridge.db'));
    db.exec('ALTER TABLE spool_segments DROP COLUMN epoch');
    db.close();
    const s = await openSqliteStore(dir);
    await s.commit([{ ...segment('a', 1, 1), epoch: 1 }], [{ sessionId: 'a', checkpoint: 1, epoch: 1 }]);
    const all = await s.readSegments(0, Number.MAX_SAFE_INTEGER, 100);
    expect(all.map((r) => `${r.firstSeq}-${r.lastSeq} e${r.epoch ?? 0}`)).toEqual(['1-2 e0', '1-1 e1']);
    await s.close();
  });

  it('keeps the span state compressed: fewer bytes in the file than the JSON, the same text read back', async () => {
    const dir = tmp();
    const s = await openSqliteStore(dir);
    await s.putSession({ id: 'a', attributes: {} }, 'config');
    const state = JSON.stringify({
      v: 1,
      docs: Array.from({ length: 40 }, (_, i) => ({ name: 'browser.page.load', i })),
    });
    await s.commit([], [{ sessionId: 'a', checkpoint: 1, epoch: 0, spans: () => state }]);
    expect((await s.sessions())[0]!.spans).toBe(state);
    await s.close();
    const raw = new Database(join(dir, 'bridge.db'), { readonly: true });
    const row = raw.prepare("SELECT state FROM span_states WHERE session_id = 'a'").get() as { state: Buffer };
    raw.close();
    expect(Buffer.isBuffer(row.state)).toBe(true);
    expect(row.state.length).toBeLessThan(state.length / 4);
  });

  it('a schema-1 spool without a converter is an error, not a silent fresh start', async () => {
    const dir = tmp();
    copyFileSync(resolve(import.meta.dirname, '../../fixtures/state-v1/bridge.db'), join(dir, 'bridge.db'));
    await expect(openSqliteStore(dir)).rejects.toThrow(/schema-1 spool/);
  });
});
