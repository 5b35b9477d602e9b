// What the bridge's resident memory is made of while the heavy mix flows, over time: the simulator,
// the sink and the bridge (in this process, as the benchmark runs it) with N heavy-mix sessions
// producing at a rate; every `--every-ms` the main thread samples RSS (VmRSS, VmHWM, anonymous and
// file-backed), its heap spaces, `external` / `arrayBuffers` and the records held in memory
// (bridge_memory_held_bytes by stage), and every ingest worker appends its own heap spaces
// (bench/memory-probe.ts, series mode). Prints one row a second, the row at which the peak (VmHWM)
// was set, so what is at its maximum then can be read off, and each thread's collections (count and
// wall-clock milliseconds: on a loaded machine the milliseconds include waiting for a core).
//
//   npx tsc -p tsconfig.bench.json --outDir .bench-build/mem
//   BENCH_MEMORY_PROBE_DIR=$(mktemp -d) BENCH_MEMORY_PROBE_EVERY_MS=100 node --import \
//     ./.bench-build/mem/bench/memory-probe.js .bench-build/mem/bench/memory-timeline.js \
//     [--sessions 1000] [--rate 20] [--seconds 20] [--every-ms 100]
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gcTotals, heapSpaces } from './memory-probe.js';
import { HEAVY_SESSION } from './scenario-context.js';
import { produce, startLive } from './live-sessions.js';
import { sinkStats } from './peers.js';
import { until } from './wait.js';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '1000' },
    rate: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '20' },
    'every-ms': { type: 'string', default: '100' },
  },
});
const sessions = Number(values.sessions);
const rate = Number(values.rate);
const everyMs = Number(values['every-ms']);
const dir = process.env.BENCH_MEMORY_PROBE_DIR;
if (dir === undefined) throw new Error('run with --import …/memory-probe.js and BENCH_MEMORY_PROBE_DIR set');
const tmpRoot = mkdtempSync(join(tmpdir(), 'mem-timeline-'));
const mib = (n: number): number => Math.round(n / 1048576);

type Spaces = Record<string, { size: number; used: number }>;
type GcTotals = ReturnType<typeof gcTotals>;
interface ThreadSample {
  t: number;
  gc?: GcTotals;
  external: number;
  arrayBuffers: number;
  spaces: Spaces;
}
interface Sample extends ThreadSample {
  rss: number;
  hwm: number;
  anon: number;
  file: number;
  held: number;
  malloc: number;
  otherAnon: number;
}

/**
 * Resident anonymous memory that glibc's malloc holds (its main arena, `[heap]`, and the 64 MiB
 * aligned heaps of its thread arenas) against the rest (V8's pages, large mmapped blocks): where
 * the bytes outside the V8 heaps are, including what was freed and not given back to the kernel.
 * A guess from the mappings' shapes (a V8 region may start 64 MiB aligned too): read it as a trend.
 */
function mallocResident(): { malloc: number; otherAnon: number } {
  let malloc = 0;
  let otherAnon = 0;
  let current: 'malloc' | 'other' | 'file' = 'file';
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-[0-9a-f]+ (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      const [, start, perms, inode, path] = head;
      if (path === '[heap]') current = 'malloc';
      else if (inode !== '0' || (path ?? '').startsWith('/')) current = 'file';
      else if (perms === 'rw-p' && BigInt(`0x${start}`) % (64n << 20n) === 0n) current = 'malloc';
      else current = 'other';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss) continue;
    if (current === 'malloc') malloc += Number(rss[1]) * 1024;
    else if (current === 'other') otherAnon += Number(rss[1]) * 1024;
  }
  return { malloc, otherAnon };
}

function status(): { rss: number; hwm: number; anon: number; file: number } {
  const s = readFileSync('/proc/self/status', 'utf8');
  const kb = (k: string): number => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM'), anon: kb('RssAnon'), file: kb('RssFile') };
}

