// Micro-benchmark of the SSE frame decoder: src/stream/frame-decoder.ts (bytes) against the decoder
// it replaced, TextDecoder + eventsource-parser (test/unit/stream/reference-frame-decoder.ts), fed
// the chunks a socket hands over. Not a test; prints ns/frame and MB/s per shape of traffic.
//
//   npx tsx bench/frame-decoder-micro.ts [--rounds 2] [--reps 3] [--ms 200]
//
// Shapes: the live regime's one ~1.1 KB event per chunk; the simulator's mix of events (seeded,
// src/devkit/simulator, about a fifth of them with some non-ASCII text) one per chunk; a burst's 10
// events per chunk; a ~970 KB screenshot frame in 64 KiB chunks (as undici reads it); one ~1 KB
// event per chunk whose text is mostly not ASCII.
//
// Each decoder runs in a process of its own (in one process the other decoder's garbage and JIT
// state moved the figures by 2-3x), alternately, --rounds times; a process warms up on every shape,
// then times each --reps times for about --ms; the median of everything is printed.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EventFactory } from '../src/devkit/simulator/events/event-factory.js';
import { createRng } from '../src/devkit/simulator/events/rng.js';
import { CAPTURE_ALL } from '../src/devkit/simulator/pools.js';
import { createFrameDecoder, type Frame, type FrameDecoder } from '../src/stream/frame-decoder.js';
import { createReferenceFrameDecoder } from '../test/unit/stream/reference-frame-decoder.js';

const { values: args } = parseArgs({
  options: { rounds: { type: 'string' }, reps: { type: 'string' }, ms: { type: 'string' }, child: { type: 'string' } },
  strict: true,
});
const rounds = Number(args.rounds ?? '2');
const reps = Number(args.reps ?? '3');
const budgetMs = Number(args.ms ?? '200');

const DECODERS: Record<string, { label: string; make: () => FrameDecoder }> = {
  old: {
    label: 'old (TextDecoder + eventsource-parser)',
    make: () => createReferenceFrameDecoder(() => {}, { settleHeldCR: false }),
  },
  new: { label: 'new (bytes)', make: () => createFrameDecoder(() => {}) },
};

interface Shape {
  name: string;
  /** Chunks of one pass, and how many frames and bytes they hold. */
  chunks: Buffer[];
  frames: number;
  bytes: number;
}

function shapes(): Shape[] {
  const frameText = (seq: number, data: string): string => `id: ${seq}\ndata: ${data}\n\n`;
  const consoleLog = (seq: number, text: string): string =>
    JSON.stringify({
      seq,
      event: {
        ts: 1_700_000_000_000_000 + seq * 1000,
        type: 'console_log',
        category: 'console',
        source: {
          kind: 'cdp',
          event: 'Runtime.consoleAPICalled',
          metadata: { telemetry_session_id: 'b7c9e0f2-5d1a-4c3b-9e8f-0a1b2c3d4e5f', target_id: 'E3F1A2B4C5D6' },
        },
        data: {
          level: 'log',
          text,
          url: 'https://shop.example.com/checkout/assets/app.3f9c2a.js',
          line: 1234,
          column: 56,
        },
      },
    });
  const one = Array.from({ length: 2000 }, (_, i) =>
    frameText(i + 1, consoleLog(i + 1, `[checkout] step ${i} ok: `.padEnd(720, 'cart=3 items total=129.90 EUR; '))),
  );
  const factory = new EventFactory(createRng(7), 'bench', CAPTURE_ALL);
  const mix: string[] = [];
  for (let seq = 1; mix.length < 4000; seq++) {
    const event = factory.next();
    if (event) mix.push(frameText(seq, JSON.stringify({ seq, event })));
  }
  const ten = Array.from({ length: 200 }, (_, j) => one.slice(j * 10, j * 10 + 10).join(''));
  const png = Buffer.from(new Uint8Array(727_000).map((_, i) => (i * 2654435761) >>> 24)).toString('base64');
  const screenshot = Array.from({ length: 8 }, (_, i) =>
    frameText(
      i + 1,
      JSON.stringify({
        seq: i + 1,
        event: {
          ts: 1,
          type: 'monitor_screenshot',
          category: 'monitor',
          source: { kind: 'monitor' },
          data: { format: 'png', width: 1280, height: 720, png },
        },
      }),
    ),
  );
  const unicode = Array.from({ length: 2000 }, (_, i) =>
    frameText(i + 1, consoleLog(i + 1, `Zahlung bestätigt — 注文 ${i} 完了 ✅ `.repeat(18))),
  );

  const make = (name: string, texts: string[], size = Infinity): Shape => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    for (const t of texts) {
      const b = Buffer.from(t);
      bytes += b.length;
      // Each chunk in memory of its own, as a socket read is.
      for (let i = 0; i < b.length; i += size) chunks.push(Buffer.from(b.subarray(i, Math.min(i + size, b.length))));
    }
    return { name, chunks, frames: texts.reduce((n, t) => n + t.split('\n\n').length - 1, 0), bytes };
  };
  const kb = (texts: string[]): string =>
    (texts.reduce((n, t) => n + Buffer.byteLength(t), 0) / texts.length / 1000).toFixed(1);
  return [
    make(`1 frame (~${kb(one)} KB, ASCII) per chunk`, one),
    make(`simulator mix (~${kb(mix)} KB avg), 1 frame per chunk`, mix),
    make('10 frames per chunk', ten),
    make(`${(Buffer.byteLength(screenshot[0]!) / 1000).toFixed(0)} KB frame in 64 KiB chunks`, screenshot, 65536),
    make(`1 frame (~${kb(unicode)} KB, mostly non-ASCII) per chunk`, unicode),
  ];
}

