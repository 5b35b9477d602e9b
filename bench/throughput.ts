// `npm run bench [-- <scenario>…] [flags]`: how fast and how lean the bridge is. Scenarios (all by
// default, in this order):
//   burst       4 sessions × 50,000 realistic events waiting in the service, protobuf, spool on:
//               end-to-end events/s, and the ratio to a parse-only reader of the same streams
//               (bench/ceiling.ts) measured in the same run; zero loss checked by (session, seq)
//   burst-json  the same with OTLP/JSON (4 × 12,500 events)
//   live        1,000 sessions × 20 events/s for 60 s: event→collector latency p50/p99 (production
//               in the simulator → decoded by the sink), peak RSS, CPU, missing after a drain
//   live-heavy  the same with the simulator's heavy mix (HEAVY_SESSION): every category, 3 % of
//               events screenshots of 20–40 KB base64, console texts of several KB, ≈1.8 KB an event
//               on the wire; also steady RSS, bridge CPU µs per event, wire bytes per event and
//               storage bytes written per OTLP byte delivered
//   sidecar     one session × 5 events/s for 60 s, every category, the bridge as its own `run`
//               process (bench/bridge-process.ts) as config/kubernetes/sidecar.yaml deploys it:
//               steady and peak RSS, CPU per event, storage bytes written per OTLP byte
//   outage      200 sessions × 20 events/s; the collector answers 503 for 60 s, then recovers: RSS
//               and spool over time, everything delivered after recovery
// Flags: --burst-events N (per session), --live-seconds S, --live-sessions N, --heavy-seconds S and
//        --heavy-sessions N (live-heavy; default: the live values), --outage-seconds S,
//        --outage-before-s S, --outage-after-s S, --drain-timeout-s S (live and outage),
//        --sidecar-rate N (events/s of the sidecar's session, default 5: a busy agent's load on the
//        sidecar's node flags), --sidecar-plain (the sidecar from dist/ with V8's defaults, as
//        `npm start` runs it, instead of the image's bundle with the sidecar manifest's NODE_OPTIONS),
//        --cpu-prof DIR: V8 CPU profile of each scenario's measured phase (the bridge's main thread;
//        BRIDGE_WORKERS=0 puts the whole pipeline there) into
//        DIR/<scenario>.cpuprofile; summarise with `npx tsx bench/profile-summary.ts DIR/*.cpuprofile`.
//        --from-source: run the scenarios under tsx instead of compiling them first (compiled.ts).
// Output: one JSON line per scenario on stdout, then a short table. Every line carries the machine's
// 1-minute load average before and after the scenario: on a shared machine a figure taken at load
// 9 on 2 cores says more about the neighbours than about the bridge.
//
// Each scenario runs in a child process of its own (this script again, compiled, with BENCH_RUN_ONE set):
// its peak RSS is the bridge's alone, not left over from an earlier scenario, and a scenario that
// fails or overruns its deadline is killed with its whole process group (simulator, sink, ceiling)
// and its temporary directory removed, and the next one still runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { formatTable, type ScenarioResult } from './report.js';
import type { ScenarioContext } from './scenario-context.js';
import { runBurst } from './scenario-burst.js';
import { runLive } from './scenario-live.js';
import { runOutage } from './scenario-outage.js';
import { runPg } from './scenario-pg.js';
import { HEAVY_SESSION } from './scenario-context.js';
import { runSidecar } from './scenario-sidecar.js';
import { compileBench, removeBuild, RUNNING_COMPILED } from './compiled.js';
import { imageNodeFlags } from './image-node-options.js';

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    strict: true,
    options: {
      'burst-events': { type: 'string' },
      'live-seconds': { type: 'string' },
      'live-sessions': { type: 'string' },
      'heavy-seconds': { type: 'string' },
      'heavy-sessions': { type: 'string' },
      'outage-seconds': { type: 'string' },
      'outage-before-s': { type: 'string' },
      'outage-after-s': { type: 'string' },
      'drain-timeout-s': { type: 'string' },
      'sidecar-rate': { type: 'string' },
      'sidecar-plain': { type: 'boolean' },
      'cpu-prof': { type: 'string' },
      'from-source': { type: 'boolean' },
    },
  });
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
const { values: flags, positionals } = parsed;

