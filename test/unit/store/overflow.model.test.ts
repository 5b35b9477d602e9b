// Model-based test of the overflow mode (memory first, the spool as overflow) against a model of the
// service: fast-check draws random sequences of the service producing events (its ring buffer
// evicting the oldest), the bridge reading them (from the ring, from the archive when it has one, or
// as a gap record when neither holds them), seals and failing writes, a deliverer waiting with
// nothing to take (a seal for delivery, delivery-seal.ts), the timers firing (checkpoint writes,
// spills by age, seals spaced after the last one), claims acknowledged or given back, a memory window that forces spills,
// a store cut off (every write fails until it is back, as for a replica cut off from PostgreSQL),
// and kill -9 or clean restarts; the spool is real, over a real SQLite store in a temp directory.
//
// The properties (docs/design.md "Delivery semantics"):
// - after every step, the stored checkpoint of a session never passes an event that is neither
//   delivered (acknowledged in some process), nor in the store, nor filtered, nor covered by a
//   delivered gap record: a crash at that moment loses nothing silently; and, traces on, it is a
//   position whose span state was captured, stored with it (reads mark some positions uncaptured);
// - no claim takes a record from memory while an acknowledgement has waited more than
//   CHECKPOINT_STALL_MS for its checkpoint to be written (the spool as a shared store runs it): what
//   a successor sends again is at most that long of acknowledgements plus what was in flight;
// - finally, after a clean restart and a drain with a healthy collector, every event the service
//   produced was delivered at least once, or (only without an archive) is covered by a delivered
//   gap record.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Spool, type Batch } from '../../../src/store/spool.js';
import { CHECKPOINT_STALL_MS } from '../../../src/store/checkpoint-timing.js';
import { DELIVERY_SEAL_SPACING_MS } from '../../../src/store/delivery-seal.js';
import { SqliteStore } from '../../../src/store/sqlite-store.js';
import type { Store } from '../../../src/store/store.js';
import type { SpanStateSource } from '../../../src/store/pending-segments.js';
import { splitRecords, type Segment } from '../../../src/wire/segment-framing.js';
import { memoryTmpdir } from '../../helpers/memory-tmpdir.js';

const SESSIONS = ['a', 'b'] as const;
const RING = 6;
const INTERVAL_MS = 100;

function framed(body: string): Buffer {
  const b = Buffer.from(body);
  return Buffer.concat([Buffer.from([0x12, b.length]), b]);
}
const bodies = (s: Segment): string[] => splitRecords(s.payload).map((r) => r.subarray(2).toString());

class FlakyStore extends SqliteStore {
  failCommits = 0;
  /** Every write fails while set (a replica cut off from its database). */
  cut = false;
  override async commit(...args: Parameters<Store['commit']>): Promise<number[]> {
    if (this.cut) throw new Error('Connection terminated due to connection timeout');
    if (this.failCommits > 0) {
      this.failCommits--;
      throw new Error('SQLITE_FULL: database or disk is full');
    }
    return super.commit(...args);
  }
}

interface World {
  archive: boolean;
  /** Last seq the service produced, per session. */
  head: Map<string, number>;
  /** Last seq this process read, per session. */
  read: Map<string, number>;
  filtered: Set<string>;
  /** Events the current process filtered. */
  filteredHere: Set<string>;
  /** Events delivered in any process (gap records count for the events they cover). */
  delivered: Set<string>;
  /** When the current process had each event acknowledged (fake clock). */
  ackedAt: Map<string, number>;
  /** Events the current process appended without a captured span state (traces on). */
  uncapturedHere: Set<string>;
  /**
   * Events an earlier process read without a captured span state: their copy may be on disk (a
   * spill, a seal committed at the stop) and be what is delivered now, and the checkpoint can never
   * move to such a copy's position.
   */
  uncapturedEarlier: Set<string>;
  /** When (in appends and acknowledgements, a step count) the current process read and acknowledged each event. */
  readStep: Map<string, number>;
  ackStep: Map<string, number>;
  step: number;
  /** Claims refused records from memory because checkpoints waited too long (over the whole run). */
  paused: { claims: number };
  /** Claims handed back to the spool for the store (over the whole run). */
  handed: { claims: number; atSpill: number };
  gapsDelivered: number;
  /** The deliverers holding claims are asleep in their backoff: a spill takes back those that belong on disk. */
  asleep: boolean;
  claims: Batch[];
}

