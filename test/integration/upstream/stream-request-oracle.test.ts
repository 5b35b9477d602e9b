// The whole read path of a stream on a socket of our own, against eventsource-parser as the oracle:
// random SSE streams, framed in random HTTP chunks, written over loopback in random slices, read
// into the thread's shared buffer with holds at random reads, decoded by the frame decoder. The
// frames must be those eventsource-parser finds in the stream's text, whatever the cuts and holds.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { makeTestCerts, type TestCerts } from '../../helpers/test-certs.js';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFrameDecoder, type Frame } from '../../../src/stream/frame-decoder.js';
import { requestStream } from '../../../src/upstream/stream-request.js';

/** mulberry32: the same streams on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', 'é', '{"seq":1}', ' ', ':', '€', 'data', '\u{1F600}', 'x'.repeat(700)];
const EOLS = ['\n', '\r\n', '\r'];

/** An SSE stream of `frames` frames with comments, multi-line data and every kind of line end. */
function sseText(rand: () => number, frames: number): string {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
  let text = '';
  for (let f = 1; f <= frames; f++) {
    const eol = pick(EOLS);
    if (rand() < 0.2) text += `: keepalive${eol}`;
    text += `id: ${f}${eol}`;
    const lines = 1 + Math.floor(rand() * 3);
    for (let l = 0; l < lines; l++) {
      let value = '';
      const n = Math.floor(rand() * 6);
      for (let i = 0; i < n; i++) value += pick(PIECES);
      text += `data: ${value}${eol}`;
    }
    text += eol;
  }
  return text;
}

function oracle(text: string): Frame[] {
  const frames: Frame[] = [];
  const parser = createParser({ onEvent: (ev) => frames.push({ id: ev.id, data: ev.data }) });
  parser.feed(text);
  return frames;
}

/** The body as HTTP chunks of random sizes, cut at any byte (inside characters too). */
function chunkedWire(rand: () => number, body: Buffer): Buffer {
  const parts: Buffer[] = [
    Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n'),
  ];
  for (let i = 0; i < body.length;) {
    const size = Math.min(body.length - i, 1 + Math.floor(rand() * 3000));
    parts.push(Buffer.from(`${size.toString(16)}\r\n`), body.subarray(i, i + size), Buffer.from('\r\n'));
    i += size;
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

let servers: Server[] = [];
/** The same server over plain TCP and over TLS (the test CA's certificate). */
const urls = { http: new URL('http://unset'), https: new URL('https://unset') };
let certs: TestCerts;
const wires = new Map<string, { wire: Buffer; seed: number }>();
const open = new Set<Socket>();

beforeAll(async () => {
  certs = makeTestCerts();
  const serve = (socket: Socket): void => {
    socket.on('error', () => {});
    socket.once('data', (b) => {
      const path = /^GET (\S+)/.exec(b.toString('latin1'))![1]!;
      const { wire, seed } = wires.get(path)!;
      const rand = prng(seed ^ 0x5bd1e995);
      let i = 0;
      const next = (): void => {
        if (i >= wire.length) return void socket.end();
        const n = 1 + Math.floor(rand() * (rand() < 0.5 ? 40 : 9000));
        const slice = wire.subarray(i, i + n);
        i += n;
        socket.write(slice, () => setImmediate(next));
      };
      next();
    });
  };
  servers = [createServer(serve), createTlsServer({ key: certs.pem.serverKey, cert: certs.pem.serverCert }, serve)];
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()))));
  const port = (s: Server): number => (s.address() as AddressInfo).port;
  urls.http = new URL(`http://127.0.0.1:${port(servers[0]!)}`);
  urls.https = new URL(`https://127.0.0.1:${port(servers[1]!)}`);
});
afterAll(async () => {
  for (const s of open) s.destroy();
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  certs.remove();
});

describe('a stream read on our own socket, against eventsource-parser', () => {
  it.each(['http', 'https'] as const)(
    '%s: gives the oracle’s frames for random streams, chunkings, write slices and holds',
    async (scheme) => {
      for (let seed = 1; seed <= 24; seed++) {
        const rand = prng(seed);
        const text = sseText(rand, 20 + Math.floor(rand() * 60));
        const path = `/s/${seed}`;
        wires.set(path, { wire: chunkedWire(rand, Buffer.from(text, 'utf8')), seed });
        const res = await requestStream(
          {
            url: new URL(path, urls[scheme]),
            headers: {},
            tls: { ca: certs.pem.ca },
            signal: new AbortController().signal,
            connectTimeoutMs: 2000,
            headersTimeoutMs: 2000,
          },
          open,
        );
        const frames: Frame[] = [];
        const decoder = createFrameDecoder(() => {
          throw new Error('frame limit');
        });
        const err = await new Promise<Error | undefined>((resolve) =>
          res.body.start((chunk) => {
            decoder.feed(chunk, frames);
            // Held at random reads, as back-pressure and fair-share turns hold a session.
            if (rand() < 0.3) {
              res.body.pause();
              setImmediate(() => res.body.resume());
            }
          }, resolve),
        );
        decoder.end(frames);
        expect(err, `seed ${seed}`).toBeUndefined();
        expect(frames, `seed ${seed}`).toEqual(oracle(text));
      }
    },
  );
});
