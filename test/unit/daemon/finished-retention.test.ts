// A running bridge prunes the rows of long-finished sessions every interval (daemon/finished-retention.ts):
// one prune at a time, a line only when rows went, a failure said and tried again, and a stop that
// waits for a prune under way so the store is never closed under it.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { startFinishedRetention } from '../../../src/daemon/finished-retention.js';

const EVERY = 1000;

function fakeLog() {
  return { info: vi.fn(), warn: vi.fn() };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

it('prunes every interval and says so only when rows went', async () => {
  const answers = [0, 3, 0];
  const store = { pruneFinished: vi.fn(async () => answers.shift() ?? 0) };
  const log = fakeLog();
  const r = startFinishedRetention(store, log, EVERY);
  await vi.advanceTimersByTimeAsync(EVERY - 1);
  expect(store.pruneFinished).not.toHaveBeenCalled();
  await vi.advanceTimersByTimeAsync(3 * EVERY);
  expect(store.pruneFinished).toHaveBeenCalledTimes(3);
  expect(log.info).toHaveBeenCalledTimes(1);
  expect(log.info.mock.calls[0]![0]).toEqual({ sessions: 3, retentionDays: 7 });
  expect(log.warn).not.toHaveBeenCalled();
  await r.stop();
  await vi.advanceTimersByTimeAsync(5 * EVERY);
  expect(store.pruneFinished).toHaveBeenCalledTimes(3);
});

it('says a failed prune and tries again at the next interval', async () => {
  const store = {
    pruneFinished: vi
      .fn<() => Promise<number>>()
      .mockRejectedValueOnce(new Error('database or disk is full'))
      .mockResolvedValue(2),
  };
  const log = fakeLog();
  const r = startFinishedRetention(store, log, EVERY);
  await vi.advanceTimersByTimeAsync(EVERY);
  expect(log.warn).toHaveBeenCalledTimes(1);
  expect(log.warn.mock.calls[0]![0]).toMatchObject({ err: 'database or disk is full', retryInMs: EVERY });
  await vi.advanceTimersByTimeAsync(EVERY);
  expect(store.pruneFinished).toHaveBeenCalledTimes(2);
  expect(log.info).toHaveBeenCalledTimes(1);
  await r.stop();
});

it('never runs two prunes at once, and stop waits for the one under way', async () => {
  let finish: ((n: number) => void) | undefined;
  const store = { pruneFinished: vi.fn(() => new Promise<number>((resolve) => (finish = resolve))) };
  const r = startFinishedRetention(store, fakeLog(), EVERY);
  // A prune slower than the interval (a large table, a slow shared store): no second one meanwhile.
  await vi.advanceTimersByTimeAsync(5 * EVERY);
  expect(store.pruneFinished).toHaveBeenCalledTimes(1);
  let stopped = false;
  const stopping = r.stop().then(() => (stopped = true));
  await vi.advanceTimersByTimeAsync(0);
  expect(stopped).toBe(false);
  finish!(0);
  await stopping;
  expect(stopped).toBe(true);
  await vi.advanceTimersByTimeAsync(5 * EVERY);
  expect(store.pruneFinished).toHaveBeenCalledTimes(1);
});
