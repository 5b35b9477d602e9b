// `check` with discovery enabled, as a child process against the simulator: how many live sessions
// the selector matches now, and a service without the session list.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../../src/devkit/receiver/server.js';
import { startSimulator, type Simulator } from '../../../src/devkit/simulator/index.js';
import { runCli } from './cli-process.js';

let sim: Simulator | undefined;
let receiver: Receiver | undefined;
let dir: string | undefined;
afterEach(async () => {
  await sim?.close();
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function world(listRoute: boolean): Promise<Record<string, string>> {
  sim = await startSimulator({ listRoute });
  receiver = await startReceiver();
  dir = mkdtempSync(join(tmpdir(), 'check-discovery-'));
  for (let i = 0; i < 3; i++) sim.createSession(`a${i}`, { tags: { team: 'a' } });
  sim.createSession('b0', { tags: { team: 'b' } });
  sim.createSession('a-ended', { tags: { team: 'a' } }).end();
  return {
    BROWSER_API_URL: sim.url,
    BROWSER_API_KEY: 'sim-key',
    BRIDGE_STATE_DIR: join(dir, 'state'),
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    BRIDGE_DISCOVER: 'true',
    BRIDGE_DISCOVER_TAGS: 'team=a',
  };
}

describe('check with discovery', () => {
  it('says how many live sessions the selector matches now', async () => {
    const res = await runCli(['check'], await world(true));
    expect(res.stdout).toMatch(
      /^✓ discovery\s+team=a: 3 live sessions match now \(1 page\); new ones are found every 10 s$/m,
    );
    expect(res.code).toBe(0);
  });

  it('a service without the list: ✗ with the reason, exit 1', async () => {
    const res = await runCli(['check'], await world(false));
    expect(res.stdout).toMatch(/^✗ discovery\s+the service has no session list \(GET \/browsers answered 404\)/m);
    expect(res.code).toBe(1);
  });
});
