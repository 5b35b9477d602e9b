// Model-based tests of the Spool (after Vector's disk_v2 `tests/model`): fast-check draws random
// sequences of append / flush / a failing commit / the commit timer firing / claim / acknowledge /
// an acknowledgement whose delete fails / settle / clean restart / crash, runs them against a real
// Spool over a real SQLite store in a temp directory, and after every step compares the spool and
// the store with a model that is a handful of sets.
//
// What the contract allows, and what the model therefore demands:
// - A record is pending (memory) until a commit succeeds; a crash loses it, and because its
//   checkpoint did not move either, the service replays it: after a crash each session goes on
//   appending from its durable checkpoint.
// - The stored checkpoint of a session is exactly the last seq (record or filtered event) appended
//   before the last successful commit: a failed commit moves nothing, and no event at or below the
//   checkpoint is missing from the store unless it was acknowledged (it never runs ahead).
// - A committed record is claimable exactly once per process until it is acknowledged. A claim
//   settled without acknowledgement (delivery gave up at shutdown) stays in the store and comes back
//   only after a restart; an acknowledged record whose delete failed is not handed out again in this
//   process, but after a crash (before the background retry deleted it) it may be sent once more.
//   An acknowledged record whose delete succeeded never comes back.
// - A session's records come out in seq order, and a claim always holds the lowest seqs still
//   waiting (nothing is skipped); a claim holds at most `maxRecords` unless one segment alone is larger.
// - Finally (at-least-once): after the last step, a restart and a full drain hand out every
//   committed record that was not acknowledged with a durable delete.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Spool, type Batch } from '../../../src/store/spool.js';
import { SqliteStore } from '../../../src/store/sqlite-store.js';
import type { Store } from '../../../src/store/store.js';
import { splitRecords, type Segment } from '../../../src/wire/segment-framing.js';
import { memoryTmpdir } from '../../helpers/memory-tmpdir.js';

const SESSIONS = ['a', 'b', 'c'] as const;
const COMMIT_INTERVAL_MS = 1000;

/** A framed record whose body names its session and seq (the spool treats it as opaque bytes). */
function framed(sessionId: string, seq: number): Buffer {
  const body = Buffer.from(`${sessionId}:${seq}`);
  return Buffer.concat([Buffer.from([0x12, body.length]), body]);
}
const keyOf = (sessionId: string, seq: number): string => `${sessionId}:${seq}`;
const seqOf = (key: string): number => Number(key.slice(key.indexOf(':') + 1));
const sessionOf = (key: string): string => key.slice(0, key.indexOf(':'));

/** The keys of a segment's records, read from the bytes themselves. */
function recordKeys(s: Segment): string[] {
  return splitRecords(s.payload).map((r) => r.subarray(2).toString());
}

/**
 * Where a committed record is. `queued`: in the store, claimable in this process; `inFlight`: in a
 * claim not yet settled; `parked`: its claim was settled without acknowledgement (back after a
 * restart); `ackedUndeleted`: acknowledged, but the delete failed and waits for its retry.
 */
type Place = 'queued' | 'inFlight' | 'parked' | 'ackedUndeleted';

interface Model {
  /** Last seq appended per session (records and filtered events). */
  lastSeq: Map<string, number>;
  /** Last seq appended before the last successful commit: what the stored checkpoint must be. */
  durable: Map<string, number>;
  /** Records (and filtered events, as null) appended since the last successful commit, in order. */
  pending: Array<{ sessionId: string; seq: number; record: boolean }>;
  /** Committed records that are still in the store. */
  stored: Map<string, Place>;
  /** Records acknowledged with a delete that succeeded: never handed out again. */
  deleted: Set<string>;
  /** Every record ever committed (for the final at-least-once check). */
  everCommitted: Set<string>;
  /** Claims handed out and not yet settled in this process, with the keys they hold. */
  claims: Array<{ claim: Batch; keys: string[] }>;
}

/** A SQLite store whose next commit or delete can be made to fail, as on a full disk. */
class FlakyStore extends SqliteStore {
  failCommits = 0;
  failDeletes = 0;
  /** Runs when a commit reaches the store: what happens while it is in flight. */
  duringCommit: (() => void) | undefined;
  override async commit(...args: Parameters<Store['commit']>): Promise<number[]> {
    this.duringCommit?.();
    if (this.failCommits > 0) {
      this.failCommits--;
      throw new Error('SQLITE_FULL: database or disk is full');
    }
    return super.commit(...args);
  }
  override async deleteSegments(...args: Parameters<Store['deleteSegments']>): Promise<void> {
    if (this.failDeletes > 0) {
      this.failDeletes--;
      throw new Error('SQLITE_FULL: database or disk is full');
    }
    return super.deleteSegments(...args);
  }
}

