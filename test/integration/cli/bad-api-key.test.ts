// A bad API key: the daemon (a real child process) says what to check, /readyz reports it (503),
// retries within about a minute (not five), and picks up a corrected key file by itself.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, spawnDaemon, surfaceUrl, until, type Harness } from '../../helpers/harness.js';

let h: Harness;
afterEach(async () => h?.close());

const reconnects = (out: string) =>
  out
    .split('\n')
    .filter((l) => l.includes('"reason":"unauthorized"'))
    .map((l) => JSON.parse(l) as { delayMs: number; detail: string });

describe('a bad API key', () => {
  it('says what to check, is not ready, and retries within a minute', async () => {
    h = await harness();
    h.sim.createSession('k1').emit(3);
    const d = spawnDaemon(
      h.env({ BRIDGE_SESSIONS: 'k1', BROWSER_API_KEY: 'wrong-key', BRIDGE_LISTEN: '127.0.0.1:0', LOG_LEVEL: 'info' }),
    );
    try {
      await until(() => reconnects(d.output()).length >= 2, 'two refused attempts', 30_000);
      const [, second] = reconnects(d.output());
      expect(second!.delayMs).toBeLessThanOrEqual(60_000);
      expect(second!.detail).toMatch(/refuses the API key; check BROWSER_API_KEY/);
      expect(d.output()).not.toContain('wrong-key');
      const ready = await fetch(`${surfaceUrl(d.output())!}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { problems: string[] }).problems.join(' ')).toMatch(
        /refuses the API key for 1 session\(s\) \(check BROWSER_API_KEY/,
      );
    } finally {
      d.kill('SIGKILL');
    }
  }, 60_000);

  it('a corrected key file is picked up at the next retry, and readiness recovers', async () => {
    h = await harness();
    h.sim.createSession('k2').emit(3);
    const keyFile = join(h.stateDir, 'api-key');
    writeFileSync(keyFile, 'wrong-key\n');
    const config = join(h.stateDir, 'bridge.yaml');
    writeFileSync(config, 'upstream: { backoff: { initial: 50ms, max: 200ms, auth: 300ms } }\n');
    const d = spawnDaemon(
      h.env({
        BRIDGE_CONFIG: config,
        BRIDGE_SESSIONS: 'k2',
        BROWSER_API_KEY: '',
        BROWSER_API_KEY_FILE: keyFile,
        BRIDGE_LISTEN: '127.0.0.1:0',
        LOG_LEVEL: 'info',
      }),
    );
    try {
      await until(() => reconnects(d.output()).length >= 1, 'a refused attempt', 30_000);
      expect(reconnects(d.output())[0]!.detail).toContain(`the key file ${keyFile}`);
      writeFileSync(keyFile, 'sim-key\n');
      await until(() => h.receiver.records.length >= 3, 'the events once the key is right', 30_000);
      expect((await fetch(`${surfaceUrl(d.output())!}/readyz`)).status).toBe(200);
    } finally {
      d.kill('SIGKILL');
    }
  }, 60_000);
});
