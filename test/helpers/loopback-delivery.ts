// What the delivery tests against a real collector build the same way: an HTTP collector on a
// loopback port, whose handler is given each request's record seqs once the body is read whole and
// answers (or holds) it itself; a spool on an in-memory SQLite store; the real OTLP/HTTP transport
// to the collector; and a Delivery with the test's bounds, not started. close() takes all of it down,
// a response still held included.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Delivery, DeliveryOptions } from '../../src/export/delivery.js';
import { createOtlpTransport, type OtlpTransport } from '../../src/export/otlp-transport.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import type { Spool } from '../../src/store/spool.js';
import type { Store } from '../../src/store/store.js';
import { openTestSpool, requestSeqs, testDelivery } from './delivery-fixture.js';

export interface LoopbackDelivery {
  store: Store;
  spool: Spool;
  transport: OtlpTransport;
  delivery: Delivery;
  /** Stops the delivery (at once), then closes the transport, the collector and the store. */
  close: () => Promise<void>;
}

export interface LoopbackDeliveryOptions {
  /** The transport's request timeout; default 5 s. */
  timeoutMs?: number;
  /** The transport's connections; default 1. */
  connections?: number;
  /** Overrides of the Delivery's test bounds (delivery-fixture.ts testDelivery); no facts by default. */
  delivery?: Partial<Omit<DeliveryOptions, 'spool' | 'transport'>>;
}

/** The collector calls `handle` with the seqs of each request's records, in order. */
export async function loopbackDelivery(
  handle: (seqs: number[], res: ServerResponse) => void,
  { timeoutMs = 5000, connections = 1, delivery: opts = {} }: LoopbackDeliveryOptions = {},
): Promise<LoopbackDelivery> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(requestSeqs(Buffer.concat(chunks)), res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const store = await openSqliteStore(':memory:');
  const spool = await openTestSpool(store);
  const transport = createOtlpTransport({
    url: `http://127.0.0.1:${port}/v1/logs`,
    headers: {},
    compression: 'none',
    timeoutMs,
    connections,
    userAgent: 't',
  });
  const delivery = testDelivery(spool, transport, { emit: () => {}, ...opts });
  return {
    store,
    spool,
    transport,
    delivery,
    close: async () => {
      await delivery.stop(Date.now());
      await transport.close();
      // Ends the responses a handler still holds with their connections.
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await store.close();
    },
  };
}
