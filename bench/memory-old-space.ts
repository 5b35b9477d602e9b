// How far an ingest worker's old space grows past what is alive before V8 collects it, under the
// limits the bridge gives the worker (src/ingest/worker-group.ts) and under V8's defaults: the same
// allocation, counted, in a worker thread each. The worker keeps ~20 MiB alive (as the bridge's
// worker does with 1,000 heavy sessions) and allocates records of which a share outlives two
// scavenges and is promoted, to die in the old space (as the records, frames and screenshot
// strings of a read do). Sizes and collection counts, not time: the figures do not depend on the
// machine's load.
//
//   npx tsx bench/memory-old-space.ts [--rounds 3000]
import { parseArgs } from 'node:util';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { WORKER_RESOURCE_LIMITS } from '../src/ingest/worker-group.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '1000' } } });

// Plain JavaScript (eval: true): the same in a compiled run and under tsx.
const WORKER = `
const { getHeapSpaceStatistics } = require('node:v8');
const { PerformanceObserver, constants } = require('node:perf_hooks');
const { parentPort, workerData } = require('node:worker_threads');
let majors = 0;
new PerformanceObserver((l) => {
  for (const e of l.getEntries()) if (e.detail.kind !== constants.NODE_PERFORMANCE_GC_MINOR) majors++;
}).observe({ entryTypes: ['gc'] });
const alive = [];
for (let i = 0; i < 200000; i++) alive.push({ id: 'session-' + i, seq: [i, i + 1] });
const ring = new Array(50000);
let maxOld = 0;
let round = 0;
const step = () => {
  for (let i = 0; i < 20000; i++) ring[(round * 20000 + i) % ring.length] = { body: 'y' + i, n: [i] };
  const old = getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');
  maxOld = Math.max(maxOld, old.space_size);
  if (++round < workerData.rounds) return setImmediate(step);
  parentPort.postMessage({ maxOld, majors, alive: alive.length });
};
step();
`;

function measure(limits: ResourceLimits): Promise<{ maxOld: number; majors: number }> {
  const worker = new Worker(WORKER, {
    eval: true,
    execArgv: [],
    workerData: { rounds: Number(values.rounds) },
    resourceLimits: limits,
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { maxOld: number; majors: number }) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

const mib = (n: number): string => (n / 1048576).toFixed(0);
const cases: Array<[string, ResourceLimits]> = [
  ['V8 default old generation', { maxYoungGenerationSizeMb: WORKER_RESOURCE_LIMITS.maxYoungGenerationSizeMb }],
  [`the bridge's (${WORKER_RESOURCE_LIMITS.maxOldGenerationSizeMb} MiB)`, WORKER_RESOURCE_LIMITS],
];
for (const [name, limits] of cases) {
  const r = await measure(limits);
  process.stdout.write(`${name}: old space at most ${mib(r.maxOld)} MiB, ${r.majors} full collections\n`);
}
