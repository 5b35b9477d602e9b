// Micro-benchmark of an ingest worker's per-event path after the frame decoder, without sockets:
// parse the frame's text (src/upstream/envelope.ts) → map (src/mapping/mapper.ts, default options:
// redaction on; its facts summed by a FactRelay, as in a worker) → encode into the outbox's batch and append (src/ingest/outbox.ts, one append
// object per session as session-records.ts keeps it), batches posted to a no-op that acknowledges
// them. Not a test; prints CPU µs per event, the whole path and each stage alone (`encode`: the
// encoder alone into one reused buffer; `encode + append`: into the outbox's batches; `session`:
// map, encode and append through each session's SessionRecords, as a worker's pipeline applies
// an event).
//
//   npx tsx bench/ingest-micro.ts [--tree DIR]... [--slices 150] [--ms 30] [--stage NAME]...
//                                 [--sessions 100] [--clock thread|process]
//
// The events are the heavy mix of `npm run bench -- live-heavy` (src/devkit/simulator, mix `heavy`:
// every category, 3 % screenshots of 20–40 KB base64, long console texts), as frame text, from
// --sessions sessions interleaved as a worker reads them.
//
// A before/after: each --tree DIR is a checkout whose code is timed (`git archive <commit> src
// package.json | tar -x -C DIR`, node_modules linked). Name the first tree twice, `--tree A --tree
// A --tree B`: the second A is loaded from a fresh copy (modules of its own), the control. The
// trees are timed alternately in many short slices (--slices of --ms ms of CPU each, the order
// reversed every slice, each tree going on through the frames where its last slice stopped), so a
// neighbour's burst of load falls on all of them alike; per stage the output gives each tree's
// median µs an event, the median of its paired ratios (slice by slice) to the first tree with the
// middle half of those ratios, and for a tree after the control its ratio to the control. The
// control's ratio is what identical code reads at this moment (being loaded second is itself worth
// a few percent on some stages): read a change from its ratio to the control, and only when it
// lies outside the control's own spread. On a busy two-core machine whole-run figures of one tree
// moved ±50 % while the medians of paired ratios held within a few percent.
//
// The clock is this thread's CPU time by default: V8's helper threads (concurrent marking and
// sweeping) charge their work to whichever slice runs beside them, which made single slices
// scatter by ±60 %; `--clock process` counts them too.
//
// Compare checkouts, not this tree against one: the simulator that makes the frames shares this
// tree's modules (guards, URL helpers), and the type feedback it leaves there made the same code
// time up to 40 % slower here than in a checkout of its own.
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg as osLoad, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { EventFactory } from '../src/devkit/simulator/events/event-factory.js';
import { createRng } from '../src/devkit/simulator/events/rng.js';
import { CAPTURE_ALL } from '../src/devkit/simulator/pools.js';
import * as mappingSection from '../src/config/mapping-section.js';
import * as mapperModule from '../src/mapping/mapper.js';
import * as envelopeModule from '../src/upstream/envelope.js';
import * as outboxModule from '../src/ingest/outbox.js';
import * as factRelayModule from '../src/ingest/fact-relay.js';
import * as sessionRecordsModule from '../src/session/session-records.js';
import * as encodeModule from '../src/wire/encode-record.js';
import * as writerModule from '../src/wire/proto-writer.js';
import type { Envelope } from '../src/upstream/envelope.js';
import type { BridgeLogRecord, SessionContext } from '../src/vocabulary/log-record.js';
import type { RecordToAppend } from '../src/store/pending-segments.js';

const { values: args } = parseArgs({
  options: {
    slices: { type: 'string' },
    ms: { type: 'string' },
    sessions: { type: 'string' },
    stage: { type: 'string', multiple: true },
    tree: { type: 'string', multiple: true },
    clock: { type: 'string' },
  },
  strict: true,
});
const slices = Number(args.slices ?? '150');
const sliceMs = Number(args.ms ?? '30');
const sessions = Number(args.sessions ?? '100');
// process.threadCpuUsage is Node 23.9+ (and 22's later releases): the process's CPU where it is missing.
const threadClock = (args.clock ?? 'thread') === 'thread' && typeof process.threadCpuUsage === 'function';
/** Events per session: the frames of all sessions, interleaved, are one pass. */
const PER_SESSION = 60;
/** A worker posts a batch per turn of its event loop; at full rate a turn reads a few dozen frames. */
const EVENTS_PER_TURN = 32;

