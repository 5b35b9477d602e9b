// Samples → where the machine's CPU went: per process role (bridge, simulator, sink, …), per thread,
// per category (perf-frames.ts), and in the bridge's threads per innermost JS function, with the
// native code it spent its samples in (its leaves). Fed one sample at a time (the tool streams
// `perf script`); report() can be asked at any point.
//
// Time: `perf record -F <hz>` samples each CPU <hz> times a second while it runs something, so a
// sample stands for 1/<hz> s of CPU. The bridge's µs per delivered event come from the scenario's own
// figure (its process CPU from /proc over the whole run ÷ the events the sink received), split by the
// threads' shares of the bridge's samples: perf says where, the benchmark says how much per event.
import { CATEGORIES, categorise, frameLabel, jsFunction, jsLabel, type Category } from './perf-frames.js';
import { ROLES, roleOf, type Role } from './perf-processes.js';
import type { PerfSample } from './perf-script.js';

export interface AttributionOptions {
  roles: ReadonlyMap<number, Role>;
  /** perf record's -F. */
  frequency: number;
  /** How long perf recorded. */
  seconds: number;
  /** How many innermost JS functions to list per bridge thread. */
  top: number;
  /** Under how many of them to list the native leaves (5 each). */
  leavesUnder?: number;
}

/** The scenario's result line, as far as the report reads it. */
export interface ScenarioFigures {
  /** Bridge CPU (every thread) per event delivered, over the whole run. */
  cpuMicrosPerEvent?: number | null;
  /** Events the simulator produced per second while producing. */
  offeredPerSecond?: number;
}

export interface FunctionReport {
  name: string;
  samples: number;
  /** Of the thread's samples. */
  share: number;
  /** The innermost frames of its samples (shares of the function's samples); only under the top few. */
  leaves: Array<{ name: string; share: number }>;
}

export interface ThreadReport {
  /** "main" for a process's main thread, else the thread's name (ingest-0, V8Worker, libuv-worker, …). */
  thread: string;
  /** How many threads of that name had samples (V8's helpers are several). */
  threads: number;
  samples: number;
  cpuSeconds: number;
  /** CPU seconds per second recorded: 1 is one core busy. */
  cpuShare: number;
  /** The bridge's threads: µs of the scenario's per-event figure this thread accounts for. */
  microsPerEvent: number | null;
  /** Shares of the thread's samples, summing to 1. */
  categories: Record<Category, number>;
  /** The bridge's threads that ran JavaScript: the top innermost JS functions, "(no JS frame)" among them. */
  functions: FunctionReport[];
}

export interface ProcessReport extends Omit<ThreadReport, 'thread' | 'threads' | 'functions'> {
  role: Role;
  pids: number[];
  threads: ThreadReport[];
}

export interface PerfReport {
  seconds: number;
  frequency: number;
  samples: number;
  processes: ProcessReport[];
  /** The bridge's perf CPU over the window ÷ the offered rate: a check on the apportioned figures. */
  bridgeMicrosPerEventInWindow: number | null;
}

interface Tally {
  samples: number;
  tids: Set<number>;
  categories: Record<Category, number>;
  functions: Map<string, { samples: number; leaves: Map<string, number> }>;
}

const NO_JS = '(no JS frame)';
/** Roles that are one process each, whose main thread is worth its own row. */
const ONE_PROCESS_ROLES: ReadonlySet<Role> = new Set(['bridge', 'simulator', 'sink', 'ceiling']);
const zeroCategories = (): Record<Category, number> =>
  Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Record<Category, number>;

export interface Attribution {
  add(sample: PerfSample): void;
  report(scenario?: ScenarioFigures): PerfReport;
}

