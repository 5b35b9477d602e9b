// A TCP proxy on loopback between one replica and PostgreSQL that can black-hole the link: while
// cut, bytes are neither forwarded nor refused (a partition, not a reset), so the replica's queries
// hang until their own timeouts, as behind a dead network path.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  cut(): void;
  /** Drops the black-holed connections (the client reconnects) and forwards again. */
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let cut = false;
  const pairs = new Set<[Socket, Socket]>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const forward = (from: Socket, to: Socket): void => {
      from.on('data', (d) => {
        if (!cut) to.write(d);
      });
    };
    forward(client, upstream);
    forward(upstream, client);
    const drop = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      cut = true;
    },
    restore() {
      for (const [a, b] of [...pairs]) {
        a.destroy();
        b.destroy();
      }
      pairs.clear();
      cut = false;
    },
    close: () =>
      new Promise((resolve) => {
        for (const [a, b] of pairs) {
          a.destroy();
          b.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
