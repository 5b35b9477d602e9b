// Opens the connection one HTTP request travels on: TCP to the peer and TLS over it for https://,
// or, when a proxy is in the way (util/proxy-env.ts), TCP to the proxy (TLS to it for an https://
// proxy), an HTTP CONNECT tunnel through it to the peer, and the peer's TLS inside the tunnel with the
// same material as on a direct connection (a private CA, a client certificate). http:// URLs go
// through the tunnel too, as they did with undici's proxy agent and as the README says ("Proxies
// (CONNECT tunnels)"): one way through a proxy for both peers, and the bearer key never sits in a
// request the proxy reads.
//
// The callback gets the socket only once a request can go out on it (connected, the handshake done):
// the connect timeout covers every step, and the client's headers timeout (http-client.ts) starts
// when the request is on its way, not while a slow tunnel is being set up.
import type { ClientRequest, IncomingMessage } from 'node:http';
import { request as httpRequest } from './node-http.js';
import { connect as netConnect, type Socket } from 'node:net';
import type { ConnectionOptions, TLSSocket } from 'node:tls';

// node:tls is taken at the first TLS connection, not at load: plain-HTTP peers never need it (util/http-client.ts).
const tlsConnect = (options: ConnectionOptions): TLSSocket => process.getBuiltinModule('node:tls').connect(options);
import { CONNECT_TIMEOUT, HttpTimeoutError } from './http-timeout.js';
import { proxyCredentials } from './proxy-env.js';
import { secureContextFor, serverName, tlsPeer, tlsSession, type TlsFiles } from './tls-reuse.js';

export type { TlsFiles } from './tls-reuse.js';

export interface PeerAddress {
  secure: boolean;
  /** A name or an address; an IPv6 address without brackets. */
  host: string;
  port: number;
}

export interface ConnectOptions {
  /** The peer's TLS material; the proxy's certificate is checked against the system roots. */
  tls: TlsFiles;
  /** For every step together (TCP, the tunnel, the handshakes); 0: none. */
  timeoutMs: number;
  proxy?: URL;
  /** Bytes read ahead of the reader on this connection (and so in a response body) before reading stops. */
  readHighWaterMark?: number;
}

export type Opened = (err: Error | null, socket?: Socket) => void;

/** Opens a connection to `peer` and calls `done` once, with it or the error. Returns a cancel (for a client closing). */
export function openConnection(peer: PeerAddress, o: ConnectOptions, done: Opened): (why: Error) => void {
  const opened: Socket[] = [];
  let tunnel: ClientRequest | undefined;
  let settled = false;
  const finish = (err: Error | null, socket?: Socket): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    if (err) {
      tunnel?.destroy();
      for (const s of opened) s.destroy();
      done(err);
    } else done(null, socket);
  };
  /** Every socket made here keeps an error listener: an inner socket (under TLS, under a tunnel) has no other. */
  const track = <S extends Socket>(s: S): S => {
    opened.push(s);
    s.on('error', (err) => finish(err));
    return s;
  };
  const authority = `${peer.host.includes(':') ? `[${peer.host}]` : peer.host}:${peer.port}`;
  const timer =
    o.timeoutMs > 0
      ? setTimeout(() => {
          const via = o.proxy ? ` through the proxy ${o.proxy.host}` : '';
          finish(new HttpTimeoutError(CONNECT_TIMEOUT, `no connection to ${authority}${via} within ${o.timeoutMs} ms`));
        }, o.timeoutMs)
      : undefined;

  // A step that throws instead of emitting 'error' (tlsConnect with key material it cannot use, a
  // proxy URL whose credentials do not decode) fails this connection like any other error, never the
  // process, and always after openConnection has returned: the caller holds its cancel by then.
  const thrown = (err: unknown): void => process.nextTick(finish, err instanceof Error ? err : new Error(String(err)));

  /** The last step: TLS to the peer for https://, the socket as it is for http://. */
  const toPeer = (socket: Socket): void => {
    if (!peer.secure) {
      if (socket.connecting) socket.once('connect', () => finish(null, socket));
      else finish(null, socket);
      return;
    }
    try {
      // One context per client's files, and the peer's last session offered (util/tls-reuse.ts).
      const servername = serverName(peer.host);
      const resume = tlsSession(o.tls, tlsPeer(peer.host, peer.port, servername));
      const secure = track(
        tlsConnect({
          socket,
          host: peer.host,
          servername,
          secureContext: secureContextFor(o.tls),
          ...(resume.session !== undefined ? { session: resume.session } : {}),
          ...(o.readHighWaterMark !== undefined ? { highWaterMark: o.readHighWaterMark } : {}),
        }),
      );
      resume.track(secure);
      secure.once('secureConnect', () => finish(null, secure));
    } catch (err) {
      // Also when the tunnel's answer calls this, in an event handler: a throw there would be uncaught.
      thrown(err);
    }
  };

  try {
    if (o.proxy) throughProxy(o.proxy);
    else toPeer(tcp(peer.host, peer.port, o.readHighWaterMark, track));
  } catch (err) {
    thrown(err);
  }
  return (why) => finish(why);

  function throughProxy(proxy: URL): void {
    const proxyHost = unbracket(proxy.hostname);
    let toProxy: Socket = tcp(
      proxyHost,
      Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80),
      o.readHighWaterMark,
      track,
    );
    if (proxy.protocol === 'https:')
      // The proxy's own TLS: the system roots, in the one context every such connection shares.
      toProxy = track(
        tlsConnect({
          socket: toProxy,
          host: proxyHost,
          servername: serverName(proxyHost),
          secureContext: secureContextFor(),
        }),
      );
    const headers: Record<string, string> = { host: authority };
    const credentials = proxyCredentials(proxy);
    if (credentials !== undefined)
      headers['proxy-authorization'] = `Basic ${Buffer.from(credentials).toString('base64')}`;
    const socket = toProxy;
    tunnel = httpRequest({
      method: 'CONNECT',
      path: authority,
      headers,
      setHost: false,
      createConnection: () => socket,
    });
    tunnel.on('error', (err) => finish(err));
    tunnel.on('connect', (res: IncomingMessage, s: Socket, head: Buffer) => {
      if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode > 299) {
        const hint =
          res.statusCode === 407
            ? ' (the proxy wants credentials: write them into the proxy URL, http://user:password@host:port)'
            : '';
        return finish(
          new Error(
            `the proxy ${proxy.host} answered ${res.statusCode} ${res.statusMessage ?? ''} to CONNECT ${authority}${hint}`,
          ),
        );
      }
      // Bytes the proxy sent after its answer belong to the peer.
      if (head.length > 0) s.unshift(head);
      toPeer(s);
    });
    tunnel.end();
  }
}

function tcp(host: string, port: number, readHighWaterMark: number | undefined, track: (s: Socket) => Socket): Socket {
  const s = track(
    netConnect({
      host,
      port,
      ...(readHighWaterMark !== undefined ? { readableHighWaterMark: readHighWaterMark } : {}),
    }),
  );
  // Requests are written whole: waiting for more to send only delays them.
  s.setNoDelay(true);
  return s;
}

/** SNI carries names only (RFC 6066); for an address the certificate is checked against the address. */

const unbracket = (host: string): string => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);
