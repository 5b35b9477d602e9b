// What the span states written with the checkpoints carry, and what the SQLite store writes for
// them (docs/traces.md "Limits today"), without a daemon: sessions of the simulator's heavy mix (the
// events `live-heavy` sends, templates and screenshots included) are mapped and fed to span taps,
// whose spans a traces endpoint acknowledges --ack-ms after they were offered (the span export's
// 200 ms linger and a request's round trip); every second each session's batch is sealed and the
// checkpoints are committed, with the states the taps captured, as the overflow spool does.
//
//   npx tsx bench/span-state-bytes.ts [--sessions 200] [--seconds 60] [--rate 20] [--ack-ms 250]
//
// Prints one JSON line: the records' encoded bytes (the OTLP bytes, near enough), the states'
// characters by part (open pages, open requests, the rest of the open state, the unacknowledged
// spans), their compressed bytes with and without the unacknowledged spans, and the bytes SQLite
// wrote per record byte (`wchar`: what it handed to the kernel; `dirtied`: /proc's write_bytes,
// pages newly dirtied, what `live-heavy` reports) for the same checkpoints written: without states
// (traces off), as the bridge writes them, without the unacknowledged spans, with every session's
// capture held to a common 5 s grid, and off and on again in a database of 64 KiB pages (the
// always mode's, and every mode's before the overflow mode's pages became 4 KiB). Not a test;
// Linux only.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { deflateRawSync } from 'node:zlib';
import { defaultMappingOptions } from '../src/config/mapping-section.js';
import { EventFactory } from '../src/devkit/simulator/events/event-factory.js';
import { createRng } from '../src/devkit/simulator/events/rng.js';
import { CAPTURE_ALL } from '../src/devkit/simulator/pools.js';
import { createMapper } from '../src/mapping/mapper.js';
import { spanTapFactory, type SpanSink } from '../src/session/span-tap.js';
import { openSqliteStore } from '../src/store/sqlite-store.js';
import { ALWAYS_PAGE_SIZE, OVERFLOW_PAGE_SIZE } from '../src/store/sqlite-page-size.js';
import type { CheckpointUpdate } from '../src/store/store.js';
import type { Envelope } from '../src/upstream/envelope.js';
import { createRecordEncoder } from '../src/wire/encode-record.js';

const { values: a } = parseArgs({
  options: {
    sessions: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '60' },
    rate: { type: 'string', default: '20' },
    'ack-ms': { type: 'string', default: '250' },
  },
  strict: true,
});
const sessions = Number(a.sessions);
const seconds = Number(a.seconds);
const rate = Number(a.rate);
const ackMs = Number(a['ack-ms']);

/** One session's checkpoint at the end of a second; `state` when its tap captured one there. */
interface Move {
  id: string;
  seq: number;
  state?: string;
}

/** The same state without its unacknowledged spans (traces/span-state.ts writes them last). */
const withoutUnsent = (state: string): string => state.slice(0, state.lastIndexOf(',"unsent":')) + ',"unsent":[]}';

let t = 0;
const inFlight: Array<{ at: number; span: Buffer; owner?: { settled(span: Buffer): void } }> = [];
const endpoint: SpanSink = { offer: (spans, owner) => spans.forEach((span) => inFlight.push({ at: t, span, owner })) };
const taps = spanTapFactory(endpoint, { now: () => t });
const mapper = createMapper(defaultMappingOptions, { screenshots: { write: () => '/dev/null' } });
const encode = createRecordEncoder();
const all = Array.from({ length: sessions }, (_, i) => {
  const id = `s${i}`;
  return { id, factory: new EventFactory(createRng(100 + i), id, CAPTURE_ALL, 'heavy'), tap: taps(id), seq: 0 };
});

