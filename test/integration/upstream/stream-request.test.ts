// The telemetry stream's GET on a socket of the bridge's own (src/upstream/stream-request.ts),
// against raw TCP servers on loopback that answer as a real peer may: slowly, with garbage, with a
// reset or a close in the middle of a chunk, or faster than the reader reads.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { requestStream, type StreamResponse } from '../../../src/upstream/stream-request.js';
import { UpstreamClient } from '../../../src/upstream/client.js';
import { HEADERS_TIMEOUT } from '../../../src/util/http-timeout.js';
import { makeTestCerts, type TestCerts } from '../../helpers/test-certs.js';

const servers: Server[] = [];
const open = new Set<Socket>();

afterEach(async () => {
  for (const s of open) s.destroy();
  open.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
});

let certs: TestCerts;
beforeAll(() => {
  certs = makeTestCerts();
});
afterAll(() => certs.remove());

/**
 * A server whose connections `answer` handles (TLS with the test CA's certificate when `secure`);
 * resolves with its base URL and what it was asked.
 */
async function serve(
  answer: (socket: Socket, request: string) => void,
  secure = false,
): Promise<{ url: URL; asked: string[] }> {
  const asked: string[] = [];
  const onConnection = (socket: Socket): void => {
    socket.on('error', () => {});
    let head = '';
    const onData = (b: Buffer): void => {
      head += b.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      asked.push(head);
      answer(socket, head);
    };
    socket.on('data', onData);
  };
  const server = secure
    ? createTlsServer({ key: certs.pem.serverKey, cert: certs.pem.serverCert }, onConnection)
    : createServer(onConnection);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const scheme = secure ? 'https' : 'http';
  return { url: new URL(`${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}/s?replay=all`), asked };
}

function get(
  url: URL,
  o: { signal?: AbortSignal; headersTimeoutMs?: number; ca?: string; tls?: { ca: string } } = {},
): Promise<StreamResponse> {
  return requestStream(
    {
      url,
      headers: { accept: 'text/event-stream', authorization: 'Bearer k' },
      signal: o.signal ?? new AbortController().signal,
      connectTimeoutMs: 2000,
      headersTimeoutMs: o.headersTimeoutMs ?? 2000,
      // https://: the test CA (the system roots do not know it).
      tls: o.tls ?? { ca: o.ca ?? certs.pem.ca },
    },
    open,
  );
}

/** Reads a body to its end: its bytes (copied in the callback) and how it ended. */
function drain(res: StreamResponse): Promise<{ text: string; err?: Error }> {
  const parts: Buffer[] = [];
  return new Promise((resolve) =>
    res.body.start(
      (chunk) => parts.push(Buffer.from(chunk)),
      (err) => resolve({ text: Buffer.concat(parts).toString('utf8'), ...(err ? { err } : {}) }),
    ),
  );
}

const HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n';
const chunk = (s: string): string => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;

