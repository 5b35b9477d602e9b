// `simulate` and `receive` as commands of the CLI, used the way the README suggests: start both,
// then point `check` and `tail` at them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli, type CliProcess } from './cli-process.js';

const running: CliProcess[] = [];
let dir: string | undefined;

afterEach(() => {
  for (const p of running.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function start(args: string[]): CliProcess {
  const p = startCli(args, {});
  running.push(p);
  return p;
}

describe('simulate and receive', () => {
  it('are listed in the help and have their own', async () => {
    const help = await runCli(['--help'], {});
    expect(help.stdout).toMatch(/^ {2}simulate +run the bundled simulator/m);
    expect(help.stdout).toMatch(/^ {2}receive +run a local OTLP\/HTTP \(and with --grpc OTLP\/gRPC\) logs receiver/m);
    expect((await runCli(['simulate', '--help'], {})).stdout).toContain('Usage: browser-telemetry-bridge simulate');
    expect((await runCli(['receive', '--help'], {})).stdout).toContain('Usage: browser-telemetry-bridge receive');
    const bad = await runCli(['simulate', '--rate', 'fast'], {});
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('simulator: --rate must be a non-negative number\n');
  });

  it('a person can try check and tail against them, and Ctrl-C stops them (tail with its summary and 130)', async () => {
    const sim = start(['simulate', '--port', '0', '--sessions', 'demo-1', '--rate', '50']);
    const recv = start(['receive', '--port', '0']);
    await sim.waitFor(/\{"url":"[^"]+"\}\n/, 'stdout');
    await recv.waitFor(/listening on \S+/);
    await sim.waitFor(/Ctrl-C stops it/);
    const simUrl = (JSON.parse(sim.stdout()) as { url: string }).url;
    const logsUrl = /listening on (\S+)/.exec(recv.stderr())![1]!;
    expect(sim.stderr()).toContain(`session service simulator on ${simUrl} (API key: sim-key; sessions: demo-1)`);
    dir = mkdtempSync(join(tmpdir(), 'simrecv-'));

    const env = {
      BROWSER_API_URL: simUrl,
      BROWSER_API_KEY: 'sim-key',
      BRIDGE_SESSIONS: 'demo-1',
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: logsUrl,
      BRIDGE_STATE_DIR: join(dir, 'state'),
    };
    const check = await runCli(['check'], env);
    expect(check.stdout).toMatch(/all 6 checks passed/);
    expect(check.code).toBe(0);

    const t = startCli(['tail', 'demo-1', '--from', 'oldest', '-o', 'json'], {
      BROWSER_API_URL: simUrl,
      BROWSER_API_KEY: 'sim-key',
    });
    running.push(t);
    await t.waitFor(/"seq":1,/, 'stdout');
    t.child.kill('SIGINT');
    // tail says what it showed and exits 130 (128 + SIGINT), as a shell reports a command Ctrl-C stopped.
    const tailed = await t.done;
    expect(tailed.code).toBe(130);
    expect(tailed.stderr).toMatch(/^· stopped by SIGINT after [^:]+: \d+ events? shown/m);

    sim.child.kill('SIGINT');
    recv.child.kill('SIGINT');
    expect((await sim.done).code).toBe(0);
    expect((await recv.done).code).toBe(0);
  });

  it("the README's pool line works against the simulator: --pool names the pool `pool` then finds", async () => {
    const sim = start(['simulate', '--port', '0', '--sessions', 'demo-1', '--pool', 'my-pool']);
    await sim.waitFor(/\{"url":"[^"]+"\}\n/, 'stdout');
    await sim.waitFor(/Ctrl-C stops it/);
    expect(sim.stderr()).toContain('; pool: my-pool)');
    const simUrl = (JSON.parse(sim.stdout()) as { url: string }).url;
    const pool = await runCli(['pool', 'my-pool'], { BROWSER_API_URL: simUrl, BROWSER_API_KEY: 'sim-key' });
    expect(pool.stdout).toMatch(/^Pool {11}my-pool \(pool_[0-9a-f]+\)$/m);
    expect(pool.code).toBe(0);
    expect((await runCli(['simulate', '--help'], {})).stdout).toMatch(
      /--pool NAME +put the created sessions in a pool of this name/,
    );
    sim.child.kill('SIGINT');
    expect((await sim.done).code).toBe(0);
  });

  it('simulate on a port in use is one line naming the flag, exit 1, no stack trace', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const res = await runCli(['simulate', '--port', String(port)], {});
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(
        `simulator: 127.0.0.1:${port} is already in use (another instance, a collector or another program?); choose another port with --port, or 0 for any free port\n`,
      );
    } finally {
      blocker.close();
    }
  });
});
