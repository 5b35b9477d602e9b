// The node:http client both peers are spoken to with, on real sockets on loopback: keep-alive, the
// three timeouts, abort, back-pressure down to the peer's socket, the connections bound, and TLS with
// a private CA directly and through an HTTP CONNECT proxy (certificates from test/helpers/test-certs.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { text } from 'node:stream/consumers';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { HttpClient, type HttpClientOptions } from '../../../src/util/http-client.js';
import { BODY_TIMEOUT, CONNECT_TIMEOUT, HEADERS_TIMEOUT } from '../../../src/util/http-timeout.js';
import { clientCommonName, makeTestCerts, mutualTlsOptions, type TestCerts } from '../../helpers/test-certs.js';

const servers: Array<Server | HttpsServer> = [];
const clients: HttpClient[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of sockets) s.destroy();
  sockets.clear();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** Remembers every socket, so a test's end does not wait for a connection it left open. */
function keep(s: Socket): void {
  sockets.add(s);
  s.on('error', () => undefined);
  s.on('close', () => sockets.delete(s));
}

async function listen<S extends Server | HttpsServer>(
  server: S,
): Promise<{ server: S; port: number; connections: () => number }> {
  let connections = 0;
  server.on('setSecureContext' in server ? 'secureConnection' : 'connection', () => connections++);
  server.on('connection', keep);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}

async function httpServer(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const s = await listen(createServer(handler));
  return { ...s, url: `http://127.0.0.1:${s.port}` };
}

