// A request body goes out as its chunks, behind one Content-Length computed from their lengths (no
// chunked transfer encoding, no join), and arrives as their concatenation; with gzip, the whole body
// is compressed once. Real sockets on loopback.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createOtlpTransport } from '../../../src/export/otlp-transport.js';

interface Received {
  headers: IncomingHttpHeaders;
  bytes: Buffer;
}

let server: Server | undefined;
afterEach(async () => {
  if (server) await new Promise((r) => server!.close(r));
  server = undefined;
});

/** A collector that keeps each request's headers and raw body bytes and answers 200, empty. */
async function recording(got: Received[]): Promise<string> {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, bytes: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/logs`;
}

const bytes = (n: number, fill: number): Buffer => Buffer.alloc(n, fill);
const bodies: Array<[string, Buffer[]]> = [
  ['no chunks', []],
  ['one chunk', [bytes(10, 1)]],
  ['empty chunks among others', [bytes(0, 0), bytes(3, 2), bytes(0, 0), bytes(5, 3)]],
  ['a large chunk after a small one', [bytes(7, 4), bytes(300_000, 5)]],
  // More than a writev takes at once (IOV_MAX, 1024 on Linux): the socket writes it in turns.
  ['3,000 small chunks', Array.from({ length: 3000 }, (_, i) => bytes(1 + (i % 37), i % 251))],
];

describe('an HTTP request body as chunks', () => {
  for (const compression of ['none', 'gzip'] as const) {
    it.each(bodies)(`compression ${compression}: %s`, async (_, chunks) => {
      const got: Received[] = [];
      const t = createOtlpTransport({
        url: await recording(got),
        headers: {},
        compression,
        timeoutMs: 10_000,
        connections: 1,
        userAgent: 'test',
      });
      // Twice: the second request goes on the kept-alive connection, already open when it is written.
      for (let i = 0; i < 2; i++)
        expect(await t.send(chunks, 'application/x-protobuf')).toEqual({ kind: 'success', rejected: 0 });
      await t.close();
      const expected = Buffer.concat(chunks);
      expect(got).toHaveLength(2);
      for (const r of got) {
        expect(r.headers['transfer-encoding']).toBeUndefined();
        expect(r.headers['content-length']).toBe(String(r.bytes.length));
        expect(r.headers['content-encoding']).toBe(compression === 'gzip' ? 'gzip' : undefined);
        expect(compression === 'gzip' ? gunzipSync(r.bytes) : r.bytes).toEqual(expected);
      }
    });
  }
});
