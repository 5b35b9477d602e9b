import { describe, expect, it } from 'vitest';
import { LatencyHistogram, bucketOf, bucketUpperMs } from '../../../bench/latency-histogram.js';

describe('latency histogram buckets', () => {
  const cases: Array<[ms: number, upperMs: number]> = [
    [-5, 1],
    [0, 1],
    [0.4, 1],
    [1, 2],
    [999.9, 1000],
    [1000, 1010],
    [9999, 10_000],
    [10_000, 10_100],
    [54_321, 54_400],
    [5_000_000, 1_000_000],
  ];
  for (const [ms, upper] of cases) {
    it(`${ms} ms falls in the bucket ending at ${upper} ms`, () => expect(bucketUpperMs(bucketOf(ms))).toBe(upper));
  }
});

describe('latency histogram percentiles', () => {
  it('is empty until something is recorded', () => {
    expect(new LatencyHistogram().summary()).toEqual({ count: 0, p50Ms: null, p99Ms: null, maxMs: null });
  });

  it('p50 and p99 of 1..1000 ms, never below the true value, never above the maximum', () => {
    const h = new LatencyHistogram();
    for (let i = 1; i <= 1000; i++) h.record(i - 0.5);
    expect(h.summary()).toEqual({ count: 1000, p50Ms: 500, p99Ms: 990, maxMs: 999.5 });
  });

  it('a long tail in the coarse tiers and beyond the last bucket', () => {
    const h = new LatencyHistogram();
    for (let i = 0; i < 98; i++) h.record(20);
    h.record(31_234);
    h.record(2_000_000);
    expect(h.percentile(0.5)).toBe(21); // 20 lies in [20, 21)
    expect(h.percentile(0.99)).toBe(31_300);
    expect(h.percentile(1)).toBe(2_000_000);
  });
});
