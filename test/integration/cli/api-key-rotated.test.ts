// The API key rotated while the daemon (a real child process) streams: a loopback front for the
// simulator accepts only the current key and drops the open streams when it changes, as a service
// revoking a key does. The daemon must say the key is refused (log, /readyz), read the key file
// again at each retry, and resume where it stopped once the file holds the new key: every event
// once, none lost.
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exited, harness, spawnDaemon, surfaceUrl, until, type Harness } from '../../helpers/harness.js';
import { forward } from '../../helpers/forward.js';
import { runToTheEnd } from '../../helpers/run-to-end.js';

let h: Harness;
let front: Server | undefined;
afterEach(async () => {
  front?.closeAllConnections();
  await new Promise<void>((r) => (front ? front.close(() => r()) : r()));
  front = undefined;
  await h?.close();
});

/** Passes requests bearing `key()` to the simulator (with its own key); answers others 401 as the service does. */
async function keyedFront(target: string, key: () => string): Promise<string> {
  const to = new URL(target);
  front = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${key()}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"code":"unauthorized","message":"invalid API key"}');
      return;
    }
    forward(req, res, to, { ...req.headers, authorization: 'Bearer sim-key' });
  });
  await new Promise<void>((r) => front!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
}

describe('the API key rotated while the daemon streams', () => {
  it('is reported as refused, and the new key in the key file resumes every session where it stopped', async () => {
    h = await harness({ bufferSize: 100_000 });
    let current = 'key-one';
    const url = await keyedFront(h.sim.url, () => current);
    const ids = ['r1', 'r2'];
    for (const id of ids) h.sim.createSession(id).produce(200);
    const keyFile = join(h.stateDir, 'api-key');
    writeFileSync(keyFile, 'key-one\n');
    const config = join(h.stateDir, 'bridge.yaml');
    writeFileSync(config, 'upstream: { idle_timeout: 3s, backoff: { initial: 50ms, max: 200ms, auth: 300ms } }\n');
    const d = spawnDaemon(
      h.env({
        BRIDGE_CONFIG: config,
        BRIDGE_SESSIONS: ids.join(','),
        BROWSER_API_URL: url,
        BROWSER_API_KEY: '',
        BROWSER_API_KEY_FILE: keyFile,
        BRIDGE_LISTEN: '127.0.0.1:0',
        LOG_LEVEL: 'info',
      }),
      ['run', '--until-ended'],
    );
    try {
      await until(() => ids.every((id) => h.received(id) > 100), 'delivery with the first key', 30_000);
      current = 'key-two';
      front!.closeAllConnections();
      await until(
        () => (d.output().match(/"reason":"unauthorized"/g) ?? []).length >= 2,
        'both sessions refused',
        30_000,
      );
      const ready = await fetch(`${surfaceUrl(d.output())!}/readyz`);
      expect(ready.status).toBe(503);
      expect(JSON.stringify(await ready.json())).toMatch(/refuses the API key for 2 session/);
      expect(d.output()).not.toContain('key-one');
      writeFileSync(keyFile, 'key-two\n');
      await runToTheEnd(h, d, ids, { lag: 400, what: 'delivery with the second key', timeoutMs: 30_000 });
    } finally {
      if (d.exitCode === null) d.kill('SIGKILL');
      await exited(d);
    }
  }, 90_000);
});
