// Pool lookups are bounded per client: a burst of new pool references reaches the service at most
// MAX_POOL_LOOKUPS at a time (measured at a real server that holds every request for a while).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_POOL_LOOKUPS, UpstreamClient } from '../../../src/upstream/client.js';

let server: Server;
let client: UpstreamClient;
let now = 0;
let peak = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    now++;
    peak = Math.max(peak, now);
    setTimeout(() => {
      now--;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: req.url?.split('/').pop() }));
    }, 30);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  client = new UpstreamClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKey: { get: () => 'k', invalidate: () => {}, source: 'test' },
    connectTimeoutMs: 5000,
  });
});
afterAll(async () => {
  await client.close();
  await new Promise<void>((r) => server.close(() => r()));
});

it(`40 lookups at once reach the service at most ${MAX_POOL_LOOKUPS} at a time, and all are answered`, async () => {
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => client.getPool(`pool_${i}`)));
  expect(results.map((r) => (r.kind === 'ok' ? (r.value as { id: string }).id : r.kind))).toEqual(
    Array.from({ length: 40 }, (_, i) => `pool_${i}`),
  );
  expect(peak).toBeGreaterThan(1);
  expect(peak).toBeLessThanOrEqual(MAX_POOL_LOOKUPS);
});
