// What one client may hold of the HTTP surface (docs/operations.md "HTTP surface", "Slow and
// greedy clients"). The surface may be open to a whole cluster for probes and scrapes, and every
// connection it holds is a file descriptor of the process the sessions' streams, the collector's
// connections and the state database need too: a client that opened thousands of connections and
// never finished their headers stopped the streams with EMFILE. So:
//   - one remote address holds at most MAX_CONNECTIONS_PER_ADDRESS connections, the surface at most
//     MAX_CONNECTIONS; a connection beyond either is closed as it is accepted;
//   - a request's headers, and the whole request with its body, must arrive within REQUEST_TIMEOUT_MS
//     (Node answers 408 and closes), and a connection silent for IDLE_TIMEOUT_MS is closed, so a
//     client sending a byte a second frees its connection after seconds, not minutes.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** Connections one remote address may hold open on the HTTP surface. */
export const MAX_CONNECTIONS_PER_ADDRESS = 64;
/** Connections the surface holds at most, whoever opened them. */
export const MAX_CONNECTIONS = 512;
/** Time for a request's headers, and for the whole request (a PUT's body is at most 64 KiB). */
export const REQUEST_TIMEOUT_MS = 10_000;
/** A connection that neither sends nor takes anything for this long is closed. */
export const IDLE_TIMEOUT_MS = 30_000;

/** The options node:http takes at createServer for the timeouts above. */
export const SERVER_TIMEOUTS = {
  headersTimeout: REQUEST_TIMEOUT_MS,
  requestTimeout: REQUEST_TIMEOUT_MS,
  // How often Node looks for requests past those timeouts (30 s by default, which tripled them).
  connectionsCheckingInterval: 1000,
} as const;

/** Applies the connection limits to `server`. */
export function limitConnections(server: Server): void {
  server.maxConnections = MAX_CONNECTIONS;
  server.setTimeout(IDLE_TIMEOUT_MS, (socket: Socket) => socket.destroy());
  const byAddress = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const held = byAddress.get(address) ?? 0;
    if (held >= MAX_CONNECTIONS_PER_ADDRESS) {
      socket.destroy();
      return;
    }
    byAddress.set(address, held + 1);
    socket.once('close', () => {
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left === 0) byAddress.delete(address);
      else byAddress.set(address, left);
    });
  });
}
