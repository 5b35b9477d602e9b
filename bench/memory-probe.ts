// Preloaded into the bridge's process (`node --import …/memory-probe.js`), and so into every worker
// thread too (a worker inherits the process's execArgv): when the file `go` appears in
// BENCH_MEMORY_PROBE_DIR, each thread writes its memoryUsage, heap space statistics and, with
// BENCH_MEMORY_PROBE_SNAPSHOT=1, a heap snapshot there. A file trigger, because the bridge's worker
// has no channel to the benchmark; used by bench/connected-memory.ts.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { isMainThread, threadId } from 'node:worker_threads';

const dir = process.env.BENCH_MEMORY_PROBE_DIR;
if (dir !== undefined) {
  const name = isMainThread ? 'main' : `worker-${threadId}`;
  const timer = setInterval(() => {
    if (!existsSync(join(dir, 'go'))) return;
    clearInterval(timer);
    // A full collection first (when exposed): what is left is what the connections hold. What the
    // thread held before it is reported too (while events flow, the garbage is part of the RSS).
    const beforeGc = process.memoryUsage();
    (globalThis as { gc?: () => void }).gc?.();
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]),
    );
    const snapshot =
      process.env.BENCH_MEMORY_PROBE_SNAPSHOT === '1' ? writeHeapSnapshot(join(dir, `${name}.heapsnapshot`)) : null;
    writeFileSync(
      join(dir, `${name}.json`),
      JSON.stringify({ name, beforeGc, memory: process.memoryUsage(), spaces, snapshot }),
    );
  }, 250);
  timer.unref();
}