/** In a child: ns per pass of each shape, `reps` times, for one decoder. */
function child(which: string): void {
  const { make } = DECODERS[which]!;
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  let sink = 0;
  const time = (s: Shape): number => {
    gc();
    const out: Frame[] = [];
    let passes = 0;
    const t0 = process.hrtime.bigint();
    const until = t0 + BigInt(budgetMs) * 1_000_000n;
    let now: bigint;
    do {
      const d = make();
      for (const c of s.chunks) {
        d.feed(c, out);
        // As the subscriber does: the frames are used, then the array is emptied.
        for (const f of out) sink += f.data.length;
        out.length = 0;
      }
      d.end(out);
      passes++;
      now = process.hrtime.bigint();
    } while (now < until);
    return Number(now - t0) / passes;
  };
  const all = shapes();
  for (const s of all) time(s);
  const result = all.map((s) => Array.from({ length: reps }, () => time(s)));
  if (sink === 0) throw new Error('nothing decoded');
  process.stdout.write(JSON.stringify(result) + '\n');
}

function main(): void {
  const all = shapes();
  // Both decoders give the same frames for every shape before anything is timed.
  for (const s of all) {
    const [a, b] = Object.values(DECODERS).map(({ make }) => {
      const d = make();
      const out: Frame[] = [];
      for (const c of s.chunks) d.feed(c, out);
      d.end(out);
      return out;
    });
    if (a!.length !== s.frames || JSON.stringify(a) !== JSON.stringify(b))
      throw new Error(`the decoders disagree on ${s.name}`);
  }
  const ns: Record<string, number[][]> = { old: all.map(() => []), new: all.map(() => []) };
  for (let r = 0; r < rounds; r++) {
    for (const which of Object.keys(DECODERS)) {
      const run = spawnSync(
        process.execPath,
        ['--import', 'tsx', import.meta.filename, '--child', which, '--reps', String(reps), '--ms', String(budgetMs)],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
          encoding: 'utf8',
        },
      );
      if (run.status !== 0) throw new Error(`the ${which} decoder's process failed`);
      (JSON.parse(run.stdout) as number[][]).forEach((times, i) => ns[which]![i]!.push(...times));
    }
  }
  const median = (v: number[]): number => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)]!;
  console.log(
    `node ${process.version}; ${rounds} rounds × ${reps} timings of ~${budgetMs} ms per decoder and shape, median`,
  );
  all.forEach((s, i) => {
    console.log(
      `\n${s.name}: ${s.frames} frames, ${(s.bytes / 1e6).toFixed(2)} MB in ${s.chunks.length} chunks per pass`,
    );
    for (const [which, { label }] of Object.entries(DECODERS)) {
      const m = median(ns[which]![i]!);
      console.log(
        `  ${label.padEnd(40)} ${(m / s.frames).toFixed(0).padStart(9)} ns/frame ${((s.bytes / m) * 1e3).toFixed(0).padStart(6)} MB/s`,
      );
    }
  });
}

if (args.child !== undefined) child(args.child);
else main();
