// CLS session windows and web.dev ratings.
import { describe, expect, it } from 'vitest';
import { addShift, emptyCls, rate } from '../../../src/traces/web-vitals.js';

const S = 1_000_000;

describe('CLS', () => {
  const cases: Array<[string, Array<[number, number, boolean]>, number]> = [
    ['no shifts', [], 0],
    [
      'one window',
      [
        [0, 0.1, false],
        [0.5 * S, 0.05, false],
      ],
      0.15,
    ],
    [
      'a gap of 1 s opens a new window; the largest counts',
      [
        [0, 0.1, false],
        [1.2 * S, 0.3, false],
      ],
      0.3,
    ],
    [
      'a window is at most 5 s long',
      [
        [0, 0.1, false],
        [0.9 * S, 0.1, false],
        [1.8 * S, 0.1, false],
        [2.7 * S, 0.1, false],
        [3.6 * S, 0.1, false],
        [4.5 * S, 0.1, false],
        [5.4 * S, 0.1, false],
      ],
      0.6,
    ],
    [
      'shifts after recent input do not count',
      [
        [0, 0.1, false],
        [0.1 * S, 0.9, true],
      ],
      0.1,
    ],
  ];
  for (const [name, shifts, expected] of cases) {
    it(name, () => {
      const s = emptyCls();
      for (const [ts, v, input] of shifts) addShift(s, ts, v, input);
      expect(s.max).toBeCloseTo(expected);
    });
  }
});

describe('ratings', () => {
  const cases: Array<['lcp' | 'cls', number, string]> = [
    ['lcp', 2500, 'good'],
    ['lcp', 2501, 'needs-improvement'],
    ['lcp', 4001, 'poor'],
    ['cls', 0.1, 'good'],
    ['cls', 0.2, 'needs-improvement'],
    ['cls', 0.3, 'poor'],
  ];
  for (const [name, value, rating] of cases)
    it(`${name} ${value} is ${rating}`, () => expect(rate(name, value)).toBe(rating));
});