function client(o: Partial<HttpClientOptions> = {}): HttpClient {
  const c = new HttpClient({ connectTimeoutMs: 2000, headersTimeoutMs: 2000, bodyTimeoutMs: 2000, env: {}, ...o });
  clients.push(c);
  return c;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** The error a promise rejects with (or a body fails with). */
async function failure(p: Promise<unknown>): Promise<Error & { code?: unknown }> {
  try {
    await p;
  } catch (err) {
    return err as Error & { code?: unknown };
  }
  throw new Error('expected a failure');
}

describe('requests and connections', () => {
  it('sends method, headers and body, and keeps one connection alive for the next request', async () => {
    const seen: string[] = [];
    const s = await httpServer((req, res) => {
      void text(req).then((body) => {
        seen.push(`${req.method} ${req.url} ${req.headers['x-test']} ${req.headers['content-length']} ${body}`);
        res.writeHead(201, { 'x-answer': 'yes' }).end('done');
      });
    });
    const c = client();
    for (const n of [1, 2, 3]) {
      const res = await c.request(`${s.url}/p${n}`, {
        method: 'POST',
        headers: { 'x-test': `t${n}` },
        body: Buffer.from(`b${n}`),
      });
      expect([res.statusCode, res.headers['x-answer'], await text(res.body)]).toEqual([201, 'yes', 'done']);
    }
    expect(seen).toEqual(['POST /p1 t1 2 b1', 'POST /p2 t2 2 b2', 'POST /p3 t3 2 b3']);
    expect(s.connections()).toBe(1);
  });

  it('closes an idle connection after keepAliveMs', async () => {
    const s = await httpServer((_req, res) => res.end('ok'));
    const closed: number[] = [];
    s.server.on('connection', (sock: Socket) => sock.on('close', () => closed.push(Date.now())));
    const c = client({ keepAliveMs: 150 });
    await text((await c.request(s.url)).body);
    const t0 = Date.now();
    await until(() => closed.length === 1, 'the idle connection to close');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    await text((await c.request(s.url)).body);
    expect(s.connections()).toBe(2);
  });

  it('a kept-alive connection the server closes as the next request comes: the request goes again on a new one', async () => {
    // What a server or proxy with an idle timeout it does not announce (no `Keep-Alive: timeout=`)
    // does when the timeout ends just as a request is written on the connection: it closes it unread.
    const served: string[] = [];
    const s = await httpServer((req, res) => {
      const sock = req.socket as Socket & { answered?: boolean };
      if (sock.answered) return void sock.destroy();
      sock.answered = true;
      void text(req).then((body) => {
        served.push(body);
        res.end('ok');
      });
    });
    const c = client();
    for (const n of [1, 2, 3]) {
      const res = await c.request(s.url, { method: 'POST', body: Buffer.from(`b${n}`) });
      expect(await text(res.body)).toBe('ok');
    }
    expect(served).toEqual(['b1', 'b2', 'b3']);
    expect(s.connections()).toBe(3);
  });

  it('a new connection closed before any answer still fails the request: only a reused one is tried again', async () => {
    const s = await httpServer((req) => req.socket.destroy());
    const err = await failure(client().request(s.url, { method: 'POST', body: Buffer.from('x') }));
    expect(err.code).toBe('ECONNRESET');
    expect(s.connections()).toBe(1);
  });

  it('a refused connection fails with its system code', async () => {
    const s = await httpServer(() => undefined);
    await new Promise((r) => s.server.close(r));
    servers.splice(servers.indexOf(s.server), 1);
    const err = await failure(client().request(s.url));
    expect(err.code).toBe('ECONNREFUSED');
  });

  it('`connections` bounds the requests in flight; the others wait their turn and all are answered', async () => {
    let now = 0;
    let most = 0;
    const s = await httpServer((_req, res) => {
      most = Math.max(most, ++now);
      setTimeout(() => {
        now--;
        res.end('ok');
      }, 30);
    });
    const c = client({ connections: 2 });
    const answers = await Promise.all(Array.from({ length: 7 }, async () => text((await c.request(s.url)).body)));
    expect(answers).toEqual(Array(7).fill('ok'));
    expect(most).toBe(2);
    expect(s.connections()).toBe(2);
  });

  it('a request aborted while it waits for a slot leaves the queue and takes no slot with it', async () => {
    const held: ServerResponse[] = [];
    const s = await httpServer((_req, res) => void held.push(res));
    const c = client({ connections: 1 });
    const first = c.request(s.url);
    await until(() => held.length === 1, 'the first request to arrive');
    const ac = new AbortController();
    const second = c.request(s.url, { signal: ac.signal });
    ac.abort();
    expect((await failure(second)).name).toBe('AbortError');
    held[0]!.end('one');
    expect(await text((await first).body)).toBe('one');
    const third = c.request(s.url);
    await until(() => held.length === 2, 'the third request to arrive');
    held[1]!.end('three');
    expect(await text((await third).body)).toBe('three');
  });

  it('a request node:http refuses before sending fails with its own error and gives its slot back', async () => {
    // A header value with a line break (a token pasted with its line end) throws inside
    // http.request. With a signal, the failure path read the abort listener before it was declared: a
    // ReferenceError ("Cannot access 'onAbort' before initialization") instead of ERR_INVALID_CHAR,
    // and the connections slot was never released, so with `connections: 1` nothing went out again.
    const s = await httpServer((_req, res) => res.end('ok'));
    const c = client({ connections: 1 });
    const refused = await failure(
      c.request(s.url, { headers: { authorization: 'Bearer tok\n' }, signal: AbortSignal.timeout(2000) }),
    );
    expect(refused.code).toBe('ERR_INVALID_CHAR');
    expect(await text((await c.request(s.url, { signal: AbortSignal.timeout(2000) })).body)).toBe('ok');
  });

  it('close() ends a request in flight and refuses later ones', async () => {
    const s = await httpServer(() => undefined);
    const c = client();
    const pending = c.request(s.url);
    await until(() => s.connections() === 1, 'the request to arrive');
    c.close();
    expect((await failure(pending)).code).toBe('ECONNRESET');
    await expect(c.request(s.url)).rejects.toThrow(/closed/);
  });
});

describe('timeouts and abort', () => {
  it('no response head within the headers timeout fails the request with HTTP_HEADERS_TIMEOUT', async () => {
    const s = await httpServer(() => undefined);
    const t0 = Date.now();
    const err = await failure(client({ headersTimeoutMs: 150 }).request(s.url));
    expect(err.code).toBe(HEADERS_TIMEOUT);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('a head within the headers timeout is an answer, however long the body then takes', async () => {
    const s = await httpServer((_req, res) => {
      res.writeHead(200).write('a');
      setTimeout(() => res.end('b'), 300);
    });
    const res = await client({ headersTimeoutMs: 150, bodyTimeoutMs: 0 }).request(s.url);
    expect(await text(res.body)).toBe('ab');
  });

  it('a body silent for the body timeout fails with HTTP_BODY_TIMEOUT, and its connection is closed', async () => {
    let closed = false;
    const s = await httpServer((req, res) => {
      req.socket.on('close', () => (closed = true));
      res.writeHead(200).write('first bytes');
    });
    const res = await client({ bodyTimeoutMs: 150 }).request(s.url);
    const got: string[] = [];
    res.body.on('data', (c: Buffer) => got.push(c.toString()));
    const err = await failure(new Promise((resolve, reject) => res.body.on('end', resolve).on('error', reject)));
    expect(err.code).toBe(BODY_TIMEOUT);
    expect(got.join('')).toBe('first bytes');
    await until(() => closed, 'the server to see the connection close');
  });

  it('bytes that keep coming keep the body timeout away', async () => {
    const s = await httpServer((_req, res) => {
      res.writeHead(200);
      let n = 0;
      const t = setInterval(() => {
        res.write(String(n % 10));
        if (++n === 8) {
          clearInterval(t);
          res.end();
        }
      }, 50);
    });
    const res = await client({ bodyTimeoutMs: 120 }).request(s.url);
    expect(await text(res.body)).toBe('01234567');
  });

  it('a reader that holds unread bytes (paused) is not timed out by its own silence', async () => {
    let end = (): void => undefined;
    const s = await httpServer((_req, res) => {
      res.writeHead(200).write('x'.repeat(1000));
      end = () => res.end('y');
    });
    const res = await client({ bodyTimeoutMs: 100 }).request(s.url);
    await until(() => res.body.readableLength > 0, 'bytes to wait in the body');
    // Paused far beyond the body timeout, with the peer silent all along.
    await sleep(350);
    expect(res.body.destroyed).toBe(false);
    end();
    expect(await text(res.body)).toBe(`${'x'.repeat(1000)}y`);
  });

  it('a body that is all in is not timed out while nobody reads it', async () => {
    const s = await httpServer((_req, res) => res.writeHead(200, { 'content-length': '0' }).end());
    const res = await client({ bodyTimeoutMs: 100 }).request(s.url);
    await sleep(300);
    expect(await text(res.body)).toBe('');
  });

  it("an abort before the answer fails the request with the signal's reason", async () => {
    const s = await httpServer(() => undefined);
    const ac = new AbortController();
    const pending = client().request(s.url, { signal: ac.signal });
    await until(() => s.connections() === 1, 'the request to arrive');
    ac.abort();
    expect((await failure(pending)).name).toBe('AbortError');
    const timedOut = await failure(client().request(s.url, { signal: AbortSignal.timeout(50) }));
    expect(timedOut.name).toBe('TimeoutError');
  });

  it('an abort mid-body ends the read with the reason, and the connection is closed', async () => {
    let closed = false;
    const s = await httpServer((req, res) => {
      req.socket.on('close', () => (closed = true));
      res.writeHead(200);
      const t = setInterval(() => res.write('data\n'), 10);
      res.on('close', () => clearInterval(t));
    });
    const ac = new AbortController();
    const res = await client({ bodyTimeoutMs: 0 }).request(s.url, { signal: ac.signal });
    let chunks = 0;
    const ended = new Promise<Error | undefined>((resolve) => {
      res.body.on('data', () => {
        if (++chunks === 3) ac.abort(new Error('stop reading'));
      });
      res.body.on('error', resolve).on('end', () => resolve(undefined));
    });
    expect((await ended)?.message).toBe('stop reading');
    await until(() => closed, 'the server to see the connection close');
  });

  it('a proxy that never answers CONNECT is a connect timeout', async () => {
    const silent = await listen(createServer());
    silent.server.on('connect', (_req, sock: Socket) => keep(sock));
    const t0 = Date.now();
    const c = client({ connectTimeoutMs: 150, env: { HTTP_PROXY: `http://127.0.0.1:${silent.port}` } });
    const err = await failure(c.request('http://example.invalid/'));
    expect(err.code).toBe(CONNECT_TIMEOUT);
    expect(err.message).toMatch(/example\.invalid:80 through the proxy 127\.0\.0\.1:\d+ within 150 ms/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });
});

describe('back-pressure', () => {
  it("a body nobody reads stops reading the socket: the server's writes stall until the reader resumes", async () => {
    const piece = Buffer.alloc(64 * 1024, 'z');
    const total = 64 * 1024 * 1024;
    let written = 0;
    let stalled = false;
    let drained = false;
    const s = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-length': String(total) });
      const pump = (): void => {
        while (written < total) {
          written += piece.length;
          if (!res.write(piece)) {
            stalled = true;
            res.once('drain', () => {
              drained = true;
              pump();
            });
            return;
          }
        }
        res.end();
      };
      pump();
    });
    const readHighWaterMark = 16 * 1024;
    const res = await client({ bodyTimeoutMs: 0, readHighWaterMark }).request(s.url);
    res.body.pause();
    await until(() => stalled, "the server's writes to stall");
    // Kernel buffers on both ends take some megabytes; past them, nothing moves while nobody reads.
    await sleep(300);
    const before = written;
    await sleep(300);
    expect(written).toBe(before);
    expect(written).toBeLessThan(total / 2);
    expect(res.body.readableLength).toBeLessThanOrEqual(readHighWaterMark + piece.length);
    let got = 0;
    res.body.on('data', (c: Buffer) => (got += c.length));
    res.body.resume();
    await new Promise((r) => res.body.on('end', r));
    expect(drained).toBe(true);
    expect(got).toBe(total);
  });
});

describe('TLS with a private CA, directly and through a CONNECT proxy', () => {
  let certs: TestCerts;
  beforeAll(() => {
    certs = makeTestCerts({ serverNames: ['peer.test'] });
  });
  afterAll(() => certs.remove());

  /** An HTTPS peer that requires a client certificate signed by the test CA and says whose it got. */
  async function tlsPeer() {
    const server = createHttpsServer(mutualTlsOptions(certs), (req, res) => {
      res.end(`hello ${clientCommonName(req)} at ${req.headers.host}${req.url}`);
    });
    const s = await listen(server);
    return { ...s, url: `https://127.0.0.1:${s.port}` };
  }

  /** A CONNECT proxy that records the authorities it tunnels to and the credentials it is shown. */
  async function connectProxy(answer = 200) {
    const tunnels: string[] = [];
    const auth: Array<string | undefined> = [];
    const s = await listen(createServer());
    s.server.on('connect', (req: IncomingMessage, sock: Socket, head: Buffer) => {
      keep(sock);
      tunnels.push(String(req.url));
      auth.push(req.headers['proxy-authorization']);
      if (answer !== 200) return void sock.end(`HTTP/1.1 ${answer} No\r\ncontent-length: 0\r\n\r\n`);
      const [, port] = String(req.url).split(':');
      // Every tunnel ends at the test's loopback peer, whatever name it was asked for.
      const upstream = connect(Number(port), '127.0.0.1', () => {
        sock.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(sock);
        sock.pipe(upstream);
      });
      keep(upstream);
    });
    return { ...s, url: `http://127.0.0.1:${s.port}`, tunnels, auth };
  }

  const material = () => ({ ca: certs.pem.ca, cert: certs.pem.clientCert, key: certs.pem.clientKey });

  it('trusts the private CA and presents the client certificate on a direct connection', async () => {
    const peer = await tlsPeer();
    const res = await client({ tls: material() }).request(`${peer.url}/x`);
    expect(await text(res.body)).toBe(`hello bridge at 127.0.0.1:${peer.port}/x`);
  });

  it("new connections share the client's TLS context and resume the peer's last session, client certificate kept", async () => {
    const resumed: boolean[] = [];
    // Every answer closes its connection: each request needs a new one.
    const server = createHttpsServer(mutualTlsOptions(certs), (req, res) => {
      res.setHeader('connection', 'close');
      res.end(`hello ${clientCommonName(req)}`);
    });
    server.on('secureConnection', (socket: TLSSocket) => resumed.push(socket.isSessionReused()));
    const peer = await listen(server);
    const tls = process.getBuiltinModule('node:tls');
    const contexts = vi.spyOn(tls, 'createSecureContext');
    try {
      const c = client({ tls: material() });
      for (let i = 0; i < 3; i++)
        expect(await text((await c.request(`https://127.0.0.1:${peer.port}/`)).body)).toBe('hello bridge');
      expect(peer.connections()).toBe(3);
      expect(contexts).toHaveBeenCalledTimes(1);
      expect(resumed).toEqual([false, true, true]);
    } finally {
      contexts.mockRestore();
    }
  });

  it('without the CA the handshake fails on the certificate', async () => {
    const peer = await tlsPeer();
    const err = await failure(client().request(peer.url));
    expect(String(err.code)).toMatch(/CERT|SIGNATURE|SELF_SIGNED/);
  });

  it("https:// through HTTPS_PROXY: a CONNECT tunnel, the peer's TLS (name, CA, client certificate) inside it, kept alive", async () => {
    const peer = await tlsPeer();
    const proxy = await connectProxy();
    const c = client({ tls: material(), env: { HTTPS_PROXY: proxy.url } });
    // A name only the proxy resolves (to loopback): the certificate is checked against it, sent as SNI.
    for (const path of ['/a', '/b']) {
      const res = await c.request(`https://peer.test:${peer.port}${path}`);
      expect(await text(res.body)).toBe(`hello bridge at peer.test:${peer.port}${path}`);
    }
    expect(proxy.tunnels).toEqual([`peer.test:${peer.port}`]);
    expect(proxy.auth).toEqual([undefined]);
  });

  it("http:// through HTTP_PROXY is tunnelled too, and the proxy URL's credentials go with the CONNECT", async () => {
    const s = await httpServer((req, res) => res.end(`plain ${req.headers.host}`));
    const proxy = await connectProxy();
    const c = client({ env: { HTTP_PROXY: `http://me:p%40ss@127.0.0.1:${proxy.port}` } });
    expect(await text((await c.request(`http://svc.test:${s.port}/`)).body)).toBe(`plain svc.test:${s.port}`);
    expect(proxy.tunnels).toEqual([`svc.test:${s.port}`]);
    expect(proxy.auth).toEqual([`Basic ${Buffer.from('me:p@ss').toString('base64')}`]);
  });

  it('NO_PROXY hosts are reached directly', async () => {
    const peer = await tlsPeer();
    const proxy = await connectProxy();
    const res = await client({
      tls: material(),
      env: { HTTPS_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' },
    }).request(peer.url);
    expect(await text(res.body)).toMatch(/^hello bridge/);
    expect(proxy.tunnels).toEqual([]);
  });

  it('a proxy that refuses the tunnel fails the request with its answer', async () => {
    const proxy = await connectProxy(407);
    const err = await failure(client({ env: { HTTPS_PROXY: proxy.url } }).request('https://peer.test:1/'));
    expect(err.message).toMatch(
      /the proxy 127\.0\.0\.1:\d+ answered 407 No to CONNECT peer\.test:1 \(the proxy wants credentials/,
    );
  });
});