interface Real {
  dir: string;
  store: FlakyStore;
  spool: Spool;
  memoryMaxBytes: number;
}

async function openReal(dir: string, memoryMaxBytes: number): Promise<{ store: FlakyStore; spool: Spool }> {
  const store = new FlakyStore(dir);
  const spool = await Spool.open({
    store,
    // `always`: every record on disk before its checkpoint moves (overflow.model.test.ts has the other mode).
    mode: 'always',
    maxBytes: 1 << 30,
    memoryMaxBytes,
    // Commits happen only when the model says so: by flush(), or by the commit timer in Tick.
    commitMaxRecords: Number.MAX_SAFE_INTEGER,
    commitIntervalMs: COMMIT_INTERVAL_MS,
  });
  return { store, spool };
}

/** Lets every promise chain started by a (fake) timer run to its end: SQLite calls are synchronous. */
const settleMicrotasks = (): Promise<void> => new Promise((r) => setImmediate(r));

function commitPending(m: Model): void {
  for (const p of m.pending) {
    m.durable.set(p.sessionId, p.seq);
    if (!p.record) continue;
    const k = keyOf(p.sessionId, p.seq);
    m.stored.set(k, 'queued');
    m.everCommitted.add(k);
  }
  m.pending = [];
}

function deleteAckedUndeleted(m: Model): void {
  for (const [k, place] of m.stored) {
    if (place !== 'ackedUndeleted') continue;
    m.stored.delete(k);
    m.deleted.add(k);
  }
}

/** A new process over the same store: everything still stored is claimable again. */
function afterRestart(m: Model): void {
  m.claims = [];
  for (const k of m.stored.keys()) m.stored.set(k, 'queued');
}

/** Compares the spool and the store with the model. */
async function checkInvariants(m: Model, r: Real): Promise<void> {
  const rows = await r.store.sessions();
  const checkpoint = new Map(rows.map((row) => [row.spec.id, row.checkpoint]));
  const inStore = new Set<string>();
  for (let after = 0; ;) {
    const segs = await r.store.readSegments(after, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    if (segs.length === 0) break;
    for (const s of segs) {
      const keys = recordKeys(s);
      expect(keys).toHaveLength(s.records);
      expect(keys.map(seqOf)).toEqual([...keys.map(seqOf)].sort((x, y) => x - y));
      expect([seqOf(keys[0]!), seqOf(keys[keys.length - 1]!)]).toEqual([s.firstSeq, s.lastSeq]);
      for (const k of keys) {
        expect(sessionOf(k)).toBe(s.sessionId);
        inStore.add(k);
      }
    }
    after = segs[segs.length - 1]!.id;
  }
  expect([...inStore].sort()).toEqual([...m.stored.keys()].sort());
  for (const s of SESSIONS) {
    const cp = checkpoint.get(s)!;
    // Exactly the last seq committed: ahead of it, a crash would lose a pending record the service
    // would not replay; behind it, a restart would spool again what is already there.
    expect(cp, `checkpoint of ${s}`).toBe(m.durable.get(s));
  }
  expect(r.spool.spooled.records).toBe(m.stored.size);
  expect(r.spool.pendingCount).toBe(m.pending.filter((p) => p.record).length);
  expect(r.spool.batchesInFlight).toBe(m.claims.length);
}

type Cmd = fc.AsyncCommand<Model, Real>;

/** Appends the session's next events: a record for each `true`, a filtered event for each `false`. */
function appendTo(m: Model, r: Real, sessionId: string, kinds: readonly boolean[]): void {
  let seq = m.lastSeq.get(sessionId)!;
  for (const record of kinds) {
    seq++;
    r.spool.append({
      sessionId,
      seq,
      epoch: 0,
      tsMicros: 1_700_000_000_000_000 + seq,
      record: record ? framed(sessionId, seq) : null,
    });
    m.pending.push({ sessionId, seq, record });
  }
  m.lastSeq.set(sessionId, seq);
}
const describeAppend = (sessionId: string, kinds: readonly boolean[]): string =>
  `append(${sessionId}, ${kinds.map((k) => (k ? 'r' : '-')).join('')})`;

class Append implements Cmd {
  constructor(
    readonly sessionId: string,
    readonly kinds: boolean[],
  ) {}
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    appendTo(m, r, this.sessionId, this.kinds);
    await checkInvariants(m, r);
  }
  toString = (): string => describeAppend(this.sessionId, this.kinds);
}

