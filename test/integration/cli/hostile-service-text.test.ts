// What the service says reaches a person's terminal through `pool` and `check`: a pool's name and
// region, an error body's code and message. Control characters in them would steer the terminal
// (ESC ] 0 sets the window title, ESC [ 2 J clears the screen, CR overwrites the line), so none of
// them may be printed; `tail` and `top` already showed them as U+FFFD. Real CLI processes against
// the simulator and a loopback service that refuses every key with such a message.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePool, startSimulator, type Simulator } from '../../../src/devkit/simulator/index.js';
import { runCli } from './cli-process.js';

const HOSTILE = 'x\u001b]0;PWNED\u0007\u001b[2J\r\u001b[31my';
const SHOWN = 'x\ufffd]0;PWNED\ufffd\ufffd[2J\ufffd\ufffd[31my';

let sim: Simulator;
let refusing: Server;
let refusingUrl: string;

beforeAll(async () => {
  sim = await startSimulator();
  // The simulator's type knows its two regions; the service's answer may say anything.
  sim.addPool(makePool({ id: 'pool_evil', name: `name ${HOSTILE}`, region: `region ${HOSTILE}` as 'us-east' }));
  sim.addPool(makePool({ id: 'pool_c1', name: C1 }));
  refusing = createServer((_req, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: `unauthorized${HOSTILE}`, message: `bad key ${HOSTILE}` }));
  });
  await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', () => r()));
  refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await sim.close();
  refusing.closeAllConnections();
  await new Promise<void>((r) => refusing.close(() => r()));
});

const ESC = '\u001b';
// C1 controls (CSI, OSC) and bidi overrides: JSON.stringify leaves them raw inside a string.
const C1 = 'n\u009b2J\u009d0;owned\u009c\u202eb';

describe("the service's text on a terminal", () => {
  it("pool: the pool's name and region without their control characters", async () => {
    const res = await runCli(['pool', 'pool_evil', '--no-color'], {
      BROWSER_API_URL: sim.url,
      BROWSER_API_KEY: 'sim-key',
    });
    expect(res.code).toBe(0);
    expect(res.stdout).not.toContain(ESC);
    expect(res.stdout).toContain(`name ${SHOWN} (pool_evil)`);
    expect(res.stdout).toContain(`region ${SHOWN}`);
  });

  it("pool and check: the service's error message without its control characters", async () => {
    const env = { BROWSER_API_URL: refusingUrl, BROWSER_API_KEY: 'k', NO_COLOR: '1' };
    const pool = await runCli(['pool', 'p1'], env);
    expect(pool.code).toBe(1);
    expect(pool.stderr).not.toContain(ESC);
    expect(pool.stderr).toContain(`bad key ${SHOWN}`);

    const check = await runCli(['check'], {
      ...env,
      BRIDGE_SESSIONS: 's1',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      BRIDGE_STATE_DIR: '/nonexistent/state',
    });
    expect(check.code).toBe(1);
    expect(check.stdout + check.stderr).not.toContain(ESC);
    expect(check.stdout).toContain(`bad key ${SHOWN}`);
  });

  it('pool -o json: C1 controls and bidi overrides in the resource as \\u escapes, the same value for jq', async () => {
    const res = await runCli(['pool', 'pool_c1', '-o', 'json'], {
      BROWSER_API_URL: sim.url,
      BROWSER_API_KEY: 'sim-key',
    });
    expect(res.code).toBe(0);
    expect(res.stdout).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect((JSON.parse(res.stdout) as { name: string }).name).toBe(C1);
  });
});