interface Tree {
  label: string;
  parse: typeof envelopeModule.parseEnvelope;
  mapper: mapperModule.Mapper;
  outbox: outboxModule.Outbox;
  /** Where the mapper's facts go, as in a worker (taken between slices, as a worker's report takes them). */
  facts: factRelayModule.FactRelay;
  /** The encoder alone: a record's bytes into one writer, rewound every turn. */
  writeRecord: (record: BridgeLogRecord) => void;
  rewind: () => void;
  /** Per session, what a worker's session pipeline applies an event through (map, encode, append). */
  records: sessionRecordsModule.SessionRecords[];
}

/** A checkout's modules the benchmark runs. */
interface Modules {
  env: typeof envelopeModule;
  m: typeof mapperModule;
  o: typeof outboxModule;
  s: typeof mappingSection;
  e: typeof encodeModule;
  pw: typeof writerModule;
  fr: typeof factRelayModule;
  sr: typeof sessionRecordsModule;
}

const THIS_TREE: Modules = {
  env: envelopeModule,
  m: mapperModule,
  o: outboxModule,
  s: mappingSection,
  e: encodeModule,
  pw: writerModule,
  fr: factRelayModule,
  sr: sessionRecordsModule,
};

function treeOf(label: string, { env, m, o, s, e, pw, fr, sr }: Modules, ctxs: readonly SessionContext[]): Tree {
  const outbox: outboxModule.Outbox = new o.Outbox((msg) => {
    if (msg.t === 'batch') outbox.acked(msg.size);
  }, Number.MAX_SAFE_INTEGER);
  for (let i = 0; i < sessions; i++) outbox.bind(`session-${i}`, i);
  const w = new pw.ProtoWriter(1 << 20);
  const facts = new fr.FactRelay();
  const mapper = m.createMapper(s.defaultMappingOptions, { emit: facts.emit });
  const encode = (record: BridgeLogRecord): Buffer => outbox.encode(record);
  const records = ctxs.map(
    (ctx) =>
      new sr.SessionRecords(
        { ...ctx },
        { mapper, encode, spool: outbox, spans: undefined, emit: facts.emit },
        { checkpoint: 0, epoch: 0 },
      ),
  );
  return {
    label,
    parse: env.parseEnvelope,
    mapper,
    outbox,
    facts,
    writeRecord: (record) => e.writeFramedRecord(w, record),
    rewind: () => w.reset(),
    records,
  };
}

/** Copies made for control trees, removed at exit. */
const copies: string[] = [];

/** A fresh copy of a checkout's code (ESM caches modules by URL: the same path would be the same modules). */
function copyOf(root: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ingest-micro-control-'));
  copies.push(dir);
  cpSync(join(root, 'src'), join(dir, 'src'), { recursive: true });
  cpSync(join(root, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

async function treeAt(dir: string, label: string, ctxs: readonly SessionContext[]): Promise<Tree> {
  const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(dir, path)).href)) as T;
  const modules: Modules = {
    env: await load('src/upstream/envelope.ts'),
    m: await load('src/mapping/mapper.ts'),
    o: await load('src/ingest/outbox.ts'),
    s: await load('src/config/mapping-section.ts'),
    e: await load('src/wire/encode-record.ts'),
    pw: await load('src/wire/proto-writer.ts'),
    fr: await load('src/ingest/fact-relay.ts'),
    sr: await load('src/session/session-records.ts'),
  };
  return treeOf(label, modules, ctxs);
}

/** The --tree checkouts in order; a directory named again is a control, loaded from a copy. */
async function loadTrees(dirs: readonly string[], ctxs: readonly SessionContext[]): Promise<Tree[]> {
  const seen = new Set<string>();
  const trees: Tree[] = [];
  for (const dir of dirs) {
    const root = resolve(dir);
    if (seen.has(root)) trees.push(await treeAt(copyOf(root), `${dir} (control)`, ctxs));
    else trees.push(await treeAt(root, dir, ctxs));
    seen.add(root);
  }
  return trees;
}

