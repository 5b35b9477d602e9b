// Where the memory of connected, idle sessions is: starts the simulator, the sink and the bridge
// (in this process, as the benchmark runs it) with N idle heavy-mix sessions, waits until all are
// streaming, and has every thread report (bench/memory-probe.ts) its memoryUsage, heap spaces and,
// with --snapshot, a heap snapshot summarised by constructor (self size; count).
//
//   npx tsc -p tsconfig.bench.json --outDir .bench-build/mem
//   node --expose-gc --import ./.bench-build/mem/bench/memory-probe.js \
//     .bench-build/mem/bench/connected-memory.js [--sessions 1000] [--snapshot]
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HEAVY_SESSION } from './scenario-context.js';
import { produce, startLive } from './live-sessions.js';
import { sleep, until } from './wait.js';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '1000' },
    snapshot: { type: 'boolean', default: false },
    // Events per second per session; the threads report after 20 s of it (0: idle sessions).
    rate: { type: 'string', default: '0' },
  },
});
const sessions = Number(values.sessions);
const dir = process.env.BENCH_MEMORY_PROBE_DIR;
if (dir === undefined) throw new Error('run with --import …/memory-probe.js and BENCH_MEMORY_PROBE_DIR set');
const tmpRoot = mkdtempSync(join(tmpdir(), 'conn-mem-'));
const mib = (n: number): string => (n / 1048576).toFixed(1);

const rssBefore = process.memoryUsage.rss();
const rate = Number(values.rate);
const live = await startLive({ name: 'connected-memory', tmpRoot }, sessions, 2000, HEAVY_SESSION);
try {
  // Its polling may outlive the run (stop() ends the simulator first): its end is not awaited.
  if (rate > 0) produce(live.sim.url, sessions, rate, rate * 60, 90_000).catch(() => undefined);
  await sleep(rate > 0 ? 20_000 : 5000); // idle: let connection setup's garbage go
  writeFileSync(join(dir, 'go'), '');
  const threads = process.env.BRIDGE_WORKERS === '0' ? 1 : 2; // one ingest worker on this machine's default
  await until(async () => readdirSync(dir).filter((f) => f.endsWith('.json')).length >= threads, 120_000, 250);
  const rss = process.memoryUsage.rss();
  process.stdout.write(`sessions ${sessions}: RSS ${mib(rss)} MiB (before the bridge ${mib(rssBefore)})\n`);
  // Anonymous (heaps, malloc) against file-backed (the node binary's pages) resident memory.
  const status = readFileSync('/proc/self/status', 'utf8');
  process.stdout.write(
    `  ${status
      .split('\n')
      .filter((l) => /^Rss(Anon|File)/.test(l))
      .join(', ')
      .replace(/\s+/g, ' ')}\n`,
  );
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    const r = JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
      name: string;
      beforeGc: NodeJS.MemoryUsage;
      memory: NodeJS.MemoryUsage;
      spaces: Record<string, { size: number; used: number }>;
      snapshot: string | null;
    };
    const m = r.memory;
    const b = r.beforeGc;
    process.stdout.write(
      `${r.name} before the collection: heap ${mib(b.heapUsed)}/${mib(b.heapTotal)} external ${mib(b.external)} arrayBuffers ${mib(b.arrayBuffers)}\n`,
    );
    process.stdout.write(
      `${r.name}: heap ${mib(m.heapUsed)}/${mib(m.heapTotal)} external ${mib(m.external)} arrayBuffers ${mib(m.arrayBuffers)}\n`,
    );
    for (const [space, s] of Object.entries(r.spaces))
      if (s.size > 0) process.stdout.write(`  ${space}: ${mib(s.used)} used / ${mib(s.size)}\n`);
    if (r.snapshot !== null) summarise(r.snapshot);
  }
} finally {
  await live.stop();
  rmSync(tmpRoot, { recursive: true, force: true });
}

/** Self size and count per constructor (node name), the 25 largest. */
function summarise(file: string): void {
  if (!existsSync(file)) return;
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const types = snap.snapshot.meta.node_types[0];
  const by = new Map<string, { size: number; count: number }>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const name = type === 'object' || type === 'closure' ? snap.strings[snap.nodes[i + nameAt]!]! : `(${type})`;
    const e = by.get(name) ?? { size: 0, count: 0 };
    e.size += snap.nodes[i + sizeAt]!;
    e.count += 1;
    by.set(name, e);
  }
  const top = [...by].sort((a, b) => b[1].size - a[1].size).slice(0, 25);
  for (const [name, e] of top)
    process.stdout.write(`    ${mib(e.size).padStart(7)} MiB ${String(e.count).padStart(8)}  ${name.slice(0, 70)}\n`);
}
