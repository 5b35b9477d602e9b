// An API key with a line end: a Kubernetes Secret made from a file that ends in a newline and
// mounted as BROWSER_API_KEY keeps it. node:http refuses such a header (ERR_INVALID_CHAR), so every
// stream request failed before it left, reported as an unreachable service (`check`: "cannot reach
// … ERR_INVALID_CHAR") while the daemon retried forever and delivered nothing. The key is trimmed as
// the key file always was; a line break inside a key is a configuration error naming the variable,
// and a key file rotated to one is named at the retry. Real sockets and real CLI processes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';
import { runCli } from './cli-process.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('an API key with a line end', () => {
  it('a trailing newline is trimmed: the daemon streams and delivers, check passes', async () => {
    h = await harness();
    h.sim.createSession('n1').emit(40);
    await h.startBridge({ ...FAST, sessions: ['n1'] }, { BROWSER_API_KEY: 'sim-key\n' });
    await until(() => h!.received('n1') === 40, 'every event delivered', 20_000);

    const check = await runCli(['check'], h.env({ BRIDGE_SESSIONS: 'n1', BROWSER_API_KEY: 'sim-key\r\n' }));
    expect(check.stdout).toMatch(/✓ service /);
    expect(check.stdout).not.toContain('ERR_INVALID_CHAR');
  }, 40_000);

  it('a line break inside the key: one line naming the variable, exit 2, the key not shown', async () => {
    const res = await runCli(['validate'], {
      BROWSER_API_URL: 'http://127.0.0.1:9',
      BROWSER_API_KEY: 'secret-part\nother-part',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(
      'invalid configuration: BROWSER_API_KEY: the key contains a line break (CR or LF), which no HTTP header may carry (the key is not shown)\n',
    );
  });

  it('a key file rotated to a key with a line break inside: the retry names the file, not the network', async () => {
    h = await harness();
    h.sim.createSession('n2').emit(5);
    const keyFile = join(h.stateDir, 'api-key');
    writeFileSync(keyFile, 'wrong-key\n');
    const bridge = await h.startBridge(
      { ...FAST, sessions: ['n2'] },
      { BROWSER_API_KEY: '', BROWSER_API_KEY_FILE: keyFile },
    );
    const lastError = (): string => JSON.stringify(bridge.supervisor.session('n2')?.lastError ?? '');
    await until(() => lastError().includes('refuses the API key'), 'the first key refused', 20_000);
    writeFileSync(keyFile, 'sim-\nkey\n');
    await until(
      () => lastError().includes(`the key in API key file ${keyFile} contains a line break`),
      'the file named',
      20_000,
    );
    expect(lastError()).not.toContain('ERR_INVALID_CHAR');
  }, 40_000);
});