const parts = { openPages: 0, openRequests: 0, openRest: 0, unacknowledged: 0, unacknowledgedSpans: 0 };
let recordBytes = 0;
let states = 0;
let compressed = 0;
let compressedOpenOnly = 0;
let largestCompressed = 0;
const timeline: Move[][] = [];
for (let sec = 1; sec <= seconds; sec++) {
  for (let k = 0; k < rate; k++) {
    t = (sec - 1) * 1000 + (k * 1000) / rate;
    for (const s of all) {
      const env: Envelope = { seq: ++s.seq, event: JSON.parse(s.factory.nextJson()!) as Envelope['event'] };
      const record = mapper.map(env, { sessionId: s.id, attributes: {}, epoch: 0 }, env.event.ts);
      s.tap.observe(env, record);
      if (record !== null) recordBytes += encode(record).length;
    }
    while (inFlight.length > 0 && inFlight[0]!.at <= t - ackMs) {
      const q = inFlight.shift()!;
      q.owner?.settled(q.span);
    }
  }
  t = sec * 1000;
  const moves: Move[] = [];
  for (const s of all) {
    const capture = s.tap.checkpoint();
    if (capture === undefined) {
      moves.push({ id: s.id, seq: s.seq });
      continue;
    }
    const state = capture();
    const parsed = JSON.parse(state) as { open: { docs: unknown[]; requests: unknown[] }; unsent: string[] };
    const open = JSON.stringify(parsed.open);
    const pages = JSON.stringify(parsed.open.docs).length;
    const requests = JSON.stringify(parsed.open.requests).length;
    parts.openPages += pages;
    parts.openRequests += requests;
    parts.openRest += open.length - pages - requests;
    parts.unacknowledged += state.length - open.length;
    parts.unacknowledgedSpans += parsed.unsent.length;
    const packed = deflateRawSync(state, { level: 1 }).length;
    compressed += packed;
    largestCompressed = Math.max(largestCompressed, packed);
    compressedOpenOnly += deflateRawSync(withoutUnsent(state), { level: 1 }).length;
    states++;
    moves.push({ id: s.id, seq: s.seq, state });
  }
  timeline.push(moves);
}

function io(): { wchar: number; dirtied: number } {
  const text = readFileSync('/proc/self/io', 'utf8');
  const field = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)![1]);
  return { wchar: field('wchar'), dirtied: field('write_bytes') };
}

type Variant = 'off' | 'on' | 'withoutUnacknowledged' | 'grid5s' | 'off64k' | 'on64k';
/** The checkpoints `variant` commits at second `i`; `held` keeps grid5s's captures until the grid's next line. */
function movesOf(variant: Variant, i: number, held: Map<string, Move>): CheckpointUpdate[] {
  let moves = timeline[i]!;
  if (variant === 'off' || variant === 'off64k')
    return moves.map((m) => ({ sessionId: m.id, checkpoint: m.seq, epoch: 0 }));
  if (variant === 'grid5s') {
    for (const m of moves) if (m.state !== undefined) held.set(m.id, m);
    if ((i + 1) % 5 !== 0) return [];
    moves = [...held.values()];
    held.clear();
  }
  const out: CheckpointUpdate[] = [];
  for (const m of moves) {
    if (m.state === undefined) continue; // traces on: the checkpoint moves only where the state was captured
    const state = variant === 'withoutUnacknowledged' ? withoutUnsent(m.state) : m.state;
    out.push({ sessionId: m.id, checkpoint: m.seq, epoch: 0, spans: () => state });
  }
  return out;
}

async function written(variant: Variant): Promise<{ wchar: number; dirtied: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'span-state-bytes-'));
  try {
    // The overflow mode's pages, or the always mode's (and every mode's before 2026-11-28).
    const store = await openSqliteStore(dir, variant.endsWith('64k') ? { pageSize: ALWAYS_PAGE_SIZE } : {});
    for (const s of all) await store.putSession({ id: s.id, attributes: {} }, 'config');
    const held = new Map<string, Move>();
    const sum = { wchar: 0, dirtied: 0 };
    for (let i = 0; i < timeline.length; i++) {
      const before = io();
      await store.commit([], movesOf(variant, i, held));
      const after = io();
      sum.wchar += after.wchar - before.wchar;
      sum.dirtied += after.dirtied - before.dirtied;
    }
    await store.close();
    return sum;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const perRecordByte = (n: number): number => +(n / recordBytes).toFixed(4);
const sqlite: Record<string, { wchar: number; dirtied: number }> = {};
for (const v of ['off', 'on', 'withoutUnacknowledged', 'grid5s', 'off64k', 'on64k'] as const) {
  const w = await written(v);
  sqlite[v] = { wchar: perRecordByte(w.wchar), dirtied: perRecordByte(w.dirtied) };
}
const stateChars = parts.openPages + parts.openRequests + parts.openRest + parts.unacknowledged;
console.log(
  JSON.stringify({
    sessions,
    seconds,
    rate,
    ackMs,
    pageSize: OVERFLOW_PAGE_SIZE,
    recordBytes,
    states,
    stateChars,
    share: {
      openPages: +(parts.openPages / stateChars).toFixed(3),
      openRequests: +(parts.openRequests / stateChars).toFixed(3),
      openRest: +(parts.openRest / stateChars).toFixed(3),
      unacknowledged: +(parts.unacknowledged / stateChars).toFixed(4),
    },
    unacknowledgedSpansPerState: +(parts.unacknowledgedSpans / states).toFixed(1),
    compressed,
    compressedWithoutUnacknowledged: compressedOpenOnly,
    largestCompressed,
    compressedPerRecordByte: perRecordByte(compressed),
    sqlitePerRecordByte: sqlite,
  }),
);
