// `npm run bench` end to end, every scenario shrunk to seconds: each must finish by itself, count
// every event at the sink, print one JSON line with the figures the lead compares, then the table,
// and leave no temporary directory behind. Nothing here asserts on speed (that is the benchmark's
// job); it keeps the instrument working while the pipeline under it is rewritten.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { summarise, type CpuProfile } from '../../../bench/profile-summary.js';

const REPO = resolve(import.meta.dirname, '../../..');

function runBench(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/throughput.ts', ...args], {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((r) => child.on('close', (code) => r({ code, stdout, stderr })));
}

/**
 * The bench's temporary directories left in `tmp`. The run under test gets a TMPDIR of its own:
 * other benchmarks running on the machine meanwhile create (and remove) theirs in the shared one.
 */
const benchDirs = (tmp: string): string[] => readdirSync(tmp).filter((n) => n.startsWith('bridge-bench-'));
/** The compiled copies (bench/compiled.ts) present now. */
const builds = (): string[] => (existsSync(join(REPO, '.bench-build')) ? readdirSync(join(REPO, '.bench-build')) : []);

/**
 * CI runs the suite on the image's Node line and again on the oldest supported one; the benchmark is
 * a development tool, and its end-to-end run (a minute of CI's 20) is checked on the image's line.
 */
const secondLine = process.env.CI_SECOND_NODE_LINE === '1';
if (secondLine)
  console.log(
    "skipped on the second Node line of CI: the whole benchmark runs on the image's line (unset CI_SECOND_NODE_LINE to run it on this one)",
  );

it.skipIf(secondLine)(
  'runs every scenario small and compiled, with zero missing, one JSON line each and the table',
  async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'bench-run-test-'));
    // As open as a TMPDIR must be: the pg scenario's server runs as another user (mkdtemp makes 0700).
    chmodSync(tmp, 0o755);
    onTestFinished(() => rmSync(tmp, { recursive: true, force: true }));
    const buildsBefore = builds();
    const res = await runBench(
      [
        '--burst-events',
        '300',
        '--live-sessions',
        '20',
        '--live-seconds',
        '2',
        '--heavy-sessions',
        '10',
        '--heavy-seconds',
        '3',
        '--outage-seconds',
        '2',
        '--outage-before-s',
        '1',
        '--outage-after-s',
        '1',
        '--drain-timeout-s',
        '60',
      ],
      { ...process.env, TMPDIR: tmp },
    );
    // What failed is in the table's last lines (a scenario's error) or on stderr.
    expect(res.code, res.stderr + res.stdout.slice(-3000)).toBe(0);
    const lines = res.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.scenario)).toEqual([
      'burst',
      'burst-json',
      'live',
      'live-heavy',
      'sidecar',
      'outage',
      'pg',
    ]);
    for (const l of lines)
      expect(l, JSON.stringify(l)).toMatchObject({
        missing: 0,
        peakRssMiB: expect.any(Number),
        eventsPerSecond: expect.any(Number),
        load1m: [expect.any(Number), expect.any(Number)],
        runtime: 'compiled',
      });
    const [burst, , live, heavy, sidecar, outage] = lines as [
      Record<string, unknown>,
      unknown,
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    expect(burst).toMatchObject({
      events: 1200,
      delivered: 1200,
      ratio: expect.any(Number),
      ceilingEventsPerSecond: expect.any(Number),
    });
    expect(live).toMatchObject({ produced: 800, delivered: 800, latency: { count: 800, p99Ms: expect.any(Number) } });
    // The heavy mix, sized by its own flags: 10 sessions × 20 events/s for 3 s, every 33rd event a
    // screenshot of 20–40 KB, so a record is larger on the wire than in the plain live scenario.
    expect(heavy).toMatchObject({
      sessions: 10,
      produced: 600,
      delivered: 600,
      rssSteadyMiB: expect.any(Number),
      cpuMicrosPerEvent: expect.any(Number),
      // From half the run (the warm-up of a 3 s run) to the end of production.
      steadyCpuMicrosPerEvent: expect.any(Number),
      wireBytesPerEvent: expect.any(Number),
      storageBytesPerOtlpByte: expect.any(Number),
    });
    expect(heavy.wireBytesPerEvent).toBeGreaterThan(live.wireBytesPerEvent as number);
    // The sidecar is the bridge as its own `run` process: 1 session × 5 events/s for 2 s.
    expect(sidecar).toMatchObject({
      produced: 10,
      delivered: 10,
      process: 'separate',
      rssSteadyMiB: expect.any(Number),
      cpuMicrosPerEvent: expect.any(Number),
    });
    expect(outage).toMatchObject({ produced: 16_000, refusedRequests: expect.any(Number), series: expect.any(Array) });
    expect(outage.refusedRequests).toBeGreaterThan(0);
    expect(res.stdout).toMatch(/scenario\s+events\/s\s+ratio\s+p50 \/ p99\s+peak RSS\s+missing/);
    expect(benchDirs(tmp)).toEqual([]);
    expect(builds().filter((d) => !buildsBefore.includes(d))).toEqual([]);
  },
  240_000,
);

it('names the scenarios it knows when asked for another, exit 2', async () => {
  const res = await runBench(['nope']);
  expect(res.code).toBe(2);
  expect(res.stderr.trim()).toBe(
    'bench: unknown scenario nope; known: burst, burst-json, live, live-heavy, sidecar, outage, pg',
  );
});

it("--cpu-prof writes a profile of the measured phase, in which the bridge's own code shows", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-prof-test-'));
  try {
    // The profile is of the main thread: without ingest workers the whole pipeline runs there.
    // --from-source: the scenarios run under tsx, without the build step. 2,000 events a session:
    // with fewer, on a loaded machine the sampler may catch too little of the mapper to name it.
    const res = await runBench(['burst', '--burst-events', '2000', '--cpu-prof', dir, '--from-source'], {
      ...process.env,
      BRIDGE_WORKERS: '0',
    });
    // What failed is in the table's last lines (a scenario's error) or on stderr.
    expect(res.code, res.stderr + res.stdout.slice(-3000)).toBe(0);
    const line = JSON.parse(res.stdout.split('\n').find((l) => l.startsWith('{'))!) as {
      cpuProfile?: string;
      runtime?: string;
    };
    expect(line.runtime).toBe('tsx');
    expect(line.cpuProfile).toBe(join(dir, 'burst.cpuprofile'));
    expect(existsSync(line.cpuProfile!)).toBe(true);
    const summary = summarise(JSON.parse(readFileSync(line.cpuProfile!, 'utf8')) as CpuProfile, 1000);
    expect(summary.busyMs).toBeGreaterThan(0);
    expect(summary.places.map((p) => p.name)).toContain('src/mapping/mapper.ts');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
