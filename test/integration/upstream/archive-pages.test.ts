// Archive pages over a real socket: a large page that arrives slowly but steadily is read whole
// (its deadline fits its size, not the connect timeout), and a page cut mid-body is asked again
// instead of being taken for "not JSON" and the gap for a loss.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ArchiveReader } from '../../../src/upstream/archive.js';
import { createApiKeyProvider } from '../../../src/upstream/api-key.js';
import { UpstreamClient } from '../../../src/upstream/client.js';

const CONNECT_TIMEOUT_MS = 300;

let server: Server | undefined;
let client: UpstreamClient | undefined;
afterEach(async () => {
  await client?.close();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = client = undefined;
});

/** One page of `n` archived events, each carrying `pad` bytes (a screenshot's worth of text). */
function pageBody(n: number, pad: number): string {
  const events = Array.from({ length: n }, (_, i) => ({
    seq: i + 1,
    event: {
      type: 'screenshot',
      category: 'screenshot',
      ts: 1_700_000_000_000_000 + i,
      source: { kind: 'cdp', metadata: { telemetry_session_id: 't1' } },
      data: { png: 'A'.repeat(pad) },
    },
  }));
  return JSON.stringify(events);
}

async function serve(handler: (res: ServerResponse, request: number) => void): Promise<string> {
  let requests = 0;
  server = createServer((req, res) => {
    req.resume();
    handler(res, ++requests);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new UpstreamClient({
    baseUrl: url,
    apiKey: createApiKeyProvider({ apiKey: 'k' }),
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
  });
  return url;
}

function scan(): Promise<{ read: Awaited<ReturnType<ArchiveReader['scan']>>; seqs: number[] }> {
  const reader = new ArchiveReader(client!, pino({ level: 'silent' }), { mode: 'auto', retryDelayMs: 10 });
  const seqs: number[] = [];
  return reader
    .scan('s1', {
      sinceMicros: 0,
      onPage: (envs) => {
        for (const e of envs) seqs.push(e.seq);
        return true;
      },
    })
    .then((read) => ({ read, seqs }));
}

describe('archive pages', () => {
  it('a 2 MB page that takes several times the connect timeout to arrive is read whole', async () => {
    const body = Buffer.from(pageBody(100, 20_000));
    await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-has-more': 'false' });
      // Ten slices, one every 120 ms: well above any minimum rate, well beyond the connect timeout.
      const slice = Math.ceil(body.length / 10);
      let i = 0;
      const t = setInterval(() => {
        res.write(body.subarray(i * slice, (i + 1) * slice));
        if (++i === 10) {
          clearInterval(t);
          res.end();
        }
      }, 120);
    });
    const { read, seqs } = await scan();
    expect(read).toEqual({ kind: 'ok', envelopes: [] });
    expect(seqs).toHaveLength(100);
  });

  it('a page cut mid-body is asked again, and the second answer is used', async () => {
    const body = Buffer.from(pageBody(100, 2_000));
    await serve((res, request) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-has-more': 'false', 'content-length': body.length });
      if (request === 1) {
        res.write(body.subarray(0, body.length / 2), () => res.destroy());
        return;
      }
      res.end(body);
    });
    const { read, seqs } = await scan();
    expect(read).toEqual({ kind: 'ok', envelopes: [] });
    expect(seqs).toHaveLength(100);
  });
});