/** The heavy mix as frame texts, sessions interleaved. */
function frames(): { texts: string[]; session: number[] } {
  const factories = Array.from(
    { length: sessions },
    (_, i) => new EventFactory(createRng(11 + i), `session-${i}`, CAPTURE_ALL, 'heavy'),
  );
  const texts: string[] = [];
  const session: number[] = [];
  for (let seq = 1; seq <= PER_SESSION; seq++) {
    factories.forEach((f, i) => {
      const json = f.nextJson();
      if (json === undefined) return;
      // Flat, as the frame decoder's Buffer#toString makes it (a concatenation would be a rope).
      texts.push(Buffer.from(`{"seq":${seq},"event":${json}}`).toString('utf8'));
      session.push(i);
    });
  }
  return { texts, session };
}

/** A stage runs events [from, to) of the frames for one tree (k: the tree's index). */
type Stage = (t: Tree, k: number, from: number, to: number) => void;

async function main(): Promise<void> {
  const ctxs: SessionContext[] = Array.from({ length: sessions }, (_, i) => ({
    sessionId: `session-${i}`,
    attributes: { 'browser.pool.id': 'pool-1' },
    epoch: 0,
  }));
  const trees = args.tree === undefined ? [treeOf('this tree', THIS_TREE, ctxs)] : await loadTrees(args.tree, ctxs);
  const { texts, session } = frames();
  const observed = 1_800_000_000_000_000;
  // One append per session, refilled for every event, as session-records.ts keeps it; the stream's
  // source id set, as a live session's is.
  const appends: RecordToAppend[] = ctxs.map((ctx) => ({
    sessionId: ctx.sessionId,
    seq: 0,
    epoch: 0,
    tsMicros: 0,
    record: null,
    sourceId: `source-${ctx.sessionId}`,
  }));
  const envelopes = (t: Tree): Envelope[] =>
    texts.map((text) => {
      const r = t.parse(text);
      if (!r.ok) throw new Error(r.reason);
      return r.envelope;
    });
  const prepared = trees.map((t) => {
    const envs = envelopes(t);
    return { envs, records: envs.map((e, i) => t.mapper.map(e, ctxs[session[i]!]!, observed)) };
  });

  const all: Record<string, Stage> = {
    'whole path': (t, _k, from, to) => {
      for (let i = from; i < to; i++) {
        const r = t.parse(texts[i]!);
        if (!r.ok) throw new Error(r.reason);
        const ctx = ctxs[session[i]!]!;
        const record = t.mapper.map(r.envelope, ctx, observed);
        const append = appends[session[i]!]!;
        append.seq = r.envelope.seq;
        append.tsMicros = r.envelope.event.ts;
        append.record = record === null ? null : t.outbox.encode(record);
        t.outbox.append(append);
        append.record = null;
      }
      t.outbox.flush();
    },
    parse: (t, _k, from, to) => {
      for (let i = from; i < to; i++) if (!t.parse(texts[i]!).ok) throw new Error('not parsed');
    },
    map: (t, k, from, to) => {
      const { envs } = prepared[k]!;
      for (let i = from; i < to; i++) t.mapper.map(envs[i]!, ctxs[session[i]!]!, observed);
    },
    encode: (t, k, from, to) => {
      const { records } = prepared[k]!;
      t.rewind();
      for (let i = from; i < to; i++) {
        const record = records[i]!;
        if (record !== null) t.writeRecord(record);
      }
    },
    'encode + append': (t, k, from, to) => {
      const { envs, records } = prepared[k]!;
      for (let i = from; i < to; i++) {
        const record: BridgeLogRecord | null = records[i]!;
        const append = appends[session[i]!]!;
        append.seq = envs[i]!.seq;
        append.tsMicros = envs[i]!.event.ts;
        append.record = record === null ? null : t.outbox.encode(record);
        t.outbox.append(append);
        append.record = null;
      }
      t.outbox.flush();
    },
    // Map, encode and append as a worker's session applies an event (session-records.ts).
    session: (t, k, from, to) => {
      const { envs } = prepared[k]!;
      for (let i = from; i < to; i++) {
        const h = session[i]!;
        t.records[h]!.event(envs[i]!, appends[h]!.sourceId, observed);
      }
      t.outbox.flush();
    },
  };
  const stages = Object.entries(all).filter(([name]) => args.stage === undefined || args.stage.includes(name));
  if (stages.length === 0) throw new Error(`--stage: one of ${Object.keys(all).join(', ')}`);

  const cpuMicros = (): number => {
    const u = threadClock ? process.threadCpuUsage() : process.cpuUsage();
    return u.user + u.system;
  };
  // Where each tree's next slice starts, per stage: a slice goes on through the frames, a turn of
  // EVENTS_PER_TURN at a time, so every slice sees the mix in the same proportions.
  const cursor = trees.map(() => 0);
  /** One slice: turns until `ms` of CPU are spent; CPU µs per event. */
  const slice = (run: Stage, k: number, ms: number): number => {
    const t = trees[k]!;
    let events = 0;
    const t0 = cpuMicros();
    let now: number;
    do {
      const from = cursor[k]!;
      const to = Math.min(from + EVENTS_PER_TURN, texts.length);
      run(t, k, from, to);
      events += to - from;
      cursor[k] = to === texts.length ? 0 : to;
      now = cpuMicros();
    } while (now < t0 + ms * 1000);
    return (now - t0) / events;
  };
  const sorted = (v: readonly number[]): number[] => [...v].sort((x, y) => x - y);
  const at = (v: readonly number[], q: number): number => v[Math.min(v.length - 1, Math.floor(v.length * q))]!;
  const chars = texts.reduce((n, t) => n + t.length, 0) / texts.length;
  console.log(
    `node ${process.version}; ${texts.length} frames of the heavy mix (${chars.toFixed(0)} chars on average) from ${sessions} sessions; ` +
      `per stage ${slices} slices of ~${sliceMs} ms of CPU per tree, alternating; load ${loadavg()}`,
  );
  const controls: string[] = [];
  const control = trees.findIndex((t) => t.label.endsWith('(control)'));
  for (const [name, run] of stages) {
    // Warm-up: a pass of the frames for every tree, so the slices time optimized code.
    trees.forEach((_, k) => {
      cursor[k] = 0;
      run(trees[k]!, k, 0, texts.length);
    });
    const us = trees.map((): number[] => []);
    for (let s = 0; s < slices; s++) {
      // The order reverses every slice: the tree after a collection-heavy slice inherits its debt.
      for (let j = 0; j < trees.length; j++) {
        const k = s % 2 === 0 ? j : trees.length - 1 - j;
        us[k]!.push(slice(run, k, sliceMs));
        // The outbox schedules its flush with setImmediate, as a worker's turn ends: let those run
        // (out of the timing) rather than pile up a turn's Immediate each for the whole stage.
        await new Promise((done) => setImmediate(done));
        trees[k]!.facts.take();
      }
    }
    trees.forEach((t, k) => {
      const v = sorted(us[k]!);
      let line = `  ${name.padEnd(16)} ${t.label.padEnd(30)} ${at(v, 0.5).toFixed(2).padStart(6)} µs/event`;
      if (k > 0) {
        const r = sorted(us[k]!.map((x, s) => x / us[0]![s]!));
        const ratio = `${at(r, 0.5).toFixed(3)} (middle half ${at(r, 0.25).toFixed(3)}–${at(r, 0.75).toFixed(3)})`;
        line += `   / first: ${ratio}`;
        if (t.label.endsWith('(control)')) controls.push(`${name} ${ratio}`);
        else if (control > 0) {
          // The control shares what being loaded later does to a tree (module order, heap layout).
          const c = sorted(us[k]!.map((x, s) => x / us[control]![s]!));
          line += `   / control: ${at(c, 0.5).toFixed(3)}`;
        }
      }
      console.log(line);
    });
  }
  console.log(
    controls.length > 0
      ? `control (identical code): ${controls.join('; ')}. A ratio reads as a change only outside that.`
      : trees.length > 1
        ? 'no control in this run: name the first tree twice (--tree A --tree A --tree B) to see what identical code reads.'
        : '',
  );
  console.log(`load ${loadavg()}`);
}

function loadavg(): string {
  return osLoad()
    .map((l) => l.toFixed(2))
    .join(' ');
}

try {
  await main();
} finally {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
}
