// Session reuse (src/util/tls-reuse.ts) against real TLS servers on loopback that behave as a peer
// may between two connections: rotate their ticket keys, refuse resumption, speak TLS 1.2 only,
// change their certificate. A session must never stand in for a check the handshake would have
// made: a certificate for another name or from another CA fails however many sessions are known.
import { constants, randomBytes } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { connect as tcpConnect, type AddressInfo, type Socket } from 'node:net';
import { createServer, type Server, type TlsOptions, type TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openConnection } from '../../../src/util/peer-connection.js';
import { requestStream } from '../../../src/upstream/stream-request.js';
import type { TlsFiles } from '../../../src/util/tls-reuse.js';
import { makeTestCerts, signLeaf, type TestCerts } from '../../helpers/test-certs.js';

let certs: TestCerts;
/** A certificate the test CA signed for another name only (not 127.0.0.1, not localhost). */
let elsewhere: { cert: string; key: string };
const servers: Server[] = [];

beforeAll(() => {
  certs = makeTestCerts();
  elsewhere = signLeaf(certs.dir, 'elsewhere', 'elsewhere', 'subjectAltName=DNS:elsewhere.test');
});
afterAll(() => certs.remove());
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/**
 * A TLS server on loopback that answers each connection with an HTTP 404 head and ends it, whatever it
 * was asked; `reused` says, per connection, whether it resumed.
 */
async function peer(o: TlsOptions = {}, port = 0): Promise<{ server: Server; port: number; reused: boolean[] }> {
  const reused: boolean[] = [];
  const server = createServer({ key: certs.pem.serverKey, cert: certs.pem.serverCert, ...o }, (s: TLSSocket) => {
    reused.push(s.isSessionReused());
    s.on('error', () => undefined);
    // Read what the client sends (a stream's request): a paused socket never sees the client's end,
    // and the server would never close.
    s.resume();
    s.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });
  server.on('tlsClientError', () => undefined);
  servers.push(server);
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, reused };
}

/**
 * One connection with `files`, read to its end (by then the session tickets, sent before the data,
 * were taken): whether the client resumed, or the error that failed it.
 */
function connectOnce(port: number, files: TlsFiles, host = '127.0.0.1', proxy?: URL): Promise<boolean | Error> {
  return new Promise((resolve) => {
    const o = { tls: files, timeoutMs: 10_000, ...(proxy ? { proxy } : {}) };
    openConnection({ secure: true, host, port }, o, (err, socket) => {
      if (err) return resolve(err);
      const tls = socket as TLSSocket;
      const reused = tls.isSessionReused();
      tls.on('error', () => undefined);
      tls.on('close', () => resolve(reused));
      tls.resume();
    });
  });
}