describe('the stream GET on a socket of our own', () => {
  it('sends the request line, host and headers, and reads a body sent one byte at a time', async () => {
    const wire = HEAD + chunk('id: 1\ndata: {"a":1}\n\n') + chunk('id: 2\ndata: é\n\n') + '0\r\n\r\n';
    const { url, asked } = await serve((socket) => {
      let i = 0;
      const next = (): void => {
        if (i === wire.length) return void socket.end();
        socket.write(wire[i++]!, () => setImmediate(next));
      };
      next();
    });
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(await drain(res)).toEqual({ text: 'id: 1\ndata: {"a":1}\n\nid: 2\ndata: é\n\n' });
    expect(asked[0]).toMatch(/^GET \/s\?replay=all HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\n/);
    expect(asked[0]).toContain('authorization: Bearer k\r\n');
  });

  it('ends the body with the error of a reset in the middle of a chunk', async () => {
    const { url } = await serve((socket) => {
      socket.write(HEAD + chunk('id: 1\ndata: 1\n\n') + '40\r\nid: 2\nda', () => socket.resetAndDestroy());
    });
    const got = await drain(await get(url));
    expect(got.text).toBe('id: 1\ndata: 1\n\nid: 2\nda');
    // The kernel reports the reset (ECONNRESET), or, when the socket saw the end of its input before
    // the reset arrived (it happens under load), the body ends cut in the middle of a chunk: an
    // error either way, after every byte that came before it.
    expect(['ECONNRESET', 'HTTP_PARSE']).toContain((got.err as NodeJS.ErrnoException).code);
  });

  it('ends the body with an error when the peer closes in the middle of a chunk', async () => {
    const { url } = await serve((socket) => socket.end(HEAD + '40\r\nid: 2\n'));
    const got = await drain(await get(url));
    expect(got.err?.message).toMatch(/inside a chunked body/);
  });

  it('refuses an answer that is not HTTP, and a head that never ends', async () => {
    const garbage = await serve((socket) => socket.end('\x16\x03\x01 garbage\r\n\r\n'));
    await expect(get(garbage.url)).rejects.toThrow(/not an HTTP\/1.1 status line/);
    const endless = await serve((socket) => socket.write('HTTP/1.1 200 OK\r\nx: ' + 'a'.repeat(20_000)));
    await expect(get(endless.url)).rejects.toThrow(/response head over/);
  });

  it('fails with the headers timeout when no answer comes', async () => {
    const { url } = await serve(() => {});
    await expect(get(url, { headersTimeoutMs: 50 })).rejects.toMatchObject({ code: HEADERS_TIMEOUT });
  });

  it('an abort before the answer rejects; after it, it ends the body with the reason', async () => {
    const silent = await serve(() => {});
    const early = new AbortController();
    const pending = get(silent.url, { signal: early.signal });
    early.abort(new Error('stopped early'));
    await expect(pending).rejects.toThrow('stopped early');

    const { url } = await serve((socket) => socket.write(HEAD));
    const late = new AbortController();
    const res = await get(url, { signal: late.signal });
    const got = drain(res);
    late.abort(new Error('stopped late'));
    expect((await got).err?.message).toBe('stopped late');
  });

  it('writes header values as node:http does: latin1 bytes, and refuses what node:http refuses', async () => {
    let raw = Buffer.alloc(0);
    const { url } = await serve((socket) => socket.end('HTTP/1.1 204 No Content\r\n\r\n'));
    const server = servers.at(-1)!;
    server.prependListener('connection', (socket: Socket) =>
      socket.on('data', (b: Buffer) => (raw = Buffer.concat([raw, b]))),
    );
    const request = (headers: Record<string, string>) =>
      requestStream(
        { url, headers, signal: new AbortController().signal, connectTimeoutMs: 0, headersTimeoutMs: 0 },
        open,
      );
    await request({ 'x-key': 'caf\u00e9' });
    // One byte for é, as node:http's latin1 head: not UTF-8's two.
    expect(raw.includes(Buffer.from('x-key: caf\xe9\r\n', 'latin1'))).toBe(true);
    for (const headers of [{ 'x-key': 'a\u0001b' }, { 'x-key': 'euro \u20ac' }])
      await expect(request(headers)).rejects.toMatchObject({ code: 'ERR_INVALID_CHAR' });
    await expect(request({ 'x key': 'v' })).rejects.toMatchObject({ code: 'ERR_INVALID_HTTP_TOKEN' });
  });

  it('refuses a header value that would split the request, before connecting', async () => {
    const { url, asked } = await serve(() => {});
    await expect(
      requestStream(
        {
          url,
          headers: { authorization: 'Bearer k\r\nx: y' },
          signal: new AbortController().signal,
          connectTimeoutMs: 0,
          headersTimeoutMs: 0,
        },
        open,
      ),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_CHAR' });
    expect(asked).toEqual([]);
  });

  it.each([
    ['http', false],
    ['https', true],
  ])(
    '%s: a held body stops reading: the peer is held back by TCP, and every byte comes once resumed',
    async (_scheme, secure) => {
      // 32 MiB: far beyond what loopback's socket buffers take, so the writer must stall.
      const piece = chunk(`data: ${'x'.repeat(16 * 1024)}\n\n`);
      const pieces = Math.ceil((32 * 1024 * 1024) / piece.length);
      let written = 0;
      let stalled: () => void = () => {};
      const writerStalled = new Promise<void>((r) => (stalled = r));
      const { url } = await serve((socket) => {
        socket.write(HEAD);
        const more = (): void => {
          while (written < pieces) {
            written++;
            if (!socket.write(piece)) {
              stalled();
              return void socket.once('drain', more);
            }
          }
          socket.end('0\r\n\r\n');
        };
        more();
      }, secure);
      const res = await get(url);
      let received = 0;
      let duringHold = 0;
      let held = false;
      const ended = new Promise<Error | undefined>((resolve) =>
        res.body.start((c) => {
          received += c.length;
          if (held) duringHold += c.length;
          if (!held && received < 256 * 1024) {
            held = true;
            res.body.pause();
          }
        }, resolve),
      );
      await writerStalled;
      // The writer stalls while the body is held: the bytes wait in the kernel, not in this process.
      await new Promise((r) => setImmediate(r));
      expect(duringHold).toBe(0);
      expect(written).toBeLessThan(pieces);
      held = false;
      // Resumed for good: a second hold would only be a first one again (received is past 256 KiB).
      received = Math.max(received, 256 * 1024);
      res.body.resume();
      expect(await ended).toBeUndefined();
      expect(written).toBe(pieces);
    },
  );

  it('https: the same request and body over TLS, on the shared read buffer', async () => {
    const wire = HEAD + chunk('id: 1\ndata: {"a":1}\n\n') + chunk('id: 2\ndata: é\n\n') + '0\r\n\r\n';
    const { url, asked } = await serve((socket) => {
      // One TLS record per piece: the reader sees the body cut anywhere.
      let i = 0;
      const next = (): void => {
        if (i >= wire.length) return void socket.end();
        socket.write(wire.slice(i, (i += 7)), () => setImmediate(next));
      };
      next();
    }, true);
    expect(url.protocol).toBe('https:');
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    expect(await drain(res)).toEqual({ text: 'id: 1\ndata: {"a":1}\n\nid: 2\ndata: é\n\n' });
    expect(asked[0]).toMatch(/^GET \/s\?replay=all HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\n/);
  });

  it("https: a client's streams share one TLS context, and a new stream resumes the session the peer gave", async () => {
    // Each stream's server side: whether its handshake resumed a session.
    const resumed: boolean[] = [];
    const server = createTlsServer({ key: certs.pem.serverKey, cert: certs.pem.serverCert }, (socket: TLSSocket) => {
      resumed.push(socket.isSessionReused());
      socket.on('error', () => {});
      socket.once('data', () => socket.end(HEAD + chunk('id: 1\ndata: {}\n\n') + '0\r\n\r\n'));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}/s`);
    const tls = process.getBuiltinModule('node:tls');
    const contexts = vi.spyOn(tls, 'createSecureContext');
    try {
      // One client's files: the same object for every stream, as the upstream client passes them.
      const files = { ca: certs.pem.ca };
      for (let i = 0; i < 3; i++)
        expect((await drain(await get(url, { tls: files }))).text).toBe('id: 1\ndata: {}\n\n');
      expect(contexts).toHaveBeenCalledTimes(1);
      // The first stream had no session to offer; each later one resumed the one it was given.
      expect(resumed).toEqual([false, true, true]);
      // Other files (another client, other trust) never get those sessions.
      await drain(await get(url, { tls: { ca: certs.pem.ca } }));
      expect(resumed.at(-1)).toBe(false);
    } finally {
      contexts.mockRestore();
    }
  });

  it('https: a certificate the CA did not sign fails the request with the TLS error, before anything is sent', async () => {
    const { url, asked } = await serve((socket) => socket.end(HEAD + '0\r\n\r\n'), true);
    const other = makeTestCerts();
    try {
      await expect(get(url, { ca: other.pem.ca })).rejects.toMatchObject({
        code: expect.stringMatching(/CERT|SIGNATURE|ISSUER/),
      });
    } finally {
      other.remove();
    }
    expect(asked).toEqual([]);
  });

  it('through the upstream client over https: its CA is used, an error answer is read as the service error', async () => {
    const { url, asked } = await serve(
      (socket) =>
        socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 40\r\n\r\n{"code":"not_found","message":"no such"}'),
      true,
    );
    const client = new UpstreamClient({
      baseUrl: url.origin,
      apiKey: { get: () => 'k', invalidate: () => {}, source: 'test' },
      connectTimeoutMs: 2000,
      tls: { ca: certs.pem.ca },
    });
    try {
      expect(await client.openStream('gone', { replayAll: true }, new AbortController().signal)).toMatchObject({
        kind: 'error',
        status: 404,
        error: { code: 'not_found', message: 'no such' },
      });
      // On a socket of the client's own (closed with it), not through node:http's agent.
      expect(asked[0]).toMatch(
        /^GET \/browsers\/gone\/telemetry\/stream\?replay=all HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\n/,
      );
    } finally {
      await client.close();
    }
  });

  it('through the upstream client: an error answer is read as the service error, a wrong type is refused', async () => {
    const { url } = await serve((socket, request) => {
      if (request.includes('/browsers/gone/'))
        socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 40\r\n\r\n{"code":"not_found","message":"no such"}');
      else socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 2\r\n\r\nhi');
    });
    const client = new UpstreamClient({
      baseUrl: url.origin,
      apiKey: { get: () => 'k', invalidate: () => {}, source: 'test' },
      connectTimeoutMs: 2000,
    });
    try {
      const signal = new AbortController().signal;
      expect(await client.openStream('gone', { replayAll: true }, signal)).toMatchObject({
        kind: 'error',
        status: 404,
        error: { code: 'not_found', message: 'no such' },
      });
      expect(await client.openStream('html', { lastEventId: 7, replayAll: false }, signal)).toEqual({
        kind: 'bad-content-type',
        status: 200,
        contentType: 'text/html',
      });
    } finally {
      await client.close();
    }
  });

  // An http:// URL for an https:// service, or a moved base path: the answer is a redirect, which
  // the bridge does not follow (the API key goes only to the configured URL). "302 http_302: HTTP
  // 302 without a body" did not say where it pointed; a query (a signed URL's token) stays out.
  it('through the upstream client: a redirect names where it points, and that it is not followed', async () => {
    const { url } = await serve((socket) =>
      socket.end(
        'HTTP/1.1 301 Moved Permanently\r\nlocation: https://api.example.com/v2/browsers/s1/telemetry/stream?token=secret\r\n' +
          'content-type: text/html\r\ncontent-length: 14\r\n\r\n<html>moved</>',
      ),
    );
    const client = new UpstreamClient({
      baseUrl: url.origin,
      apiKey: { get: () => 'k', invalidate: () => {}, source: 'test' },
      connectTimeoutMs: 2000,
    });
    try {
      const stream = await client.openStream('s1', { replayAll: true }, new AbortController().signal);
      const session = await client.getSession('s1');
      for (const r of [stream, session]) {
        expect(r).toMatchObject({ kind: 'error', status: 301 });
        const message = (r as { error: { message: string } }).error.message;
        expect(message).toMatch(
          /redirects to https:\/\/api\.example\.com\/v2\/browsers\/s1\/telemetry\/stream\b.*not followed/,
        );
        expect(message).not.toContain('secret');
      }
    } finally {
      await client.close();
    }
  });
});
