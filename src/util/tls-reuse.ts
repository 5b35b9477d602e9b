// What TLS connections to the same peer share: one context per set of TLS files, and the peer's last
// session, so a new connection resumes it instead of a full handshake.
//
// Context: tls.connect given the files (ca, cert, key) makes a context of its own per connection,
// parsing the CA into a certificate store each time: with a thousand streams that was ~100 KiB of
// native memory each (docs/benchmarks.md "https:// streams"), and the collector's connections paid
// the parse on every reconnect. One context per files object (the client's, kept for its life).
//
// Session: the sockets here are opened by the bridge itself (util/peer-connection.ts for the
// collector and the service's API, upstream/stream-request.ts for the streams), not by node:https's
// agent, so they do not get the agent's session cache: every reconnect was a full handshake (the
// peer's signature and the chain verified again; a thousand streams reconnecting after a cut made
// the service's TLS terminator do a thousand). As node:https's agent does, the last session a peer
// gave is offered to the next connection to it, and forgotten when a connection that offered it
// fails. A session is kept per files object and peer (host, port, server name): it is never offered
// under other trust or client material.
import { isIP } from 'node:net';
import type { SecureContext, TLSSocket } from 'node:tls';

export interface TlsFiles {
  /** PEM of the CA(s) that sign the peer's certificate, replacing the system roots. */
  ca?: string;
  /** PEM client certificate and key (mutual TLS). */
  cert?: string;
  key?: string;
}

/** Peers remembered per files object at most (a client talks to one or two). */
const MAX_PEERS = 64;

interface Shared {
  context: SecureContext;
  sessions: Map<string, Buffer>;
}

const byFiles = new WeakMap<TlsFiles, Shared>();
const NO_FILES: TlsFiles = {};

function shared(files: TlsFiles): Shared {
  let s = byFiles.get(files);
  if (!s) {
    // node:tls is taken at the first TLS connection, not at load (about 7 MiB of RSS on Node 24).
    s = { context: process.getBuiltinModule('node:tls').createSecureContext(files), sessions: new Map() };
    byFiles.set(files, s);
  }
  return s;
}

/** The server name (SNI) to send for `host`: a name, never an address (RFC 6066 section 3). */
export const serverName = (host: string): string | undefined => (isIP(host) === 0 ? host : undefined);

/**
 * The key a peer's sessions are kept under: its host (an IPv6 address without brackets), port and
 * the server name sent (none for an address), the same for a stream and for an API or collector
 * request, so that a stream may resume the session an API call was given.
 */
export function tlsPeer(host: string, port: number, servername: string | undefined): string {
  return `${host} ${port} ${servername ?? ''}`;
}

/** The context for connections made with `files` (made once per files object; throws on unusable material). */
export function secureContextFor(files: TlsFiles = NO_FILES): SecureContext {
  return shared(files).context;
}

/**
 * Failures that happen before TLS begins: the session offered played no part in them. Forgetting
 * it then (as node:https's agent does on any error) would make a service's outage cost a full
 * handshake for every stream that reconnects once it is back, the very case the session is kept for.
 */
const BEFORE_TLS = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * The session to offer a new connection to `peer` (undefined: none known), and `track`, which keeps
 * the sessions that connection is given and forgets the offered one if the connection fails during
 * its handshake (not when it never reached the peer: BEFORE_TLS).
 */
export function tlsSession(
  files: TlsFiles = NO_FILES,
  peer: string,
): { session: Buffer | undefined; track: (socket: TLSSocket) => void } {
  const { sessions } = shared(files);
  const session = sessions.get(peer);
  return {
    session,
    track(socket) {
      socket.on('session', (s: Buffer) => {
        // Newest last: the map's first entry is the peer heard from longest ago.
        sessions.delete(peer);
        sessions.set(peer, s);
        if (sessions.size > MAX_PEERS) sessions.delete(sessions.keys().next().value!);
      });
      if (session === undefined) return;
      const forget = (err: NodeJS.ErrnoException): void => {
        if (err.code !== undefined && BEFORE_TLS.has(err.code)) return;
        if (sessions.get(peer) === session) sessions.delete(peer);
      };
      socket.once('error', forget);
      socket.once('secureConnect', () => socket.off('error', forget));
    },
  };
}