interface Real {
  dir: string;
  window: number;
  store: FlakyStore;
  spool: Spool;
}

async function open(dir: string, window: number): Promise<{ store: FlakyStore; spool: Spool }> {
  const store = new FlakyStore(dir);
  const spool = await Spool.open({
    store,
    mode: 'overflow',
    pauseOnUnwrittenCheckpoints: true,
    maxBytes: 1 << 30,
    memoryMaxBytes: window,
    memoryMaxAgeMs: 5 * INTERVAL_MS,
    commitMaxRecords: Number.MAX_SAFE_INTEGER,
    commitIntervalMs: INTERVAL_MS,
    now: () => Date.now(),
  });
  spool.watchSpill(() => atSpill?.(spool));
  return { store, spool };
}

/** What the run does when a commit is about to spill (delivery gives back the claims asleep in their backoff). */
let atSpill: ((spool: Spool) => void) | undefined;

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));
const key = (s: string, seq: number): string => `${s}:${seq}`;

function deliveredKeys(w: World, c: Batch): void {
  const now = Date.now();
  const ack = (k: string): void => {
    w.delivered.add(k);
    w.ackedAt.set(k, now);
    w.ackStep.set(k, ++w.step);
  };
  for (const seg of c.segments)
    for (const b of bodies(seg)) {
      const m = /^(\w+):g(\d+)-(\d+)$/.exec(b);
      if (!m) {
        ack(b);
        continue;
      }
      w.gapsDelivered++;
      for (let q = Number(m[2]); q <= Number(m[3]); q++) ack(key(m[1]!, q));
    }
}

/**
 * Since when the oldest acknowledgement that could move a stored checkpoint has waited for it to be
 * written, by the model alone: per session, the first event past the stored checkpoint that this
 * process delivered and that can carry the checkpoint, with only events it filtered or delivered
 * before it; undefined when there is none.
 */
async function waitingSince(w: World, r: Real): Promise<number | undefined> {
  let oldest: number | undefined;
  for (const [s, cp] of await checkpoints(r)) {
    const read = w.read.get(s)!;
    for (let q = cp + 1; q <= read; q++) {
      const at = w.ackedAt.get(key(s, q));
      if (at !== undefined && canCarryCheckpoint(w, s, q, read)) {
        oldest = Math.min(oldest ?? at, at);
        break;
      }
      if (at === undefined && !w.filteredHere.has(key(s, q))) break;
    }
  }
  return oldest;
}

/**
 * Traces on, a checkpoint moves only to a position whose span state was captured: the last event of
 * its sealed batch. Seals are not modelled, so an acknowledged event counts only when it was
 * captured and no later event read before its acknowledgement (possibly sealed with it, making
 * that batch's position uncaptured) was not; nor when an earlier process read it, or a later
 * event, uncaptured: the copy delivered may be that process's, from disk (fast-check found a run
 * where a restart forgot that and expected a checkpoint the spool rightly never wrote).
 */
function canCarryCheckpoint(w: World, s: string, q: number, read: number): boolean {
  const k = key(s, q);
  if (w.uncapturedHere.has(k) || w.uncapturedEarlier.has(k)) return false;
  const ackedAt = w.ackStep.get(k)!;
  for (let later = q + 1; later <= read; later++) {
    const l = key(s, later);
    if (w.uncapturedHere.has(l) && (w.readStep.get(l) ?? Infinity) < ackedAt) return false;
    if (w.uncapturedEarlier.has(l)) return false;
  }
  return true;
}

