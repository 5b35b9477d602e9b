// Clients of the HTTP surface that never finish: request bodies sent a byte at a time (slowloris)
// and connections that never finish their headers. The real `run` in a child process. What must
// hold: /healthz, /readyz and /metrics keep answering 200 to a legitimate client, and the surface
// holds a bounded number of connections (each one a file descriptor the bridge's streams need).
import { connect, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../../helpers/harness.js';
import { startCli, type CliProcess } from '../cli/cli-process.js';
import { MAX_CONNECTIONS_PER_ADDRESS } from '../../../src/server/connection-limits.js';
import { freePort } from '../../helpers/free-port.js';

let h: Harness;
let daemon: CliProcess | undefined;
const sockets: Socket[] = [];
let timer: NodeJS.Timeout | undefined;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  clearInterval(timer);
  for (const s of sockets.splice(0)) s.destroy();
  if (daemon && daemon.child.exitCode === null) {
    daemon.child.kill('SIGTERM');
    await daemon.done;
  }
  daemon = undefined;
  await h.close();
});

async function startDaemon(): Promise<number> {
  h.sim.createSession('s1').produce(10);
  const port = await freePort();
  daemon = startCli(['run'], h.env({ BRIDGE_SESSIONS: 's1', BRIDGE_LISTEN: `127.0.0.1:${port}` }));
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (res?.status === 200) return port;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Opens `n` connections from `from` that send `head` and then a byte a second, never finishing. */
function trickle(port: number, n: number, head: (i: number) => string, byte: string, from = '127.0.0.1'): Socket[] {
  const opened: Socket[] = [];
  for (let i = 0; i < n; i++) {
    const s = connect({ port, host: '127.0.0.1', localAddress: from });
    s.on('error', () => undefined);
    s.write(head(i));
    opened.push(s);
  }
  sockets.push(...opened);
  timer = setInterval(() => {
    for (const s of opened) if (!s.destroyed) s.write(byte);
  }, 1000);
  return opened;
}

async function status(port: number, path: string): Promise<number> {
  return (await fetch(`http://127.0.0.1:${port}${path}`)).status;
}

describe('slow clients of the HTTP surface', () => {
  // The second path reaches the same route (the URL's dot segments are resolved): it must take
  // the same slots, or the slow PUTs hold the probes'.
  it.each(['/v1/sessions/slow', '/healthz/../v1/sessions/slow'])(
    'request bodies sent a byte a second to %s… fill the control slots, not the probes',
    async (path) => {
      const port = await startDaemon();
      trickle(
        port,
        40,
        (i) =>
          `PUT ${path}${i} HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n`,
        ' ',
      );
      // The slow PUTs hold every slot of a kind once a request of that kind is turned away as busy:
      // the control API's, never the probes'.
      while ((await status(port, '/v1/sessions')) !== 503 && (await status(port, '/readyz')) !== 503)
        await new Promise((r) => setTimeout(r, 50));
      expect(await status(port, '/v1/sessions')).toBe(503);
      expect(await status(port, '/healthz')).toBe(200);
      expect(await status(port, '/readyz')).toBe(200);
      expect(await status(port, '/metrics')).toBe(200);
    },
  );

  it('connections that never finish their headers: one address holds a bounded number, the probes still answer', async () => {
    const port = await startDaemon();
    const held = trickle(port, 200, () => 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'x-a: b\r\n', '127.0.0.2');
    // The surface closes at once what it will not hold; the rest wait for their headers' timeout.
    let closed = 0;
    await new Promise<void>((resolve) => {
      for (const s of held)
        s.once('close', () => {
          if (++closed === held.length - MAX_CONNECTIONS_PER_ADDRESS) resolve();
        });
    });
    expect(await status(port, '/healthz')).toBe(200);
    expect(await status(port, '/readyz')).toBe(200);
  });
});
