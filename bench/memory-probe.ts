// Preloaded into the bridge's process (`node --import …/memory-probe.js`), and so into every worker
// thread too (a worker inherits the process's execArgv). Two modes, for the two memory benches:
// - once (bench/connected-memory.ts): when the file `go` appears in BENCH_MEMORY_PROBE_DIR, each
//   thread writes its memoryUsage, heap space statistics and, with BENCH_MEMORY_PROBE_SNAPSHOT=1, a
//   heap snapshot there. A file trigger, because the bridge's worker has no channel to the benchmark.
// - a series (bench/memory-timeline.ts): with BENCH_MEMORY_PROBE_EVERY_MS set, each thread appends
//   one JSON line of its heap spaces and memoryUsage to `<thread>.jsonl` at that interval.
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { isMainThread, threadId } from 'node:worker_threads';

const dir = process.env.BENCH_MEMORY_PROBE_DIR;
const everyMs = Number(process.env.BENCH_MEMORY_PROBE_EVERY_MS ?? 0);

/** Each heap space's committed and used bytes. */
export function heapSpaces(): Record<string, { size: number; used: number }> {
  return Object.fromEntries(
    getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]),
  );
}

/** This thread's garbage collections since gcTotals was first called: count and milliseconds, by kind. */
const gc = { minor: { count: 0, ms: 0 }, major: { count: 0, ms: 0 } };
let observing = false;
export function gcTotals(): typeof gc {
  if (!observing) {
    observing = true;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const kind = (e.toJSON() as { detail?: { kind?: number } }).detail?.kind;
        const k = kind === constants.NODE_PERFORMANCE_GC_MINOR ? gc.minor : gc.major;
        k.count++;
        k.ms += e.duration;
      }
    }).observe({ entryTypes: ['gc'] });
  }
  return gc;
}

if (dir !== undefined) {
  const name = isMainThread ? 'main' : `worker-${threadId}`;
  if (everyMs > 0) {
    // Only the bridge's threads: the timeline samples its own main thread itself.
    if (!isMainThread) {
      const file = join(dir, `${name}.jsonl`);
      gcTotals();
      const timer = setInterval(() => {
        const m = process.memoryUsage();
        const line = { t: Date.now(), external: m.external, arrayBuffers: m.arrayBuffers, spaces: heapSpaces(), gc };
        appendFileSync(file, JSON.stringify(line) + '\n');
      }, everyMs);
      timer.unref();
    }
  } else {
    const timer = setInterval(() => {
      if (!existsSync(join(dir, 'go'))) return;
      clearInterval(timer);
      // A full collection first (when exposed): what is left is what the connections hold. What the
      // thread held before it is reported too (while events flow, the garbage is part of the RSS).
      const beforeGc = process.memoryUsage();
      (globalThis as { gc?: () => void }).gc?.();
      const spaces = heapSpaces();
      const snapshot =
        process.env.BENCH_MEMORY_PROBE_SNAPSHOT === '1' ? writeHeapSnapshot(join(dir, `${name}.heapsnapshot`)) : null;
      writeFileSync(
        join(dir, `${name}.json`),
        JSON.stringify({ name, beforeGc, memory: process.memoryUsage(), spaces, snapshot }),
      );
    }, 250);
    timer.unref();
  }
}