describe('a session offered to a peer that changed between connections', () => {
  it('ticket keys rotated: the stale ticket is refused, a full handshake follows, and the next connection resumes the new one', async () => {
    const { server, port, reused } = await peer();
    const files: TlsFiles = { ca: certs.pem.ca };
    expect(await connectOnce(port, files)).toBe(false);
    expect(await connectOnce(port, files)).toBe(true);
    server.setTicketKeys(randomBytes(48));
    expect(await connectOnce(port, files)).toBe(false);
    expect(await connectOnce(port, files)).toBe(true);
    expect(reused).toEqual([false, true, false, true]);
  });

  it('a peer that issues no tickets: every connection a full handshake, none fails', async () => {
    const { port, reused } = await peer({ secureOptions: constants.SSL_OP_NO_TICKET });
    const files: TlsFiles = { ca: certs.pem.ca };
    for (let i = 0; i < 3; i++) expect(await connectOnce(port, files)).toBe(false);
    expect(reused).toEqual([false, false, false]);
  });

  it('a TLS 1.2 peer resumes with a ticket', async () => {
    const { port, reused } = await peer({ maxVersion: 'TLSv1.2' });
    const files: TlsFiles = { ca: certs.pem.ca };
    for (let i = 0; i < 3; i++) expect(await connectOnce(port, files)).toBe(i > 0);
    expect(reused).toEqual([false, true, true]);
  });

  it('a TLS 1.2 peer without tickets resumes by session ID, and a forgotten ID means a full handshake', async () => {
    const { server, port, reused } = await peer({ maxVersion: 'TLSv1.2', secureOptions: constants.SSL_OP_NO_TICKET });
    // A node:tls server resumes by ID only from a store of its own.
    const store = new Map<string, Buffer>();
    server.on('newSession', (id: Buffer, data: Buffer, done: () => void) => {
      store.set(id.toString('hex'), data);
      done();
    });
    server.on('resumeSession', (id: Buffer, done: (err: Error | null, data: Buffer | null) => void) =>
      done(null, store.get(id.toString('hex')) ?? null),
    );
    const files: TlsFiles = { ca: certs.pem.ca };
    expect(await connectOnce(port, files)).toBe(false);
    expect(await connectOnce(port, files)).toBe(true);
    store.clear();
    expect(await connectOnce(port, files)).toBe(false);
    expect(await connectOnce(port, files)).toBe(true);
    expect(reused).toEqual([false, true, false, true]);
  });

  it('its certificate now for another name: the connection fails on the name, the session known notwithstanding', async () => {
    const { server, port } = await peer();
    const files: TlsFiles = { ca: certs.pem.ca };
    expect(await connectOnce(port, files)).toBe(false);
    expect(await connectOnce(port, files)).toBe(true);
    server.setSecureContext({ ...elsewhere, ticketKeys: randomBytes(48) });
    for (let i = 0; i < 2; i++)
      expect(await connectOnce(port, files)).toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('its certificate now from another CA: the connection fails on the chain', async () => {
    const { server, port } = await peer();
    const files: TlsFiles = { ca: certs.pem.ca };
    expect(await connectOnce(port, files)).toBe(false);
    const other = makeTestCerts();
    try {
      server.setSecureContext({ key: other.pem.serverKey, cert: other.pem.serverCert, ticketKeys: randomBytes(48) });
      for (let i = 0; i < 2; i++) expect(await connectOnce(port, files)).toBeInstanceOf(Error);
    } finally {
      other.remove();
    }
  });
});

describe('the host name is checked with a shared context', () => {
  it('a certificate for another name fails, the first time and every time after (no session kept from a failed check)', async () => {
    const { port, reused } = await peer(elsewhere);
    const files: TlsFiles = { ca: certs.pem.ca };
    for (let i = 0; i < 3; i++)
      expect(await connectOnce(port, files)).toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(reused.every((r) => !r)).toBe(true);
  });

  it('a session a peer gave under one name is not offered under another name for the same address and port', async () => {
    const { port, reused } = await peer();
    const files: TlsFiles = { ca: certs.pem.ca };
    expect(await connectOnce(port, files, 'localhost')).toBe(false);
    expect(await connectOnce(port, files, '127.0.0.1')).toBe(false);
    expect(await connectOnce(port, files, 'localhost')).toBe(true);
    expect(reused).toEqual([false, false, true]);
  });
});

describe('a peer that was away', () => {
  it('a connection refused keeps the session: the peer, back with the same ticket keys, resumes it', async () => {
    const ticketKeys = randomBytes(48);
    const first = await peer({ ticketKeys });
    const files: TlsFiles = { ca: certs.pem.ca };
    expect(await connectOnce(first.port, files)).toBe(false);
    await new Promise((r) => first.server.close(r));
    const refused = await connectOnce(first.port, files);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    // Back on the same port (a restarted process behind the same name, keys shared as a load
    // balancer's are).
    const back = await peer({ ticketKeys }, first.port);
    expect(await connectOnce(back.port, files)).toBe(true);
    expect(back.reused).toEqual([true]);
  });
});

describe('one key for a peer, whichever way the bridge connects', () => {
  it("a stream resumes the session the peer gave an API connection, and the next API connection the stream's", async () => {
    // Each connection: a 404 head and the end, whatever it was asked (a stream's request included).
    const { port, reused } = await peer();
    const files: TlsFiles = { ca: certs.pem.ca };
    const stream = async (): Promise<number> => {
      const open = new Set<Socket>();
      try {
        const res = await requestStream(
          {
            url: new URL(`https://localhost:${port}/s`),
            headers: {},
            signal: new AbortController().signal,
            connectTimeoutMs: 10_000,
            headersTimeoutMs: 10_000,
            tls: files,
          },
          open,
        );
        res.body.destroy(new Error('done'));
        return res.statusCode;
      } finally {
        for (const s of open) s.destroy();
      }
    };
    expect(await connectOnce(port, files, 'localhost')).toBe(false);
    expect(await stream()).toBe(404);
    expect(await connectOnce(port, files, 'localhost')).toBe(true);
    expect(reused).toEqual([false, true, true]);
  });
});

describe('through a CONNECT tunnel', () => {
  it("the peer's session is resumed inside the tunnel, under the name the tunnel was asked for", async () => {
    const { port, reused } = await peer();
    const tunnels: string[] = [];
    /** A tunnel's sockets are the proxy's no more (its close would wait for them): ended here. */
    const piped: Socket[] = [];
    const proxy = createHttpServer();
    proxy.on('connect', (req: IncomingMessage, client: Socket) => {
      tunnels.push(String(req.url));
      client.on('error', () => undefined);
      // Every tunnel ends at the loopback peer, whatever name it was asked for.
      const upstream = tcpConnect(port, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      piped.push(client, upstream);
    });
    servers.push(proxy as unknown as Server);
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const via = new URL(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`);
    const files: TlsFiles = { ca: certs.pem.ca };
    try {
      expect(await connectOnce(port, files, 'localhost', via)).toBe(false);
      expect(await connectOnce(port, files, 'localhost', via)).toBe(true);
      // Another name for the same peer: not that session.
      expect(await connectOnce(port, files, '127.0.0.1', via)).toBe(false);
    } finally {
      for (const s of piped) s.destroy();
    }
    expect(reused).toEqual([false, true, false]);
    expect(tunnels).toEqual([`localhost:${port}`, `localhost:${port}`, `127.0.0.1:${port}`]);
  });
});
