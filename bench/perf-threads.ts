// `npm run bench:perf -- [--scenario live-heavy] [--seconds 15] [--heavy-seconds 40] [--top 25] [--json]`
// Where the whole machine's CPU goes while a benchmark scenario runs, by process and thread: V8's
// CPU profiles (--cpu-prof) see one isolate's JavaScript, not V8's helper threads (concurrent marking,
// sweeping, the compilers), the kernel, nor the simulator and the sink that share the cores with the
// bridge. This runs the scenario through the benchmark runner with --perf-basic-prof, records every
// CPU with `perf record -a -g` once the load flows, keeps the scenario's result line, and reports
// CPU per process and thread, µs per delivered event for the bridge's threads, what each thread spent
// it on (JavaScript, JSON.parse, GC phases, JIT, kernel, native) and the bridge's innermost JS
// functions with the native leaves under them. Needs Linux perf and the right to record every CPU.
//
// Other flags: --frequency HZ (999), --settle S (5: seconds between the load starting and the
// recording), --busy CPU (0.3: the simulator's CPU a second that says the load flows; lower it for
// scenarios with little load), --keep DIR (the `perf script` text and the run's facts, for a re-analysis),
// --from DIR (re-analyse a kept run: no benchmark, no perf). Arguments after `--` go to the runner.
import { createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { createAttribution, type PerfReport } from './perf-attribution.js';
import { processCpuSeconds, type Role } from './perf-processes.js';
import { checkPerf, recordMachine, scriptLines } from './perf-record.js';
import { formatPerfReport, type RunHeader } from './perf-report-text.js';
import { startScenario } from './perf-scenario.js';
import { createPerfScriptParser } from './perf-script.js';

/** What a kept run holds beside its `perf script` text. */
interface RunFacts {
  scenario: string;
  seconds: number;
  frequency: number;
  cpus: number;
  load1m: [number, number];
  roles: Array<[number, Role]>;
  /** CPU seconds per role from /proc (the bench's processes) from just before perf starts to its end. */
  procCpuSeconds?: Partial<Record<Role, number>>;
  /** How long that was: longer than perf's recording by perf's start (it reads every process's maps) and end. */
  procWindowSeconds?: number;
  result: Record<string, unknown>;
  perfSummary: string;
}

function fail(message: string): never {
  process.stderr.write(`perf-threads: ${message}\n`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    strict: true,
    options: {
      scenario: { type: 'string', default: 'live-heavy' },
      seconds: { type: 'string', default: '15' },
      'heavy-seconds': { type: 'string', default: '40' },
      top: { type: 'string', default: '25' },
      frequency: { type: 'string', default: '999' },
      settle: { type: 'string', default: '5' },
      busy: { type: 'string', default: '0.3' },
      json: { type: 'boolean', default: false },
      keep: { type: 'string' },
      from: { type: 'string' },
    },
  });
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
const { values: flags, positionals } = parsed;
const positive = (name: 'seconds' | 'heavy-seconds' | 'top' | 'frequency' | 'settle'): number => {
  const n = Number(flags[name]);
  if (!Number.isInteger(n) || n < (name === 'settle' ? 0 : 1)) fail(`--${name} must be a positive integer`);
  return n;
};
const seconds = positive('seconds');
const heavySeconds = positive('heavy-seconds');
const top = positive('top');
const frequency = positive('frequency');
const settle = positive('settle');
const busyCpu = Number(flags.busy);
if (!(busyCpu > 0 && busyCpu <= 1)) fail('--busy must be a CPU share above 0 and at most 1');
if (flags.scenario === 'live-heavy' && settle + seconds + 5 > heavySeconds)
  fail(`--heavy-seconds ${heavySeconds} leaves no room for --settle ${settle} and --seconds ${seconds} of steady load`);

function analyse(lines: (onLine: (line: string) => void) => Promise<void>, facts: RunFacts): Promise<PerfReport> {
  const attribution = createAttribution({
    roles: new Map(facts.roles),
    frequency: facts.frequency,
    seconds: facts.seconds,
    top,
  });
  const parser = createPerfScriptParser((s) => attribution.add(s));
  return lines((line) => parser.line(line)).then(() => {
    parser.end();
    return attribution.report({
      cpuMicrosPerEvent: typeof facts.result.cpuMicrosPerEvent === 'number' ? facts.result.cpuMicrosPerEvent : null,
      ...(typeof facts.result.offeredPerSecond === 'number' ? { offeredPerSecond: facts.result.offeredPerSecond } : {}),
    });
  });
}

function print(report: PerfReport, facts: RunFacts): void {
  if (flags.json) {
    const { roles: _roles, ...rest } = facts;
    process.stdout.write(JSON.stringify({ ...rest, report }) + '\n');
    return;
  }
  const header: RunHeader = {
    scenario: facts.scenario,
    result: facts.result,
    load1m: facts.load1m,
    cpus: facts.cpus,
    ...(facts.procCpuSeconds && facts.procWindowSeconds
      ? { proc: { cpuSeconds: facts.procCpuSeconds, windowSeconds: facts.procWindowSeconds } }
      : {}),
  };
  process.stdout.write(formatPerfReport(report, header) + '\n');
}

/** CPU seconds so far of the bridge's, the simulator's and the sink's processes, by role, from /proc. */
function roleCpuSeconds(roles: ReadonlyMap<number, Role>): Partial<Record<Role, number>> {
  const out: Partial<Record<Role, number>> = {};
  for (const [pid, role] of roles)
    if (role === 'bridge' || role === 'simulator' || role === 'sink')
      out[role] = (out[role] ?? 0) + (processCpuSeconds(pid) ?? 0);
  return out;
}

/** Re-analyses a run kept with --keep. */
async function fromKept(dir: string): Promise<void> {
  const facts = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as RunFacts;
  const report = await analyse(async (onLine) => {
    const rl = createInterface({ input: createReadStream(join(dir, 'perf.script')), crlfDelay: Infinity });
    for await (const line of rl) onLine(line);
  }, facts);
  print(report, facts);
}

async function measure(): Promise<number> {
  const version = await checkPerf().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
  const work = mkdtempSync(join(tmpdir(), 'perf-threads-'));
  const run = startScenario({
    scenario: flags.scenario,
    args: ['--heavy-seconds', String(heavySeconds), ...positionals],
    startTimeoutS: 300,
    busyCpu,
    settleSeconds: settle,
    // The runner's own deadline for live-heavy (2 × the production, the drain, 240 s) and its compile.
    finishTimeoutS: 300 + 2 * heavySeconds + 60 + 240,
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      run.stop();
      rmSync(work, { recursive: true, force: true });
      process.exit(130);
    });
  try {
    process.stderr.write(`perf-threads: ${version}; starting ${flags.scenario}, recording once the load flows\n`);
    await run.loaded;
    const load0 = loadavg()[0]!;
    const data = join(work, 'perf.data');
    const before = run.roles();
    const cpu0 = roleCpuSeconds(before);
    const t0 = performance.now();
    const recording = recordMachine(data, seconds, frequency);
    // Awaited below; a failure before then must not count as an unhandled rejection meanwhile.
    recording.catch(() => undefined);
    // Again while perf records, for perf's own pid.
    await new Promise((r) => setTimeout(r, 1000));
    const roles = new Map([...before, ...run.roles()]);
    const perfSummary = await recording;
    const cpu1 = roleCpuSeconds(before);
    const procWindowSeconds = +((performance.now() - t0) / 1000).toFixed(2);
    const procCpuSeconds = Object.fromEntries(
      Object.entries(cpu1).map(([role, s]) => [role, +(s - (cpu0[role as Role] ?? 0)).toFixed(2)]),
    );
    const load1m: [number, number] = [+load0.toFixed(2), +loadavg()[0]!.toFixed(2)];
    process.stderr.write(`perf-threads: ${perfSummary}; waiting for the scenario's result\n`);
    const result = await run.result();
    const facts: RunFacts = {
      scenario: flags.scenario,
      seconds,
      frequency,
      cpus: cpus().length,
      load1m,
      roles: [...roles],
      procCpuSeconds,
      procWindowSeconds,
      result,
      perfSummary,
    };
    let copy: string | undefined;
    if (flags.keep !== undefined) {
      mkdirSync(flags.keep, { recursive: true });
      writeFileSync(join(flags.keep, 'run.json'), JSON.stringify(facts, null, 2) + '\n');
      copy = join(flags.keep, 'perf.script');
    }
    // perf script reads the JIT maps the runner's processes wrote; run.stop() removes them after.
    const report = await analyse((onLine) => scriptLines(data, onLine, 600_000, copy), facts);
    print(report, facts);
    return result.error === undefined ? 0 : 1;
  } finally {
    run.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

try {
  if (flags.from !== undefined) await fromKept(flags.from);
  else process.exitCode = await measure();
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
