// The latch loops wait against until shutdown: it ends waits in progress, and it holds nothing of a
// wait once that wait has ended (a promise raced at every wait leaked one reaction a wait: the
// Delivery test in test/unit/export/delivery-wait-memory.test.ts).
import { describe, expect, it } from 'vitest';
import { StopLatch } from '../../../src/util/stop-latch.js';

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
