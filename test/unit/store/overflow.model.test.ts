// Model-based test of the overflow mode (memory first, the spool as overflow) against a model of the
// service: fast-check draws random sequences of the service producing events (its ring buffer
// evicting the oldest), the bridge reading them (from the ring, from the archive when it has one, or
// as a gap record when neither holds them), seals and failing writes, the timers firing (checkpoint
// writes, spills by age), claims acknowledged or given back, a memory window that forces spills,
// and kill -9 or clean restarts; the spool is real, over a real SQLite store in a temp directory.
//
// The properties (docs/design.md "Delivery semantics"):
// - after every step, the stored checkpoint of a session never passes an event that is neither
//   delivered (acknowledged in some process), nor in the store, nor filtered, nor covered by a
//   delivered gap record: a crash at that moment loses nothing silently;
// - finally, after a clean restart and a drain with a healthy collector, every event the service
//   produced was delivered at least once, or (only without an archive) is covered by a delivered
//   gap record.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Spool, type Batch } from '../../../src/store/spool.js';
import { SqliteStore } from '../../../src/store/sqlite-store.js';
import type { Store } from '../../../src/store/store.js';
import { splitRecords, type Segment } from '../../../src/wire/segment-framing.js';

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
  override async commit(...args: Parameters<Store['commit']>): Promise<number[]> {
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
  /** Events delivered in any process (gap records count for the events they cover). */
  delivered: Set<string>;
  gapsDelivered: number;
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
    maxBytes: 1 << 30,
    memoryMaxBytes: window,
    memoryMaxAgeMs: 5 * INTERVAL_MS,
    commitMaxRecords: Number.MAX_SAFE_INTEGER,
    commitIntervalMs: INTERVAL_MS,
    now: () => Date.now(),
  });
  return { store, spool };
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));
const key = (s: string, seq: number): string => `${s}:${seq}`;

function deliveredKeys(w: World, c: Batch): void {
  for (const seg of c.segments)
    for (const b of bodies(seg)) {
      const m = /^(\w+):g(\d+)-(\d+)$/.exec(b);
      if (!m) {
        w.delivered.add(b);
        continue;
      }
      w.gapsDelivered++;
      for (let q = Number(m[2]); q <= Number(m[3]); q++) w.delivered.add(key(m[1]!, q));
    }
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

async function checkpoints(r: Real): Promise<Map<string, number>> {
  return new Map((await r.store.sessions()).map((row) => [row.spec.id, row.checkpoint]));
}

/** The stored checkpoint never passes an event that is neither delivered, stored nor filtered. */
async function check(w: World, r: Real): Promise<void> {
  const stored = await storedKeys(r);
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
function readFrom(w: World, r: Real, s: string, n: number, filter: readonly boolean[]): void {
  const head = w.head.get(s)!;
  let pos = w.read.get(s)!;
  const to = Math.min(head, pos + n);
  const oldest = Math.max(1, head - RING + 1);
  if (pos + 1 < oldest && !w.archive) {
    // Evicted and no archive: a gap record says so (never a silent loss).
    r.spool.append(s, oldest - 1, 0, 1, framed(`${s}:g${pos + 1}-${oldest - 1}`));
    pos = oldest - 1;
  }
  for (let q = pos + 1, i = 0; q <= to; q++, i++) {
    const drop = filter[i % Math.max(1, filter.length)] ?? false;
    if (drop) w.filtered.add(key(s, q));
    r.spool.append(s, q, 0, q, drop ? null : framed(key(s, q)));
  }
  w.read.set(s, Math.max(pos, to));
}

class Read implements Cmd {
  constructor(
    readonly s: string,
    readonly n: number,
    readonly filter: boolean[],
  ) {}
  check = (): boolean => true;
  async run(w: World, r: Real): Promise<void> {
    readFrom(w, r, this.s, this.n, this.filter);
    await check(w, r);
  }
  toString = (): string => `read(${this.s}, ${this.n}, ${this.filter.map((f) => (f ? '-' : 'r')).join('')})`;
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
    const c = await r.spool.takeBatch(this.max);
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
  await r.store.close();
  Object.assign(r, await open(r.dir, r.window));
  for (const [s, cp] of await checkpoints(r)) w.read.set(s, cp);
}

const session = fc.constantFrom(...SESSIONS);
const commands = [
  fc.tuple(session, fc.integer({ min: 1, max: 8 })).map(([s, n]) => new Produce(s, n)),
  fc
    .tuple(session, fc.integer({ min: 1, max: 5 }), fc.array(fc.boolean(), { maxLength: 3 }))
    .map(([s, n, f]) => new Read(s, n, f)),
  fc
    .tuple(session, fc.integer({ min: 1, max: 5 }), fc.array(fc.boolean(), { maxLength: 3 }))
    .map(([s, n, f]) => new Read(s, n, f)),
  fc.boolean().map((fails) => new Flush(fails)),
  fc.constantFrom(INTERVAL_MS, 10 * INTERVAL_MS).map((ms) => new Tick(ms)),
  fc.integer({ min: 1, max: 6 }).map((n) => new ClaimNext(n)),
  fc.tuple(fc.nat(), fc.constantFrom(true, true, true, false)).map(([p, ack]) => new Settle(p, ack)),
  fc.boolean().map((crash) => new Restart(crash)),
];

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

  it('delivers every event at least once, and no checkpoint passes what is neither delivered nor on disk', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands(commands, { maxCommands: 50, size: 'max' }),
        fc.boolean(),
        fc.constantFrom(16, 1 << 20),
        async (cmds, archive, window) => {
          // A tiny window spills almost every seal; a large one keeps everything in memory.
          const dir = mkdtempSync(join(tmpdir(), 'overflow-model-'));
          dirs.push(dir);
          const real: Real = { dir, window, ...(await open(dir, window)) };
          reals.push(real);
          for (const s of SESSIONS) await real.store.putSession({ id: s, attributes: {} }, 'config');
          const world: World = {
            archive,
            head: new Map(SESSIONS.map((s) => [s, 0])),
            read: new Map(SESSIONS.map((s) => [s, 0])),
            filtered: new Set(),
            delivered: new Set(),
            gapsDelivered: 0,
            claims: [],
          };
          await fc.asyncModelRun(() => ({ model: world, real }), cmds);

          // Finally: a clean restart, everything read, a healthy collector takes it all.
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
  }, 120_000);
});
