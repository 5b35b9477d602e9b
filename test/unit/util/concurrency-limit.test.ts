// limitConcurrency: at most `max` calls in flight, the others in arrival order, also when a call
// arrives in the moment a slot is handed from a finished call to the next one in line.
import { describe, expect, it } from 'vitest';
import { limitConcurrency, semaphore } from '../../../src/util/concurrency-limit.js';

/** A function whose calls finish when the test says, counting how many run at once. */
function gated() {
  let running = 0;
  let most = 0;
  const order: string[] = [];
  const open = new Map<string, () => void>();
  const fn = async (name: string): Promise<string> => {
    running++;
    most = Math.max(most, running);
    order.push(name);
    await new Promise<void>((resolve) => open.set(name, resolve));
    running--;
    return name;
  };
  return { fn, order, finish: (name: string) => open.get(name)!(), most: () => most };
}

describe('limitConcurrency', () => {
  // The old hand-off: release() counted the slot free and woke the waiting call, which took it a
  // microtask later; a call arriving in between saw a free slot and ran beside it. Which microtask
  // that is depends on the engine's await ticks, so every arrival point from 0 to 12 ticks after the
  // first call is told to finish is tried.
  it.each(Array.from({ length: 13 }, (_, k) => k))(
    'a call arriving %i microtasks after a finish does not run beside the waiting call the slot is handed to',
    async (ticks) => {
      const g = gated();
      const limited = limitConcurrency(1, g.fn);
      const a = limited('a');
      const b = limited('b');
      await Promise.resolve();
      expect(g.order).toEqual(['a']);
      let c: Promise<string> | undefined;
      const later = (n: number): void => {
        if (n === 0) c = limited('c');
        else queueMicrotask(() => later(n - 1));
      };
      g.finish('a');
      later(ticks);
      await a;
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      expect(g.most()).toBe(1);
      expect(g.order).toEqual(['a', 'b']);
      g.finish('b');
      await b;
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      g.finish('c');
      expect(await c).toBe('c');
      expect(g.most()).toBe(1);
    },
  );

  it('many calls, each finished call starting another: never more than max at once', async () => {
    const g = gated();
    const limited = limitConcurrency(3, g.fn);
    const calls: Array<Promise<string>> = [];
    let n = 0;
    const start = (): void => {
      if (n === 40) return;
      const p = limited(String(n++));
      calls.push(p);
      void p.then(start);
    };
    for (let i = 0; i < 5; i++) start();
    let finished = 0;
    while (finished < 40) {
      for (const name of g.order.slice(finished)) g.finish(name);
      finished = g.order.length;
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(calls);
    expect(g.most()).toBeLessThanOrEqual(3);
    expect(calls).toHaveLength(40);
  });

  it('a call that throws gives its slot back', async () => {
    const limited = limitConcurrency(1, async (fail: boolean) => {
      if (fail) throw new Error('no');
      return 'ok';
    });
    await expect(limited(true)).rejects.toThrow('no');
    expect(await limited(false)).toBe('ok');
  });
});

describe('semaphore', () => {
  it('hands a released permit to the oldest waiter, and giving a permit back twice frees one slot', async () => {
    const s = semaphore(1);
    const release = await s.acquire();
    const got: string[] = [];
    const b = s.acquire().then((r) => (got.push('b'), r));
    release();
    release();
    const c = s.acquire().then((r) => (got.push('c'), r));
    const releaseB = await b;
    await new Promise((r) => setImmediate(r));
    expect(got).toEqual(['b']);
    releaseB();
    (await c)();
    expect(got).toEqual(['b', 'c']);
  });
});
