// `run --until-ended` with a discovery selector, as a job runs it: the bridge starts before any
// matching session exists (it must wait, not exit at its first empty poll), follows the sessions as
// they appear, a second one created the moment the first ends included, and exits 0 once they all
// ended and were delivered. Real processes: the bridge is a child; the simulator and the receiver
// listen on loopback ports in this process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../../src/devkit/receiver/server.js';
import { startSimulator, type Simulator } from '../../../src/devkit/simulator/index.js';
import { tallyDelivery } from '../../../src/devkit/demo/delivery-tally.js';
import { startCli, type CliProcess } from './cli-process.js';

let sim: Simulator | undefined;
let receiver: Receiver | undefined;
let bridge: CliProcess | undefined;
let dir: string | undefined;
afterEach(async () => {
  if (bridge?.child.exitCode === null) bridge.child.kill('SIGKILL');
  await sim?.close();
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('run --until-ended with discovery waits for a first session, follows a series, and exits 0 once all ended and were delivered', async () => {
  sim = await startSimulator({ seed: 5, keepaliveMs: 500 });
  receiver = await startReceiver();
  dir = mkdtempSync(join(tmpdir(), 'until-ended-'));
  // Another team's session, live all along: the selector leaves it alone, and it keeps nothing open.
  sim.createSession('other', { tags: { team: 'b' } }).emit(5);
  bridge = startCli(['run', '--until-ended'], {
    BROWSER_API_URL: sim.url,
    BROWSER_API_KEY: 'sim-key',
    BRIDGE_STATE_DIR: join(dir, 'state'),
    BRIDGE_LISTEN: 'off',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    BRIDGE_DISCOVER: 'true',
    BRIDGE_DISCOVER_TAGS: 'team=a',
    BRIDGE_DISCOVER_INTERVAL: '200ms',
    LOG_LEVEL: 'info',
  });
  await bridge.waitFor(/no session to follow yet; waiting for discovery to find one/);
  // Several empty polls later it still runs (it used to exit 0 right after the first).
  const polled = sim.stats.listRequests;
  while (sim.stats.listRequests < polled + 3) await new Promise((r) => setTimeout(r, 50));
  expect(bridge.child.exitCode).toBeNull();

  const a = sim.createSession('job-a', { tags: { team: 'a' } });
  a.emit(20);
  await receiver.waitFor((rs) => rs.filter((r) => r.attributes['browser.session.id'] === 'job-a').length >= 20, 20_000);
  // The next of the series appears as the first ends: the run is not over in between.
  a.end();
  const b = sim.createSession('job-b', { tags: { team: 'a' } });
  b.emit(10);
  await receiver.waitFor((rs) => rs.filter((r) => r.attributes['browser.session.id'] === 'job-b').length >= 10, 20_000);
  b.end();

  const res = await bridge.done;
  expect(res.code).toBe(0);
  expect(res.stderr).toMatch(/every followed session ended and everything was delivered/);
  for (const t of tallyDelivery(receiver.records, ['job-a', 'job-b'], (id) => sim!.session(id)!.lastSeq))
    expect(t).toMatchObject({ missing: 0, gapRecords: 0 });
  expect(receiver.records.some((r) => r.attributes['browser.session.id'] === 'other')).toBe(false);
}, 60_000);