/**
 * Commits what is pending; the commit fails (disk full) when `fails`. With `during`, a session
 * appends while the commit is in flight (between the spool taking the batch and the store
 * answering): those records are not part of it, and a failed commit puts its batch back in front
 * of them.
 */
class Flush implements Cmd {
  constructor(
    readonly fails: boolean,
    readonly during?: { sessionId: string; kinds: boolean[] },
  ) {}
  check = (m: Readonly<Model>): boolean => (!this.fails && !this.during) || m.pending.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const inBatch = m.pending.length;
    if (this.during) {
      const { sessionId, kinds } = this.during;
      r.store.duringCommit = () => appendTo(m, r, sessionId, kinds);
    }
    r.store.failCommits = this.fails ? 1 : 0;
    expect(await r.spool.flush()).toBe(!this.fails);
    // A commit retries the deletes that failed before it writes anything (room freed on a full
    // volume goes to deletes first), whether or not the commit itself then succeeds.
    if (inBatch > 0) deleteAckedUndeleted(m);
    r.store.duringCommit = undefined;
    if (this.fails) expect(r.spool.full).toBe(true);
    else {
      const later = m.pending.splice(inBatch);
      commitPending(m);
      m.pending = later;
    }
    await checkInvariants(m, r);
  }
  toString = (): string =>
    `flush${this.fails ? ' (fails)' : ''}${this.during ? ` while ${describeAppend(this.during.sessionId, this.during.kinds)}` : ''}`;
}

/** Time passes: the commit timer (or a failed commit's retry) commits, failed deletes are retried. */
class Tick implements Cmd {
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    await vi.advanceTimersByTimeAsync(10_000);
    await settleMicrotasks();
    commitPending(m);
    deleteAckedUndeleted(m);
    await checkInvariants(m, r);
  }
  toString = (): string => 'tick';
}

class ClaimNext implements Cmd {
  constructor(readonly maxRecords: number) {}
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    const claim = await r.spool.takeBatch(this.maxRecords);
    const queued = [...m.stored].filter(([, place]) => place === 'queued').map(([k]) => k);
    if (!claim) {
      expect(queued, 'claim() returned null while committed records wait').toEqual([]);
      await checkInvariants(m, r);
      return;
    }
    expect(claim.segments.length === 1 || claim.records <= this.maxRecords).toBe(true);
    const keys = claim.segments.flatMap(recordKeys);
    expect(keys).toHaveLength(claim.records);
    for (const k of keys) {
      // Never a pending record, never one acknowledged or already handed out in this process.
      expect(m.stored.get(k), `claimed ${k}`).toBe('queued');
      m.stored.set(k, 'inFlight');
    }
    // Per session: the claim holds the lowest seqs still waiting, in seq order.
    for (const s of SESSIONS) {
      const got = keys.filter((k) => sessionOf(k) === s).map(seqOf);
      const waiting = queued
        .filter((k) => sessionOf(k) === s)
        .map(seqOf)
        .sort((x, y) => x - y);
      expect(got, `records of ${s} in the claim`).toEqual(waiting.slice(0, got.length));
    }
    m.claims.push({ claim, keys });
    await checkInvariants(m, r);
  }
  toString = (): string => `claim(${this.maxRecords})`;
}

/** Settles one claim in flight: acknowledged (its delete succeeds or fails) or given up. */
class Settle implements Cmd {
  constructor(
    readonly pick: number,
    readonly how: 'ack' | 'ack, delete fails' | 'settle',
  ) {}
  check = (m: Readonly<Model>): boolean => m.claims.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const [{ claim, keys }] = m.claims.splice(this.pick % m.claims.length, 1) as [{ claim: Batch; keys: string[] }];
    if (this.how === 'settle') {
      r.spool.release(claim);
      for (const k of keys) m.stored.set(k, 'parked');
    } else {
      if (this.how === 'ack, delete fails') r.store.failDeletes = 1;
      await r.spool.acknowledge(claim);
      for (const k of keys) {
        if (this.how === 'ack') {
          m.stored.delete(k);
          m.deleted.add(k);
        } else m.stored.set(k, 'ackedUndeleted');
      }
    }
    await checkInvariants(m, r);
  }
  toString = (): string => `${this.how}(#${this.pick})`;
}

/**
 * A new process over the same state directory. Clean: claims in flight are abandoned (as delivery's
 * shutdown does), close() commits what is pending and retries failed deletes. Crash: the spool is
 * dropped as it stands: nothing pending is committed, no timer fires again; the database connection
 * is closed only to release the state directory's lock, as the OS does for a killed process (a
 * committed transaction survives that with WAL).
 */
