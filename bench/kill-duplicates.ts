// What a kill -9 costs in duplicates: sessions stream steadily to a real daemon, which is killed
// (SIGKILL) in the middle; a second daemon reads on from the stored checkpoints until the sessions
// end. Prints, as one JSON line, how many records the collector received twice, in all and per
// session, and what that is in milliseconds of each session's events. With traces on a session's
// checkpoint moves only where its span state was captured (`traces.state_interval`), so the figure
// grows by up to that interval of events per session (docs/design.md "Delivery semantics").
// `--outage S`: the collector answers 503 for the S seconds before the kill (and comes back with the
// second daemon): what spilled to the store during the outage must not come twice.
//
//   npx tsx bench/kill-duplicates.ts [--sessions 40] [--rate 20] [--seconds 16] [--kill-at 8] [--outage 0] [--traces]
//
// A measurement, not a test: the kill instant falls where it falls, so compare several runs.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startReceiver } from '../src/devkit/receiver/server.js';
import { startSimulator } from '../src/devkit/simulator/index.js';

const { values: a } = parseArgs({
  options: {
    sessions: { type: 'string', default: '40' },
    rate: { type: 'string', default: '20' },
    seconds: { type: 'string', default: '16' },
    'kill-at': { type: 'string', default: '8' },
    outage: { type: 'string', default: '0' },
    traces: { type: 'boolean', default: false },
  },
});
const sessions = Number(a.sessions);
const rate = Number(a.rate);
const seconds = Number(a.seconds);
const killAtMs = Number(a['kill-at']) * 1000;
const outageMs = Math.min(killAtMs, Number(a.outage) * 1000);
const REPO = resolve(import.meta.dirname, '..');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const sim = await startSimulator({ keepaliveMs: 500, seed: 7, bufferSize: 100_000 });
const receiver = await startReceiver();
const stateDir = mkdtempSync(join(tmpdir(), 'kill-dup-'));
const ids = Array.from({ length: sessions }, (_, i) => `kd${i}`);
const env = {
  PATH: process.env.PATH,
  LOG_LEVEL: 'warn',
  BROWSER_API_URL: sim.url,
  BROWSER_API_KEY: 'sim-key',
  BRIDGE_STATE_DIR: stateDir,
  BRIDGE_LISTEN: 'off',
  BRIDGE_CONFIG: '',
  BRIDGE_SESSIONS: ids.join(','),
  BRIDGE_TRACES: String(a.traces),
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
};
const daemon = (args: string[]) =>
  spawn(process.execPath, ['--import', 'tsx', join(REPO, 'src/cli/main.ts'), ...args], {
    cwd: REPO,
    env,
    stdio: 'ignore',
  });
const exited = (c: ReturnType<typeof daemon>) =>
  c.exitCode !== null || c.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((r) => c.once('exit', () => r()));

const sims = ids.map((id) => sim.createSession(id));
const perSession = rate * seconds;
const t0 = performance.now();
const feeding = (async () => {
  // One event per session every 1/rate s, by the clock: a late tick catches up.
  for (let n = 0; n < perSession;) {
    const due = Math.min(perSession, Math.floor(((performance.now() - t0) / 1000) * rate) + 1);
    for (; n < due; n++) for (const s of sims) s.emit(1);
    await sleep(1000 / rate / 2);
  }
})();
const first = daemon(['run']);
await sleep(killAtMs - outageMs);
if (outageMs > 0) receiver.behaviour.status = 503;
await sleep(outageMs);
first.kill('SIGKILL');
await exited(first);
delete receiver.behaviour.status;
const killedAtS = (performance.now() - t0) / 1000;
const last = daemon(['run', '--until-ended']);
await feeding;
const total = perSession * sessions;
const unique = (): number =>
  new Set(
    receiver.records.map(
      (r) => `${String(r.attributes['browser.session.id'])}:${String(r.attributes['browser.telemetry.seq'])}`,
    ),
  ).size;
while (unique() < total) await sleep(200);
for (const s of sims) s.end();
await exited(last);
const received = receiver.records.length;
const duplicates = received - unique();
console.log(
  JSON.stringify({
    traces: a.traces,
    sessions,
    ratePerSession: rate,
    killedAtS: +killedAtS.toFixed(1),
    outageS: outageMs / 1000,
    received,
    duplicates,
    duplicatesPerSession: +(duplicates / sessions).toFixed(1),
    duplicateMsPerSession: Math.round((duplicates / sessions / rate) * 1000),
    load1m: +loadavg()[0]!.toFixed(1),
  }),
);
await receiver.close();
await sim.close();
rmSync(stateDir, { recursive: true, force: true });
