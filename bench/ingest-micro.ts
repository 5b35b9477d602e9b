// Micro-benchmark of an ingest worker's per-event path after the frame decoder, without sockets:
// parse the frame's text (src/upstream/envelope.ts) → map (src/mapping/mapper.ts, default options:
// redaction on) → encode into the outbox's batch and append (src/ingest/outbox.ts), batches posted
// to a no-op that acknowledges them. Not a test; prints CPU µs per event, the whole path and each
// stage alone.
//
//   npx tsx bench/ingest-micro.ts [--reps 7] [--ms 400] [--sessions 100] [--tree DIR]...
//
// The events are the heavy mix of `npm run bench -- live-heavy` (src/devkit/simulator, mix `heavy`:
// every category, 3 % screenshots of 20–40 KB base64, long console texts), as frame text, from
// --sessions sessions interleaved as a worker reads them. Each --tree DIR times that checkout's code
// instead of this tree's (`git archive <commit> | tar -x -C DIR`, node_modules linked), alternating
// timing by timing so a neighbour's burst of load falls on all alike: the before/after of a change
// on a busy machine. Compare two checkouts, not this tree against one: the simulator that makes the
// frames shares this tree's modules (guards, URL helpers), and the type feedback it leaves there
// made the same code time up to 40 % slower here than in a checkout of its own. CPU time of this
// process, not wall time.
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
import type { Envelope } from '../src/upstream/envelope.js';
import type { BridgeLogRecord, SessionContext } from '../src/vocabulary/log-record.js';
import type { RecordToAppend } from '../src/store/pending-segments.js';

const { values: args } = parseArgs({
  options: {
    reps: { type: 'string' },
    ms: { type: 'string' },
    sessions: { type: 'string' },
    tree: { type: 'string', multiple: true },
  },
  strict: true,
});
const reps = Number(args.reps ?? '7');
const budgetMs = Number(args.ms ?? '400');
const sessions = Number(args.sessions ?? '100');
/** Events per session: the frames of all sessions, interleaved, are one pass. */
const PER_SESSION = 60;
/** A worker posts a batch per turn of its event loop; at full rate a turn reads a few dozen frames. */
const EVENTS_PER_TURN = 32;

interface Tree {
  label: string;
  parse: typeof envelopeModule.parseEnvelope;
  mapper: mapperModule.Mapper;
  outbox: outboxModule.Outbox;
}

function treeOf(
  label: string,
  env: typeof envelopeModule,
  m: typeof mapperModule,
  o: typeof outboxModule,
  s: typeof mappingSection,
): Tree {
  const outbox: outboxModule.Outbox = new o.Outbox((msg) => {
    if (msg.t === 'batch') outbox.acked(msg.size);
  }, Number.MAX_SAFE_INTEGER);
  for (let i = 0; i < sessions; i++) outbox.bind(`session-${i}`, i);
  return { label, parse: env.parseEnvelope, mapper: m.createMapper(s.defaultMappingOptions), outbox };
}

async function treeAt(dir: string): Promise<Tree> {
  const root = resolve(dir);
  const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(root, path)).href)) as T;
  return treeOf(
    dir,
    await load('src/upstream/envelope.ts'),
    await load('src/mapping/mapper.ts'),
    await load('src/ingest/outbox.ts'),
    await load('src/config/mapping-section.ts'),
  );
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