/** In the store now: the events its segments hold (gap records for the events they cover). */
async function storedKeys(r: Real): Promise<Set<string>> {
  const out = new Set<string>();
  for (let after = 0; ;) {
    const segs = await r.store.readSegments(after, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    if (segs.length === 0) return out;
    for (const s of segs)
      for (const b of bodies(s)) {
        const m = /^(\w+):g(\d+)-(\d+)$/.exec(b);
        if (!m) out.add(b);
        else for (let q = Number(m[2]); q <= Number(m[3]); q++) out.add(key(m[1]!, q));
      }
    after = segs[segs.length - 1]!.id;
  }
}

/** Traces on: the span state captured at a position names it; a position marked uncaptured has none. */
const capturedAt =
  (k: string): SpanStateSource =>
  () =>
  () =>
    k;
const UNCAPTURED: SpanStateSource = () => undefined;

async function checkpoints(r: Real): Promise<Map<string, number>> {
  return new Map((await r.store.sessions()).map((row) => [row.spec.id, row.checkpoint]));
}

/** The stored checkpoint never passes an event that is neither delivered, stored nor filtered. */
async function check(w: World, r: Real): Promise<void> {
  const stored = await storedKeys(r);
  // The state stored with a checkpoint is the one captured at that very position.
  for (const row of await r.store.sessions())
    if (row.checkpoint > 0) expect(row.spans, `span state of ${row.spec.id}`).toBe(key(row.spec.id, row.checkpoint));
  for (const [s, cp] of await checkpoints(r)) {
    for (let q = 1; q <= cp; q++) {
      const k = key(s, q);
      expect(w.delivered.has(k) || stored.has(k) || w.filtered.has(k), `checkpoint of ${s} (${cp}) passes ${k}`).toBe(
        true,
      );
    }
  }
}

type Cmd = fc.AsyncCommand<World, Real>;

class Produce implements Cmd {
  constructor(
    readonly s: string,
    readonly n: number,
  ) {}
  check = (): boolean => true;
  async run(w: World): Promise<void> {
    w.head.set(this.s, w.head.get(this.s)! + this.n);
  }
  toString = (): string => `produce(${this.s}, ${this.n})`;
}

/** The bridge reads up to `n` events; `filter` marks which of them the mapping drops. */
function readFrom(
  w: World,
  r: Real,
  s: string,
  n: number,
  filter: readonly boolean[],
  uncaptured: readonly boolean[] = [],
): void {
  const head = w.head.get(s)!;
  let pos = w.read.get(s)!;
  const to = Math.min(head, pos + n);
  const oldest = Math.max(1, head - RING + 1);
  if (pos + 1 < oldest && !w.archive) {
    // Evicted and no archive: a gap record says so (never a silent loss).
    r.spool.append({
      sessionId: s,
      seq: oldest - 1,
      epoch: 0,
      tsMicros: 1,
      record: framed(`${s}:g${pos + 1}-${oldest - 1}`),
      spans: capturedAt(key(s, oldest - 1)),
    });
    pos = oldest - 1;
  }
  for (let q = pos + 1, i = 0; q <= to; q++, i++) {
    const drop = filter[i % Math.max(1, filter.length)] ?? false;
    if (drop) {
      w.filtered.add(key(s, q));
      w.filteredHere.add(key(s, q));
    }
    const missed = uncaptured[i % Math.max(1, uncaptured.length)] ?? false;
    if (missed) w.uncapturedHere.add(key(s, q));
    w.readStep.set(key(s, q), ++w.step);
    const spans = missed ? UNCAPTURED : capturedAt(key(s, q));
    r.spool.append({ sessionId: s, seq: q, epoch: 0, tsMicros: q, record: drop ? null : framed(key(s, q)), spans });
  }
  w.read.set(s, Math.max(pos, to));
}

class Read implements Cmd {
  constructor(
    readonly s: string,
    readonly n: number,
    readonly filter: boolean[],
    readonly uncaptured: boolean[] = [],
  ) {}
  check = (): boolean => true;
  async run(w: World, r: Real): Promise<void> {
    readFrom(w, r, this.s, this.n, this.filter, this.uncaptured);
    await check(w, r);
  }
  toString = (): string =>
    `read(${this.s}, ${this.n}, ${this.filter.map((f) => (f ? '-' : 'r')).join('')}, ${this.uncaptured.map((u) => (u ? 'u' : 'c')).join('')})`;
}

class Flush implements Cmd {
  constructor(readonly fails: boolean) {}
  check = (): boolean => true;
  async run(w: World, r: Real): Promise<void> {
    r.store.failCommits = this.fails ? 1 : 0;
    await r.spool.flush();
    r.store.failCommits = 0;
    await check(w, r);
  }
  toString = (): string => `flush${this.fails ? ' (fails)' : ''}`;
}

/** A deliverer finds nothing to take and waits: what is pending is sealed for it, now or after the spacing. */
class DeliveryWaits implements Cmd {
  check = (): boolean => true;
  async run(w: World, r: Real): Promise<void> {
    void r.spool.waitForData();
    await settle();
    await check(w, r);
  }
  toString = (): string => 'delivery waits';
}

class Tick implements Cmd {
  constructor(readonly ms: number) {}
  check = (): boolean => true;
  async run(w: World, r: Real): Promise<void> {
    await vi.advanceTimersByTimeAsync(this.ms);
    await settle();
    await check(w, r);
  }
  toString = (): string => `tick(${this.ms})`;
}

class ClaimNext implements Cmd {
  constructor(readonly max: number) {}
  check = (): boolean => true;
  async run(w: World, r: Real): Promise<void> {
    const since = await waitingSince(w, r);
    const stalled = since !== undefined && Date.now() - since > CHECKPOINT_STALL_MS;
    const waiting = r.spool.heldBytes.ready > 0;
    const c = await r.spool.takeBatch(this.max);
    if (stalled) {
      const fromMemory = c?.segments.filter((seg) => seg.id < 0).length ?? 0;
      expect(fromMemory, `a claim took records from memory ${Date.now() - since}ms into unwritten checkpoints`).toBe(0);
      if (waiting) w.paused.claims++;
    }
    if (c) w.claims.push(c);
    await check(w, r);
  }
  toString = (): string => `claim(${this.max})`;
}

class Settle implements Cmd {
  constructor(
    readonly pick: number,
    readonly ack: boolean,
  ) {}
  check = (w: Readonly<World>): boolean => w.claims.length > 0;
  async run(w: World, r: Real): Promise<void> {
    const [c] = w.claims.splice(this.pick % w.claims.length, 1) as [Batch];
    if (this.ack) {
      await r.spool.acknowledge(c);
      deliveredKeys(w, c);
    } else r.spool.release(c);
    await check(w, r);
  }
  toString = (): string => `${this.ack ? 'ack' : 'release'}(#${this.pick})`;
}

/**
 * A deliverer gives a claim up after a failed request and a backoff: handed back to the spool when
 * it belongs on disk by then (spilled with what waits behind it), kept in flight otherwise.
 */
class HandBack implements Cmd {
  constructor(readonly pick: number) {}
  check = (w: Readonly<World>): boolean => w.claims.length > 0;
  async run(w: World, r: Real): Promise<void> {
    const i = this.pick % w.claims.length;
    const c = w.claims[i]!;

    if (r.spool.belongsOnDisk(c.segments)) {
      w.claims.splice(i, 1);
      w.handed.claims++;
      await r.spool.handBack(c);
    }
    await check(w, r);
  }
  toString = (): string => `hand back(#${this.pick})`;
}

/** The deliverers fall asleep in their backoff (a spill may take their claims back), or wake and send. */
class Asleep implements Cmd {
  constructor(readonly on: boolean) {}
  check = (): boolean => true;
  async run(w: World, r: Real): Promise<void> {
    w.asleep = this.on;
    await check(w, r);
  }
  toString = (): string => (this.on ? 'deliverers asleep' : 'deliverers awake');
}

/** The store refuses every write from now on (cut off), or takes them again. */
class Cut implements Cmd {
  constructor(readonly on: boolean) {}
  check = (): boolean => true;
  async run(w: World, r: Real): Promise<void> {
    r.store.cut = this.on;
    await check(w, r);
  }
  toString = (): string => (this.on ? 'cut off' : 'link back');
}

/** kill -9 (memory lost, nothing more written) or a clean stop; then a new process reads from the checkpoints. */
class Restart implements Cmd {
  constructor(readonly crash: boolean) {}
  check = (): boolean => true;
  async run(w: World, r: Real): Promise<void> {
    await restart(w, r, this.crash);
    await check(w, r);
  }
  toString = (): string => (this.crash ? 'kill -9 + restart' : 'stop + restart');
}

async function restart(w: World, r: Real, crash: boolean): Promise<void> {
  if (crash) vi.clearAllTimers();
  else {
    for (const c of w.claims) r.spool.release(c);
    await r.spool.finish();
  }
  w.claims = [];
  w.ackedAt.clear();
  w.filteredHere.clear();
  for (const k of w.uncapturedHere) w.uncapturedEarlier.add(k);
  w.uncapturedHere.clear();
  w.readStep.clear();
  w.ackStep.clear();
  const cut = r.store.cut;
  await r.store.close();
  Object.assign(r, await open(r.dir, r.window));
  r.store.cut = cut;
  for (const [s, cp] of await checkpoints(r)) w.read.set(s, cp);
}

const session = fc.constantFrom(...SESSIONS);
const commands = [
  fc.tuple(session, fc.integer({ min: 1, max: 8 })).map(([s, n]) => new Produce(s, n)),
  fc
    .tuple(
      session,
      fc.integer({ min: 1, max: 5 }),
      fc.array(fc.boolean(), { maxLength: 3 }),
      fc.array(fc.boolean(), { maxLength: 3 }),
    )
    .map(([s, n, f, u]) => new Read(s, n, f, u)),
  fc
    .tuple(
      session,
      fc.integer({ min: 1, max: 5 }),
      fc.array(fc.boolean(), { maxLength: 3 }),
      fc.array(fc.boolean(), { maxLength: 3 }),
    )
    .map(([s, n, f, u]) => new Read(s, n, f, u)),
  fc.boolean().map((fails) => new Flush(fails)),
  fc.constant(new DeliveryWaits()),
  fc.constantFrom(DELIVERY_SEAL_SPACING_MS, INTERVAL_MS, 10 * INTERVAL_MS, 25 * INTERVAL_MS).map((ms) => new Tick(ms)),
  // Cut off more often than not, and claims and acknowledgements twice as often: the pause needs
  // acknowledgements, a cut, time, then records waiting in memory.
  fc.constantFrom(true, true, false).map((on) => new Cut(on)),
  fc.integer({ min: 1, max: 6 }).map((n) => new ClaimNext(n)),
  fc.tuple(fc.nat(), fc.constant(true)).map(([p, ack]) => new Settle(p, ack)),
  fc.integer({ min: 1, max: 6 }).map((n) => new ClaimNext(n)),
  fc.tuple(fc.nat(), fc.constantFrom(true, true, true, false)).map(([p, ack]) => new Settle(p, ack)),
  fc.nat().map((p) => new HandBack(p)),
  fc.boolean().map((on) => new Asleep(on)),
  fc.boolean().map((crash) => new Restart(crash)),
];

/**
 * A run that starts cut off, with an acknowledgement that cannot be checkpointed and records waiting
 * in memory past CHECKPOINT_STALL_MS: random commands go on from the pause (random runs alone reach
 * it rarely).
 */
const CUT_OFF_START: readonly Cmd[] = [
  new Cut(true),
  new Produce('a', 6),
  new Read('a', 3, []),
  new Flush(false),
  new ClaimNext(6),
  new Settle(0, true),
  new Read('a', 3, []),
  new Flush(false),
  new Tick(25 * INTERVAL_MS),
  new ClaimNext(6),
];

/**
 * A run whose first claim from memory fails until records read after it spilled by age behind it:
 * handed back, it goes to the store too, and the checkpoint may move over all of them.
 */
const HAND_BACK_START: readonly Cmd[] = [
  new Produce('a', 6),
  new Read('a', 3, []),
  new Flush(false),
  new ClaimNext(6),
  new Read('a', 3, []),
  new Flush(false),
  new Tick(10 * INTERVAL_MS),
  new HandBack(0),
];

/** The same with its deliverer asleep in a backoff: the spill by age takes the claim back first. */
const ASLEEP_START: readonly Cmd[] = [new Asleep(true), ...HAND_BACK_START.slice(0, -1)];

const STARTS: Record<string, readonly Cmd[]> = {
  plain: [],
  cutOff: CUT_OFF_START,
  handBack: HAND_BACK_START,
  asleep: ASLEEP_START,
};

describe('the overflow mode against a service with a ring buffer and an archive', () => {
  const dirs: string[] = [];
  const reals: Real[] = [];
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(async () => {
    vi.clearAllTimers();
    vi.useRealTimers();
    for (const r of reals.splice(0)) await r.store.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('delivers every event at least once, no checkpoint passes what is neither delivered nor on disk, and nothing leaves memory while checkpoints wait too long', async () => {
    const paused = { claims: 0 };
    const handed = { claims: 0, atSpill: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.commands(commands, { maxCommands: 50, size: 'max' }),
        fc.boolean(),
        fc.constantFrom(16, 1 << 20),
        fc.constantFrom(...Object.keys(STARTS)),
        async (cmds, archive, window, start) => {
          // A tiny window spills almost every seal; a large one keeps everything in memory.
          const dir = mkdtempSync(join(memoryTmpdir(), 'overflow-model-'));
          dirs.push(dir);
          const real: Real = { dir, window, ...(await open(dir, window)) };
          reals.push(real);
          for (const s of SESSIONS) await real.store.putSession({ id: s, attributes: {} }, 'config');
          const world: World = {
            archive,
            head: new Map(SESSIONS.map((s) => [s, 0])),
            read: new Map(SESSIONS.map((s) => [s, 0])),
            filtered: new Set(),
            filteredHere: new Set(),
            delivered: new Set(),
            ackedAt: new Map(),
            uncapturedHere: new Set(),
            uncapturedEarlier: new Set(),
            readStep: new Map(),
            ackStep: new Map(),
            step: 0,
            paused,
            handed,
            asleep: false,
            gapsDelivered: 0,
            claims: [],
          };
          atSpill = (spool) => {
            if (!world.asleep) return;
            world.claims = world.claims.filter((c) => {
              if (!spool.belongsOnDisk(c.segments)) return true;
              spool.giveBack(c.segments);
              handed.atSpill++;
              return false;
            });
          };
          await fc.asyncModelRun(() => ({ model: world, real }), [...STARTS[start]!, ...cmds]);
          world.asleep = false;

          // Finally: the link back, a clean restart, everything read, a healthy collector takes it all.
          real.store.cut = false;
          await restart(world, real, false);
          for (const s of SESSIONS) readFrom(world, real, s, Number.MAX_SAFE_INTEGER, []);
          await real.spool.flush();
          for (let c = await real.spool.takeBatch(4); c; c = await real.spool.takeBatch(4)) {
            await real.spool.acknowledge(c);
            deliveredKeys(world, c);
          }
          await real.spool.finish();
          for (const s of SESSIONS)
            for (let q = 1; q <= world.head.get(s)!; q++) {
              const k = key(s, q);
              expect(world.delivered.has(k) || world.filtered.has(k), `${k} never delivered`).toBe(true);
            }
          if (archive) expect(world.gapsDelivered).toBe(0);
          expect(real.spool.idle).toBe(true);
          const cps = await checkpoints(real);
          for (const s of SESSIONS) expect(cps.get(s)).toBe(world.head.get(s));
          await real.store.close();
        },
      ),
      { numRuns: 100 },
    );
    // The runs did reach the pause (with records waiting in memory), not only the healthy path.
    expect(paused.claims).toBeGreaterThan(0);
    // And claims were handed back for the store, not only acknowledged or released.
    expect(handed.claims).toBeGreaterThan(0);
    expect(handed.atSpill).toBeGreaterThan(0);
  }, 120_000);
});
