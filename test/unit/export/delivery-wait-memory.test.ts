// Delivery's idle workers wait for data again and again; each wait must leave nothing behind once
// it ends. Racing each wait against a promise that resolved only at shutdown kept every wait's
// reaction alive until then (about 24 MB an hour in a sidecar: util/stop-latch.ts).
import { queryObjects } from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { Spool } from '../../../src/store/spool.js';
import { scriptedTransport, testDelivery } from '../../helpers/delivery-fixture.js';

describe("Delivery's wait for data", () => {
  it('leaves no promise behind per wait: 20,000 waits of idle workers hold no more than 200', async () => {
    // A spool that never has a batch and has "new data" after every turn: each worker waits, wakes,
    // finds nothing and waits again, as delivery's workers do after nearly every record a quiet
    // session sends. The old race kept 40,000 promises here.
    let waits = 0;
    const spool = {
      idle: true,
      takeBatch: async () => null,
      watchSpill: () => {},
      waitForData: () => {
        waits++;
        return new Promise<void>((resolve) => setImmediate(resolve));
      },
    } as unknown as Spool;
    const delivery = testDelivery(
      spool,
      scriptedTransport('http://collector.test/v1/logs', () => ({ kind: 'success', rejected: 0 })),
      { concurrency: 4, emit: () => {} },
    );
    const livePromises = (): number => queryObjects(Promise, { format: 'count' });
    delivery.start();
    while (waits < 2_000) await new Promise((r) => setImmediate(r));
    const before = livePromises();
    while (waits < 22_000) await new Promise((r) => setImmediate(r));
    const after = livePromises();
    await delivery.stop();
    expect(after - before).toBeLessThan(200);
  });
});
