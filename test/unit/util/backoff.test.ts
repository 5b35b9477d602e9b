import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter } from '../../../src/util/backoff.js';

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
