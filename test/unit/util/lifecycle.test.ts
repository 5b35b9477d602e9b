import { describe, expect, it } from 'vitest';
import { once } from '../../../src/util/lifecycle.js';

describe('once', () => {
  it('runs the teardown on the first call only; later calls, concurrent or not, share its promise and ignore their arguments', async () => {
    let runs = 0;
    const stop = once(async (deadline: number) => {
      runs++;
      await new Promise((r) => setTimeout(r, 5));
      return deadline;
    });
    const [a, b] = await Promise.all([stop(1), stop(2)]);
    expect([a, b, await stop(3), runs]).toEqual([1, 1, 1, 1]);
  });

  it('a failed teardown stays failed for every caller (it is not retried behind their backs)', async () => {
    let runs = 0;
    const close = once(async () => {
      runs++;
      throw new Error('disk gone');
    });
    await expect(close()).rejects.toThrow('disk gone');
    await expect(close()).rejects.toThrow('disk gone');
    expect(runs).toBe(1);
  });
});
