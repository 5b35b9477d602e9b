// The upstream client never sends the key to a path an id's dot-segments would climb to; measured on
// a real server that records every path it is asked.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamClient } from '../../../src/upstream/client.js';

let server: Server;
const seen: string[] = [];
let client: UpstreamClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":"not_found","message":"no"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  client = new UpstreamClient({
    baseUrl: base,
    apiKey: { get: () => 'k', invalidate: () => {}, source: 'test' },
    connectTimeoutMs: 2000,
  });
});
afterAll(async () => {
  await client.close();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('ids made of dots', () => {
  it.each(['.', '..'])('%j: stream, archive and pool are refused before any request', async (id) => {
    seen.length = 0;
    await expect(client.openStream(id, { replayAll: true }, new AbortController().signal)).rejects.toThrow(/dots only/);
    await expect(client.listEvents(id, { limit: 1 })).rejects.toThrow(/dots only/);
    await expect(client.getPool(id)).rejects.toThrow(/dots only/);
    expect(seen).toEqual([]);
  });
  it('an id with dots inside still reaches its own path', async () => {
    seen.length = 0;
    await client.getPool('a..b');
    expect(seen).toEqual(['/api/browser_pools/a..b']);
  });
});