async function main(): Promise<void> {
  const trees =
    args.tree === undefined
      ? [treeOf('this tree', envelopeModule, mapperModule, outboxModule, mappingSection)]
      : await Promise.all(args.tree.map(treeAt));
  const { texts, session } = frames();
  const ctxs: SessionContext[] = Array.from({ length: sessions }, (_, i) => ({
    sessionId: `session-${i}`,
    attributes: { 'browser.pool.id': 'pool-1' },
    epoch: 0,
  }));
  const observed = 1_800_000_000_000_000;
  const append: RecordToAppend = { sessionId: '', seq: 0, epoch: 0, tsMicros: 0, record: null, sourceId: undefined };
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

  const stages: Record<string, (t: Tree, k: number) => void> = {
    'whole path': (t) => {
      for (let i = 0; i < texts.length; i++) {
        const r = t.parse(texts[i]!);
        if (!r.ok) throw new Error(r.reason);
        const ctx = ctxs[session[i]!]!;
        const record = t.mapper.map(r.envelope, ctx, observed);
        append.sessionId = ctx.sessionId;
        append.seq = r.envelope.seq;
        append.tsMicros = r.envelope.event.ts;
        append.record = record === null ? null : t.outbox.encode(record);
        t.outbox.append(append);
        if (i % EVENTS_PER_TURN === EVENTS_PER_TURN - 1) t.outbox.flush();
      }
      t.outbox.flush();
    },
    parse: (t) => {
      for (const text of texts) if (!t.parse(text).ok) throw new Error('not parsed');
    },
    map: (t, k) => {
      const { envs } = prepared[k]!;
      for (let i = 0; i < envs.length; i++) t.mapper.map(envs[i]!, ctxs[session[i]!]!, observed);
    },
    'encode + append': (t, k) => {
      const { envs, records } = prepared[k]!;
      for (let i = 0; i < records.length; i++) {
        const record: BridgeLogRecord | null = records[i]!;
        append.sessionId = ctxs[session[i]!]!.sessionId;
        append.seq = envs[i]!.seq;
        append.record = record === null ? null : t.outbox.encode(record);
        t.outbox.append(append);
        if (i % EVENTS_PER_TURN === EVENTS_PER_TURN - 1) t.outbox.flush();
      }
      t.outbox.flush();
    },
  };
  const cpuMicros = (): number => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  const time = (run: (t: Tree, k: number) => void, t: Tree, k: number): number => {
    let passes = 0;
    const t0 = cpuMicros();
    let now: number;
    do {
      run(t, k);
      passes++;
      now = cpuMicros();
    } while (now < t0 + budgetMs * 1000);
    return (now - t0) / passes / texts.length;
  };
  // Warm-up: every stage of every tree once.
  for (const run of Object.values(stages)) trees.forEach((t, k) => time(run, t, k));
  const median = (v: number[]): number => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)]!;
  const chars = texts.reduce((n, t) => n + t.length, 0) / texts.length;
  console.log(
    `node ${process.version}; ${texts.length} frames of the heavy mix (${chars.toFixed(0)} chars on average) from ${sessions} sessions; ` +
      `${reps} timings of ~${budgetMs} ms of CPU per stage and tree: median (fastest)`,
  );
  for (const [name, run] of Object.entries(stages)) {
    const us = trees.map((): number[] => []);
    for (let r = 0; r < reps; r++) {
      // Which tree goes first alternates: the one after a collection-heavy stage inherits its debt.
      const order = r % 2 === 0 ? trees.map((_, k) => k) : trees.map((_, k) => trees.length - 1 - k);
      for (const k of order) us[k]!.push(time(run, trees[k]!, k));
    }
    trees.forEach((t, k) => {
      const label = trees.length > 1 ? ` ${t.label}`.padEnd(28) : '';
      const v = us[k]!;
      console.log(
        `  ${name.padEnd(16)}${label} ${median(v).toFixed(2).padStart(6)} µs/event (CPU; fastest ${Math.min(...v).toFixed(2)})`,
      );
    });
    // Timings taken side by side share the load of their moment: the ratio of each pair moves far
    // less than either figure does.
    for (let k = 1; k < trees.length; k++) {
      const ratios = us[k]!.map((x, r) => x / us[0]![r]!);
      console.log(
        `  ${''.padEnd(16)} ${trees[k]!.label} / ${trees[0]!.label}: ${median(ratios).toFixed(3)} (median of paired timings)`,
      );
    }
  }
}

await main();