export function createAttribution(o: AttributionOptions): Attribution {
  // role → pid set, and role → thread label → tally
  const pids = new Map<Role, Set<number>>();
  const tallies = new Map<Role, Map<string, Tally>>();
  let total = 0;

  const tallyOf = (role: Role, label: string): Tally => {
    let byThread = tallies.get(role);
    if (!byThread) tallies.set(role, (byThread = new Map<string, Tally>()));
    let t = byThread.get(label);
    if (!t)
      byThread.set(label, (t = { samples: 0, tids: new Set(), categories: zeroCategories(), functions: new Map() }));
    return t;
  };

  return {
    add(sample) {
      total++;
      const role = roleOf(o.roles, sample.pid);
      // Neighbours' and the harness's threads by name (their pids mean nothing to a reader).
      const label = sample.tid === sample.pid && ONE_PROCESS_ROLES.has(role) ? 'main' : sample.comm;
      if (!pids.has(role)) pids.set(role, new Set());
      pids.get(role)!.add(sample.pid);
      const t = tallyOf(role, label);
      t.samples++;
      t.tids.add(sample.tid);
      t.categories[categorise(sample.frames)]++;
      if (role !== 'bridge') return;
      let fn = NO_JS;
      for (const f of sample.frames) {
        const js = jsFunction(f.sym);
        if (js) {
          fn = jsLabel(js);
          break;
        }
      }
      const leaf = sample.frames[0];
      const leafName = !leaf
        ? '(no frame)'
        : leaf.sym === '[unknown]' && leaf.dso
          ? `[unknown] in ${basename(leaf.dso)}`
          : frameLabel(leaf.sym);
      let entry = t.functions.get(fn);
      if (!entry) t.functions.set(fn, (entry = { samples: 0, leaves: new Map() }));
      entry.samples++;
      entry.leaves.set(leafName, (entry.leaves.get(leafName) ?? 0) + 1);
    },

    report(scenario = {}) {
      const seconds = (samples: number): number => samples / o.frequency;
      const bridgeSamples = [...(tallies.get('bridge')?.values() ?? [])].reduce((n, t) => n + t.samples, 0);
      const perEvent = (samples: number, role: Role): number | null =>
        role === 'bridge' && bridgeSamples > 0 && typeof scenario.cpuMicrosPerEvent === 'number'
          ? (samples / bridgeSamples) * scenario.cpuMicrosPerEvent
          : null;
      const processes: ProcessReport[] = [];
      for (const role of ROLES) {
        const byThread = tallies.get(role);
        if (!byThread) continue;
        const threads = [...byThread].map(([label, t]): ThreadReport => ({
          thread: label,
          threads: t.tids.size,
          samples: t.samples,
          cpuSeconds: seconds(t.samples),
          cpuShare: seconds(t.samples) / o.seconds,
          microsPerEvent: perEvent(t.samples, role),
          categories: shares(t.categories, t.samples),
          functions: topFunctions(t, o.top, o.leavesUnder ?? 3),
        }));
        threads.sort((a, b) => b.samples - a.samples);
        const samples = threads.reduce((n, t) => n + t.samples, 0);
        const categories = zeroCategories();
        for (const t of byThread.values()) for (const c of CATEGORIES) categories[c] += t.categories[c];
        processes.push({
          role,
          pids: [...pids.get(role)!].sort((a, b) => a - b),
          samples,
          cpuSeconds: seconds(samples),
          cpuShare: seconds(samples) / o.seconds,
          microsPerEvent: perEvent(samples, role),
          categories: shares(categories, samples),
          threads,
        });
      }
      const rate = scenario.offeredPerSecond;
      return {
        seconds: o.seconds,
        frequency: o.frequency,
        samples: total,
        processes,
        bridgeMicrosPerEventInWindow:
          rate !== undefined && rate > 0 && bridgeSamples > 0
            ? (seconds(bridgeSamples) / o.seconds / rate) * 1e6
            : null,
      };
    },
  };
}

function shares(counts: Record<Category, number>, n: number): Record<Category, number> {
  const out = zeroCategories();
  if (n > 0) for (const c of CATEGORIES) out[c] = counts[c] / n;
  return out;
}

function topFunctions(t: Tally, top: number, leavesUnder: number): FunctionReport[] {
  if (t.functions.size === 0 || (t.functions.size === 1 && t.functions.has(NO_JS))) return [];
  return [...t.functions]
    .sort((a, b) => b[1].samples - a[1].samples || (a[0] < b[0] ? -1 : 1))
    .slice(0, top)
    .map(([name, f], i) => ({
      name,
      samples: f.samples,
      share: f.samples / t.samples,
      leaves:
        i < leavesUnder
          ? [...f.leaves]
              .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
              .slice(0, 5)
              .map(([leaf, n]) => ({ name: leaf, share: n / f.samples }))
          : [],
    }));
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
