import { describe, expect, it } from 'vitest';
import { afterRetryAfter, backoffDelay, parseRetryAfter, spreadWait } from '../../../src/util/backoff.js';

describe('backoffDelay', () => {
  const p = { initialMs: 100, maxMs: 2000 };
  it.each([
    [0, 0, 50],
    [0, 1, 100],
    [3, 1, 800],
    [3, 0, 50],
    [10, 1, 2000],
    [50, 1, 2000],
  ])('attempt %i with random %f → %i ms', (attempt, r, want) => {
    expect(backoffDelay(p, attempt, () => r)).toBe(want);
  });
  it('stays within [initial/2, max] for any attempt', () => {
    for (let a = 0; a < 40; a++) {
      const d = backoffDelay(p, a);
      expect(d).toBeGreaterThanOrEqual(50);
      expect(d).toBeLessThanOrEqual(2000);
    }
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T10:00:00Z');
  it.each([
    ['7', 7000],
    [' 0 ', 0],
    ['Sat, 21 Nov 2026 10:00:05 GMT', 5000],
    ['Sat, 21 Nov 2026 09:00:00 GMT', 0],
    // Absurd waits are capped (MAX_RETRY_AFTER_MS, 10 minutes): beyond 2^31-1 ms Node's setTimeout
    // would fire after 1 ms instead, a retry storm.
    ['99999999999', 600_000],
    ['601', 600_000],
    ['Fri, 31 Dec 9999 23:59:59 GMT', 600_000],
    ['-5', 0],
    ['soon', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%s → %s', (v, want) => {
    expect(parseRetryAfter(v, now)).toBe(want);
  });
});

describe('spreadWait', () => {
  it.each([
    [60_000, 0, 30_000],
    [60_000, 1, 60_000],
    [1_000, 0.5, 750],
  ])('%i ms with random %f → %i ms', (ms, r, want) => {
    expect(spreadWait(ms, () => r)).toBe(want);
  });
});

describe('afterRetryAfter', () => {
  it.each([
    // never sooner than asked; up to half again later, at most maxExtra more
    [1_000, 30_000, 0, 1_000],
    [1_000, 30_000, 1, 1_500],
    [600_000, 30_000, 1, 630_000],
    [0, 30_000, 1, 0],
  ])('%i ms, extra ≤ %i, random %f → %i ms', (ms, maxExtra, r, want) => {
    expect(afterRetryAfter(ms, maxExtra, () => r)).toBe(want);
  });
});