class Restart implements Cmd {
  constructor(readonly crash: boolean) {}
  check = (): boolean => true;
  async run(m: Model, r: Real): Promise<void> {
    if (this.crash) {
      vi.clearAllTimers();
      m.pending = [];
      for (const s of SESSIONS) m.lastSeq.set(s, m.durable.get(s)!);
    } else {
      for (const { claim } of m.claims) r.spool.release(claim);
      expect(await r.spool.close()).toBe(true);
      commitPending(m);
      deleteAckedUndeleted(m);
    }
    await r.store.close();
    Object.assign(r, await openReal(r.dir, r.memoryMaxBytes));
    afterRestart(m);
    await checkInvariants(m, r);
  }
  toString = (): string => (this.crash ? 'crash + reopen' : 'close + reopen');
}

const session = fc.constantFrom(...SESSIONS);
const kinds = (max: number, filtered: boolean): fc.Arbitrary<boolean[]> =>
  fc.array(filtered ? fc.boolean() : fc.constant(true), { minLength: 1, maxLength: max });
const commands = [
  // Appends and commits dominate, so the store holds enough for claims to interleave with them.
  fc.tuple(session, kinds(5, true)).map(([s, k]) => new Append(s, k)),
  fc.tuple(session, kinds(3, false)).map(([s, k]) => new Append(s, k)),
  fc.tuple(session, kinds(3, false)).map(([s, k]) => new Append(s, k)),
  fc.constant(new Flush(false)),
  fc.constant(new Flush(true)),
  fc.tuple(fc.boolean(), session, kinds(3, true)).map(([fails, s, k]) => new Flush(fails, { sessionId: s, kinds: k })),
  fc.tuple(fc.boolean(), session, kinds(3, false)).map(([fails, s, k]) => new Flush(fails, { sessionId: s, kinds: k })),
  fc.constant(new Tick()),
  fc.integer({ min: 1, max: 6 }).map((n) => new ClaimNext(n)),
  fc.integer({ min: 1, max: 6 }).map((n) => new ClaimNext(n)),
  fc
    .tuple(fc.nat(), fc.constantFrom('ack' as const, 'ack' as const, 'ack, delete fails' as const, 'settle' as const))
    .map(([p, how]) => new Settle(p, how)),
  fc.boolean().map((crash) => new Restart(crash)),
];

describe('Spool against a model', () => {
  const dirs: string[] = [];
  const reals: Real[] = [];
  beforeEach(() => {
    // The spool's timers (the commit interval, retries) run only when a Tick says so.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(async () => {
    vi.clearAllTimers();
    vi.useRealTimers();
    for (const r of reals.splice(0)) await r.store.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('keeps at-least-once, seq order and a checkpoint that never runs ahead of the store', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands(commands, { maxCommands: 40, size: 'max' }),
        fc.constantFrom(40, 1 << 20),
        async (cmds, memoryMaxBytes) => {
          // A small memoryMaxBytes sends most commits to the backlog (read back from the store); a
          // large one keeps them in the ready queue.
          const dir = mkdtempSync(join(memoryTmpdir(), 'spool-model-'));
          dirs.push(dir);
          const real: Real = { dir, memoryMaxBytes, ...(await openReal(dir, memoryMaxBytes)) };
          reals.push(real);
          for (const s of SESSIONS) await real.store.putSession({ id: s, attributes: {} }, 'config');
          const model: Model = {
            lastSeq: new Map(SESSIONS.map((s) => [s, 0])),
            durable: new Map(SESSIONS.map((s) => [s, 0])),
            pending: [],
            stored: new Map(),
            deleted: new Set(),
            everCommitted: new Set(),
            claims: [],
          };
          await fc.asyncModelRun(() => ({ model, real }), cmds);

          // At-least-once: a last clean restart, then a full drain hands out every committed record
          // that was not acknowledged with a durable delete, each once, and leaves the store empty.
          await new Restart(false).run(model, real);
          const drained: string[] = [];
          for (let c = await real.spool.takeBatch(4); c; c = await real.spool.takeBatch(4)) {
            drained.push(...c.segments.flatMap(recordKeys));
            await real.spool.acknowledge(c);
          }
          expect(new Set(drained).size).toBe(drained.length);
          const expected = [...model.everCommitted].filter((k) => !model.deleted.has(k));
          expect(drained.sort()).toEqual(expected.sort());
          expect(real.spool.idle).toBe(true);
          expect((await real.store.spoolTotals()).records).toBe(0);
          await real.spool.close();
          await real.store.close();
        },
      ),
      { numRuns: 100 },
    );
  });
});