function positive(name: keyof typeof flags, fallback: number): number {
  const raw = flags[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} must be a positive integer`);
  return n;
}

const burstEvents = positive('burst-events', 50_000);
const liveSeconds = positive('live-seconds', 60);
const liveSessions = positive('live-sessions', 1000);
const heavySeconds = positive('heavy-seconds', liveSeconds);
const heavySessions = positive('heavy-sessions', liveSessions);
const outageSeconds = positive('outage-seconds', 60);
const sidecarRate = positive('sidecar-rate', 5);
const drainTimeoutS = flags['drain-timeout-s'] !== undefined ? positive('drain-timeout-s', 0) : undefined;

interface Scenario {
  run(ctx: ScenarioContext): Promise<ScenarioResult>;
  /** After this the runner kills the scenario: generous, only a hang should reach it. */
  deadlineS: number;
}

const outagePhases = {
  beforeSeconds: positive('outage-before-s', 10),
  outageSeconds,
  afterSeconds: positive('outage-after-s', 15),
};
const SCENARIOS: Record<string, Scenario> = {
  burst: {
    run: (ctx) =>
      runBurst(ctx, {
        sessions: 4,
        eventsPerSession: burstEvents,
        protocol: 'http/protobuf',
        ceilingRuns: 2,
        timeoutS: 240,
      }),
    deadlineS: 420,
  },
  'burst-json': {
    run: (ctx) =>
      runBurst(ctx, {
        sessions: 4,
        eventsPerSession: Math.ceil(burstEvents / 4),
        protocol: 'http/json',
        ceilingRuns: 2,
        timeoutS: 240,
      }),
    deadlineS: 420,
  },
  live: {
    run: (ctx) =>
      runLive(ctx, {
        sessions: liveSessions,
        ratePerSession: 20,
        seconds: liveSeconds,
        drainTimeoutS: drainTimeoutS ?? 60,
      }),
    deadlineS: liveSeconds + (drainTimeoutS ?? 60) + 240,
  },
  'live-heavy': {
    run: (ctx) =>
      runLive(ctx, {
        sessions: heavySessions,
        ratePerSession: 20,
        seconds: heavySeconds,
        drainTimeoutS: drainTimeoutS ?? 60,
        kind: HEAVY_SESSION,
      }),
    // A simulator that cannot keep the rate may take twice the nominal time (scenario-live.ts).
    deadlineS: 2 * heavySeconds + (drainTimeoutS ?? 60) + 240,
  },
  sidecar: {
    run: (ctx) =>
      runSidecar(ctx, {
        ratePerSession: sidecarRate,
        seconds: liveSeconds,
        drainTimeoutS: drainTimeoutS ?? 30,
        plain: flags['sidecar-plain'] === true,
      }),
    deadlineS: liveSeconds + (drainTimeoutS ?? 30) + 120,
  },
  outage: {
    run: (ctx) =>
      runOutage(ctx, {
        sessions: 200,
        ratePerSession: 20,
        ...outagePhases,
        drainTimeoutS: drainTimeoutS ?? 90,
        sampleEverySeconds: 5,
      }),
    deadlineS: outagePhases.beforeSeconds + outageSeconds + outagePhases.afterSeconds + (drainTimeoutS ?? 90) + 240,
  },
  pg: { run: (ctx) => runPg(ctx, { sessions: 4, eventsPerSession: burstEvents, timeoutS: 240 }), deadlineS: 600 },
};

const names = positionals.length > 0 ? positionals : Object.keys(SCENARIOS);
for (const name of names)
  if (!SCENARIOS[name]) fail(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);

/** An error's first line, with its cause's (fetch's "fetch failed" says nothing without it). */
const errorText = (err: unknown): string => {
  const line = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
  const cause = err instanceof Error && err.cause !== undefined ? `: ${line(err.cause)}` : '';
  return line(err) + cause;
};

/** In the scenario's own process: run it, print its JSON line. */
async function runOne(name: string): Promise<void> {
  const ctx: ScenarioContext = { name, tmpRoot: process.env.BENCH_TMP ?? fail('BENCH_TMP is not set') };
  let result: ScenarioResult;
  try {
    result = await SCENARIOS[name]!.run(ctx);
  } catch (err) {
    result = { scenario: name, error: errorText(err) };
  }
  // execArgv: the node flags this process (the bridge's, in-process) runs with, minus the runner's own.
  const nodeFlags = process.execArgv.filter((a) => a.startsWith('--') && a !== '--import' && !a.includes('tsx'));
  process.stdout.write(
    JSON.stringify({
      ...result,
      runtime: RUNNING_COMPILED ? 'compiled' : 'tsx',
      bridgeNodeFlags: nodeFlags.join(' '),
    }) + '\n',
  );
  process.exit(result.error === undefined ? 0 : 1);
}

/** The compiled copy the scenarios run from; undefined: they run under tsx. */
let build: string | undefined;
let current: { child: ChildProcess; tmpRoot: string } | undefined;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** In the runner: the scenario in a child process group of its own, within its deadline. */
function spawnOne(name: string): Promise<ScenarioResult> {
  const tmpRoot = mkdtempSync(join(tmpdir(), `bridge-bench-${name}-`));
  // The same flags, rebuilt from what was parsed (a flag's value may look like a scenario name).
  const passOn = Object.entries(flags).flatMap(([k, v]) =>
    typeof v === 'string' ? [`--${k}`, v] : v === true ? [`--${k}`] : [],
  );
  // A runner started from a compiled copy (node .bench-build/…/bench/throughput.js) runs its scenarios from it.
  const entry =
    build !== undefined
      ? [join(build, 'bench', 'throughput.js')]
      : RUNNING_COMPILED
        ? [import.meta.filename]
        : ['--import', 'tsx', import.meta.filename];
  // The process the bridge runs in (the scenario's own) gets the container image's node flags (its
  // NODE_OPTIONS and its entrypoint's), so the figures are the shipped bridge's.
  // BENCH_BRIDGE_NODE_FLAGS replaces them (empty: V8's defaults), e.g. "--max-semi-space-size=16";
  // it also reaches the sidecar's `run`, never the simulator or the sink.
  const flagsFromEnv = process.env.BENCH_BRIDGE_NODE_FLAGS;
  const nodeFlags = flagsFromEnv !== undefined ? flagsFromEnv.split(' ').filter(Boolean) : imageNodeFlags();
  const child = spawn(process.execPath, [...nodeFlags, ...entry, name, ...passOn], {
    env: {
      ...process.env,
      BENCH_RUN_ONE: '1',
      BENCH_TMP: tmpRoot,
      ...(flags['cpu-prof'] !== undefined ? { BENCH_CPU_PROF: resolve(flags['cpu-prof']) } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  current = { child, tmpRoot };
  let result: ScenarioResult | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      result = JSON.parse(line) as ScenarioResult;
    } catch {
      process.stderr.write(`${line}\n`);
    }
  });
  const deadlineS = SCENARIOS[name]!.deadlineS;
  let overran = false;
  const deadline = setTimeout(() => {
    overran = true;
    killGroup(child, 'SIGTERM');
    setTimeout(() => killGroup(child, 'SIGKILL'), 5000).unref();
  }, deadlineS * 1000);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(deadline);
      // Peers the scenario left behind, if any: the group id stays reserved while members live.
      killGroup(child, 'SIGKILL');
      current = undefined;
      rmSync(tmpRoot, { recursive: true, force: true });
      resolve(
        result ?? {
          scenario: name,
          error: overran ? `killed after its ${deadlineS} s deadline` : `exited (${signal ?? code}) without a result`,
        },
      );
    });
  });
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (current) {
      killGroup(current.child, 'SIGKILL');
      rmSync(current.tmpRoot, { recursive: true, force: true });
    }
    if (build !== undefined) removeBuild(build);
    process.exit(130);
  });
}

if (process.env.BENCH_RUN_ONE) {
  await runOne(names[0]!);
} else {
  if (!flags['from-source'] && !RUNNING_COMPILED) {
    try {
      build = await compileBench();
    } catch {
      fail('cannot compile the benchmark (tsc reported why above); --from-source runs it under tsx');
    }
  }
  const results: ScenarioResult[] = [];
  for (const name of names) {
    const loadBefore = loadavg()[0]!;
    const result = { ...(await spawnOne(name)), load1m: [+loadBefore.toFixed(1), +loadavg()[0]!.toFixed(1)] };
    results.push(result);
    process.stdout.write(JSON.stringify(result) + '\n');
  }
  process.stdout.write('\n' + formatTable(results));
  if (build !== undefined) removeBuild(build);
  process.exit(results.some((r) => r.error !== undefined) ? 1 : 0);
}
