// One benchmark scenario run for perf: the runner (bench/throughput.ts, as `npm run bench` runs it)
// with --perf-basic-prof in the bridge's and the simulator's node flags, so perf can name their JIT
// code; a wait until the load flows; and the scenario's result line at the end.
//
// States: starting (compiling, connecting the sessions) → loaded (the simulator busy for a second,
// then `settleSeconds` more) → the caller records → finishing (the runner drains and prints its
// result) → done. The runner exiting early, or a deadline passing in any state, ends it with an
// error, and stop() kills the runner's whole process group.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { REPO } from './compiled.js';
import { imageNodeFlags } from './image-node-options.js';
import { classifyProcesses, processCpuSeconds, readProcesses, type Role } from './perf-processes.js';
import { sleep } from './wait.js';

export interface ScenarioRunOptions {
  scenario: string;
  /** Further arguments for the runner (--heavy-seconds 40, --live-sessions 500, …). */
  args: string[];
  /** Deadline for the load to start: the runner compiles and connects the sessions first. */
  startTimeoutS: number;
  /** CPU seconds a second of the simulator's that mean the load flows (0.3: producing for 1,000 sessions). */
  busyCpu: number;
  /** Seconds to wait once the simulator is busy, so the recording misses the ramp. */
  settleSeconds: number;
  /** Deadline for the runner to end, from the start. */
  finishTimeoutS: number;
}

export interface ScenarioRun {
  /** Resolves once the load flows; rejects when the runner ends or the deadline passes first. */
  loaded: Promise<void>;
  /** The roles of the processes under this tool now (the caller takes it while perf records). */
  roles(): Map<number, Role>;
  /** Resolves with the runner's result line for the scenario once it ends (an `error` field when it failed). */
  result(): Promise<Record<string, unknown>>;
  /** Kills the runner's process group (idempotent) and removes the perf maps of every pid it saw. */
  stop(): void;
}

/**
 * Node flags that make V8 write /tmp/perf-<pid>.map, its JIT code's names for perf; without the
 * second, every interpreted function runs in one shared trampoline (Builtins_InterpreterEntryTrampoline)
 * and perf cannot tell them apart, so a sample's innermost JS function would be a caller further out.
 */
const PERF_MAP = '--perf-basic-prof --interpreted-frames-native-stack';

export function startScenario(o: ScenarioRunOptions): ScenarioRun {
  // The image's flags, as the benchmark gives the bridge by default, or what the caller set instead.
  const bridgeFlags = process.env.BENCH_BRIDGE_NODE_FLAGS ?? imageNodeFlags().join(' ');
  const simFlags = process.env.BENCH_SIM_NODE_FLAGS ?? '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/throughput.ts', o.scenario, ...o.args], {
    cwd: REPO,
    env: {
      ...process.env,
      BENCH_BRIDGE_NODE_FLAGS: `${bridgeFlags} ${PERF_MAP}`.trim(),
      BENCH_SIM_NODE_FLAGS: `${simFlags} ${PERF_MAP}`.trim(),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
    // A group of its own: stop() kills the runner, the scenario and its peers together.
    detached: true,
  });
  const seen = new Set<number>();
  let result: Record<string, unknown> | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      // The runner prints each scenario's line with the load beside it, then a table.
      if (parsed.scenario === o.scenario) result = parsed;
    } catch {
      // the table
    }
  });
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(`the benchmark runner exited (${signal ?? code})`)),
  );
  let stopped = false;

  const roles = (): Map<number, Role> => {
    const map = classifyProcesses(readProcesses(), process.pid);
    for (const pid of map.keys()) seen.add(pid);
    return map;
  };

  const loaded = (async () => {
    const deadline = performance.now() + o.startTimeoutS * 1000;
    let ended: string | undefined;
    void exited.then((why) => (ended = why));
    // A function, so the checks below read the variable the promise above sets meanwhile.
    const endedWhy = (): string | undefined => ended;
    for (;;) {
      if (endedWhy() !== undefined) throw new Error(`${endedWhy()} before the load started`);
      if (performance.now() > deadline) throw new Error(`the load did not start within ${o.startTimeoutS} s`);
      const sim = [...roles()].find(([, role]) => role === 'simulator')?.[0];
      const before = sim !== undefined ? processCpuSeconds(sim) : null;
      await sleep(1000);
      const after = sim !== undefined ? processCpuSeconds(sim) : null;
      // The simulator producing for 1,000 sessions is busy; connecting them is not, for long.
      if (before !== null && after !== null && after - before >= o.busyCpu) break;
    }
    await sleep(o.settleSeconds * 1000);
    if (endedWhy() !== undefined) throw new Error(`${endedWhy()} while the load settled`);
  })();

  const result$ = (async () => {
    let timer: NodeJS.Timeout | undefined;
    const overran = new Promise<string>((resolve) => {
      timer = setTimeout(
        () => resolve(`the benchmark did not end within ${o.finishTimeoutS} s`),
        o.finishTimeoutS * 1000,
      );
    });
    const outcome = await Promise.race([
      exited.then((why) => ({ why, ended: true })),
      overran.then((why) => ({ why, ended: false })),
    ]);
    clearTimeout(timer);
    if (!outcome.ended) stop();
    return result ?? { scenario: o.scenario, error: `${outcome.why} without a result line` };
  })();

  function stop(): void {
    if (!stopped && child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      stopped = true;
      // SIGTERM first: the runner's handler kills its scenario's process group (a group of its own)
      // and removes its compiled copy; SIGKILL to the runner's group if it has not gone in 5 s.
      signalGroup(child, 'SIGTERM');
      const hard = setTimeout(() => signalGroup(child, 'SIGKILL'), 5000);
      child.once('exit', () => clearTimeout(hard));
    }
    // Only the maps of this run's processes: other people's runs on the machine may have theirs.
    for (const pid of seen) rmSync(`/tmp/perf-${pid}.map`, { force: true });
  }

  return { loaded, roles, result: () => result$, stop };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}