const live = await startLive(
  { name: 'memory-timeline', tmpRoot },
  sessions,
  rate * Number(values.seconds) + 100,
  HEAVY_SESSION,
);
const samples: Sample[] = [];
const mainGc = gcTotals();
let heldNow = 0;
let smapsNow = { malloc: 0, otherAnon: 0 };
let smapsAt = 0;
try {
  const registry = live.bridge.bridge.metrics.registry;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    // smaps is long (a line per mapping and field): read it once a second.
    if (Date.now() - smapsAt >= 1000) {
      smapsNow = mallocResident();
      smapsAt = Date.now();
    }
    samples.push({
      t: Date.now(),
      ...status(),
      ...smapsNow,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      spaces: heapSpaces(),
      held: heldNow,
    });
    void registry.family('bridge_memory_held_bytes').then((f) => {
      heldNow = (f?.samples ?? []).reduce((a, s) => a + (typeof s.value === 'number' ? s.value : 0), 0);
    });
  }, everyMs);
  const perSession = rate * Number(values.seconds);
  await produce(live.sim.url, sessions, rate, perSession, (4 * perSession * 1000) / rate);
  await until(async () => (await sinkStats(live.sink.url)).unique >= sessions * perSession, 60_000, 250);
  clearInterval(timer);
} finally {
  await live.stop();
  rmSync(tmpRoot, { recursive: true, force: true });
}

const workerFile = readdirSync(dir).find((f) => f.endsWith('.jsonl'));
const worker: ThreadSample[] = workerFile
  ? readFileSync(join(dir, workerFile), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ThreadSample)
  : [];
const nearest = (t: number): ThreadSample | undefined => {
  let best: ThreadSample | undefined;
  for (const w of worker) if (!best || Math.abs(w.t - t) < Math.abs(best.t - t)) best = w;
  return best;
};
const size = (s: Spaces | undefined, k: string): number => mib(s?.[k]?.size ?? 0);
const used = (s: Spaces | undefined, k: string): number => mib(s?.[k]?.used ?? 0);
/** Every space's committed bytes: the thread's whole heap. */
const heap = (s: Spaces | undefined): number => mib(Object.values(s ?? {}).reduce((a, x) => a + x.size, 0));
const header =
  't(s)  rss  hwm anon file malloc other | main heap new(used) old(used) lo nlo ext ab held | worker heap new(used) old(used) lo nlo ext ab';
const row = (s: Sample, t0: number): string => {
  const w = nearest(s.t);
  return [
    ((s.t - t0) / 1000).toFixed(1).padStart(5),
    mib(s.rss),
    mib(s.hwm),
    mib(s.anon),
    mib(s.file),
    mib(s.malloc),
    mib(s.otherAnon),
    '|',
    heap(s.spaces),
    `${size(s.spaces, 'new_space')}(${used(s.spaces, 'new_space')})`,
    `${size(s.spaces, 'old_space')}(${used(s.spaces, 'old_space')})`,
    size(s.spaces, 'large_object_space'),
    size(s.spaces, 'new_large_object_space'),
    mib(s.external),
    mib(s.arrayBuffers),
    mib(s.held),
    '|',
    heap(w?.spaces),
    `${size(w?.spaces, 'new_space')}(${used(w?.spaces, 'new_space')})`,
    `${size(w?.spaces, 'old_space')}(${used(w?.spaces, 'old_space')})`,
    size(w?.spaces, 'large_object_space'),
    size(w?.spaces, 'new_large_object_space'),
    mib(w?.external ?? 0),
    mib(w?.arrayBuffers ?? 0),
  ].join(' ');
};
const t0 = samples[0]?.t ?? 0;
process.stdout.write(`${header}\n`);
let nextT = t0;
for (const s of samples)
  if (s.t >= nextT) {
    process.stdout.write(row(s, t0) + '\n');
    nextT = s.t + 1000;
  }
const top = samples.reduce((a, s) => (s.rss > a.rss ? s : a), samples[0]!);
const hwmAt = samples.find((s) => s.hwm >= samples[samples.length - 1]!.hwm)!;
// GC while events flowed (from the first sample), per thread: young (scavenges) and full collections.
const gcLine = (name: string, first: GcTotals | undefined, last: GcTotals | undefined): string => {
  const d = (k: 'minor' | 'major'): string =>
    `${(last?.[k].count ?? 0) - (first?.[k].count ?? 0)} ${k} ${((last?.[k].ms ?? 0) - (first?.[k].ms ?? 0)).toFixed(0)} ms`;
  return `${name} GC: ${d('minor')}, ${d('major')}\n`;
};
process.stdout.write(gcLine('main', samples[0]?.gc, mainGc));
process.stdout.write(gcLine('worker', nearest(t0)?.gc, worker[worker.length - 1]?.gc));
process.stdout.write(`highest sampled RSS:\n${row(top, t0)}\nVmHWM reached its final value by:\n${row(hwmAt, t0)}\n`);
