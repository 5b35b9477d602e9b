// check beside a running bridge: it reads the bridge's /readyz and says which of its transports
// fail, the records' and the spans' apart. A loopback server answers as a running bridge would.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { probeRunningBridge } from '../../../src/cli/check-running-bridge.js';

let server: Server | undefined;
afterEach(async () => {
  if (server) await new Promise((r) => server!.close(r));
  server = undefined;
});

async function readyz(body: unknown): Promise<{ host: string; port: number }> {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { host: '127.0.0.1', port: (server.address() as AddressInfo).port };
}

describe('check beside a running bridge', () => {
  it('ready, with failing exports and failing span exports: ✓ and one warning for each', async () => {
    const listen = await readyz({
      status: 'ready',
      exporter: { failing: true, lastError: 'HTTP 503: busy' },
      traces: { failing: true, lastError: 'network: ECONNREFUSED', queued: 12 },
      spool: { records: 40 },
    });
    const item = await probeRunningBridge('/state', listen, 2000);
    expect(item.status).toBe('ok');
    expect(item.notes).toEqual([
      { level: 'warn', text: "the running bridge's exports are failing: HTTP 503: busy (40 records spooled)" },
      {
        level: 'warn',
        text: "the running bridge's span exports are failing: network: ECONNREFUSED (12 spans waiting)",
      },
    ]);
  });

  it('ready and healthy: ✓ without a warning', async () => {
    const listen = await readyz({ status: 'ready', exporter: { failing: false }, traces: { failing: false } });
    const item = await probeRunningBridge('/state', listen, 2000);
    expect(item.status).toBe('ok');
    expect(item.notes ?? []).toEqual([]);
  });
});
