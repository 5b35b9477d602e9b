// The store's figures for a scrape: served from memory for a period, read once for all callers, and
// never waited for past a short bound: a store that does not answer (PostgreSQL stopped with
// SIGSTOP, a cut network) gives the last known figures, marked stale, instead of a hung scrape.
// Time is the test's: a clock it moves and a sleep it resolves.
import { expect, it } from 'vitest';
import { lastKnown } from '../../../src/util/cached.js';

function harness() {
  let t = 0;
  const sleeps: Array<{ ms: number; wake: () => void }> = [];
  const reads: Array<{ resolve: (v: number) => void; reject: (e: Error) => void }> = [];
  const get = lastKnown(
    () =>
      new Promise<number>((resolve, reject) => {
        reads.push({ resolve, reject });
      }),
    {
      ttlMs: 5000,
      waitMs: 1000,
      now: () => t,
      sleep: (ms) => new Promise<void>((wake) => sleeps.push({ ms, wake })),
    },
  );
  return {
    get,
    reads,
    sleeps,
    advance(ms: number) {
      t += ms;
    },
  };
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

it('reads once, then serves the value from memory for the period', async () => {
  const h = harness();
  const first = h.get();
  await flush();
  h.reads[0]!.resolve(7);
  expect(await first).toEqual({ value: 7, ageMs: 0, stale: false });
  h.advance(4999);
  expect(await h.get()).toEqual({ value: 7, ageMs: 4999, stale: false });
  expect(h.reads).toHaveLength(1);
});

it('answers with the last known value, stale, when a read does not come within the wait; the read then lands', async () => {
  const h = harness();
  const first = h.get();
  await flush();
  h.reads[0]!.resolve(7);
  await first;
  h.advance(6000);
  const slow = h.get();
  await flush();
  expect(h.reads).toHaveLength(2);
  expect(h.sleeps.map((s) => s.ms)).toEqual([1000, 1000]);
  h.advance(1000);
  h.sleeps[1]!.wake();
  expect(await slow).toEqual({ value: 7, ageMs: 7000, stale: true });
  // The gauges of the same scrape do not wait again for the read still out, nor start another.
  expect(await h.get()).toEqual({ value: 7, ageMs: 7000, stale: true });
  expect(h.sleeps).toHaveLength(2);
  expect(h.reads).toHaveLength(2);
  // The store answers at last: the next caller gets the new figure.
  h.reads[1]!.resolve(9);
  await flush();
  expect(await h.get()).toEqual({ value: 9, ageMs: 0, stale: false });
});

it('a read that fails is answered like a slow one (last known, stale), and the next caller reads again', async () => {
  const h = harness();
  const first = h.get();
  await flush();
  h.reads[0]!.resolve(7);
  await first;
  h.advance(6000);
  const failing = h.get();
  await flush();
  h.reads[1]!.reject(new Error('Connection terminated due to connection timeout'));
  expect(await failing).toEqual({ value: 7, ageMs: 6000, stale: true });
  void h.get();
  await flush();
  expect(h.reads).toHaveLength(3);
});

it('before any read succeeded there is nothing to serve: undefined, without waiting past the bound', async () => {
  const h = harness();
  const first = h.get();
  await flush();
  h.advance(1000);
  h.sleeps[0]!.wake();
  expect(await first).toBeUndefined();
});
