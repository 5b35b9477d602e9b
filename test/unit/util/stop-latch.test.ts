// The latch loops wait against until shutdown: it ends waits in progress, and it holds nothing of a
// wait once that wait has ended (a promise raced at every wait leaked one reaction a wait).
import { queryObjects } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { StopLatch } from '../../../src/util/stop-latch.js';
import type { Spool } from '../../../src/store/spool.js';
import { scriptedTransport, testDelivery } from '../../helpers/delivery-fixture.js';

/** A promise and its resolving functions. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('StopLatch', () => {
  it('settles as the wait does, and keeps nothing of it afterwards', async () => {
    const latch = new StopLatch();
    const ok = deferred<number>();
    const raced = latch.race(ok.promise);
    expect(latch.waiting).toBe(1);
    ok.resolve(7);
    await expect(raced).resolves.toBe(7);
    expect(latch.waiting).toBe(0);

    const bad = deferred<number>();
    const failing = latch.race(bad.promise);
    bad.reject(new Error('store gone'));
    await expect(failing).rejects.toThrow('store gone');
    expect(latch.waiting).toBe(0);
  });

  it('ends every wait in progress when fired, and every later one at once; fire is idempotent', async () => {
    const latch = new StopLatch();
    const never = new Promise<number>(() => {});
    const a = latch.race(never);
    const b = latch.race(never);
    expect(latch.stopped).toBe(false);
    latch.fire();
    latch.fire();
    expect(latch.stopped).toBe(true);
    await expect(Promise.all([a, b])).resolves.toEqual([undefined, undefined]);
    expect(latch.waiting).toBe(0);
    await expect(latch.race(never)).resolves.toBeUndefined();
    expect(latch.waiting).toBe(0);
  });

  it('a wait that ends after the latch fired changes nothing', async () => {
    const latch = new StopLatch();
    const late = deferred<number>();
    const raced = latch.race(late.promise);
    latch.fire();
    late.resolve(3);
    await expect(raced).resolves.toBeUndefined();
  });
});

describe("Delivery's wait for data", () => {
  it('leaves no promise behind per wait: 20,000 waits of idle workers hold no more than 200', async () => {
    // A spool that never has a batch and has "new data" after every turn: each worker waits, wakes,
    // finds nothing and waits again, as delivery's workers do after nearly every record a quiet
    // session sends. Racing each wait against a promise that resolves at shutdown kept every wait's
    // reaction alive until shutdown: 20,000 promises here, 24 MB an hour in a sidecar.
    let waits = 0;
    const spool = {
      idle: true,
      takeBatch: async () => null,
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
