// When a full span queue's drops are said: the first at once, then at most once per interval, each
// with the spans dropped since the line before and in all; every drop is a fact for the metric.
import { describe, expect, it } from 'vitest';
import { createOverflowNotice } from '../../../src/export/overflow-notice.js';

describe('overflow notice', () => {
  it.each([
    // [ms of each drop, spans each drop, lines said as [since, dropped]]
    ['one drop', [0], [1], [[1, 1]]],
    ['drops within the interval: the first only', [0, 10, 999], [1, 2, 3], [[1, 1]]],
    [
      'a drop at the interval says what came since',
      [0, 10, 999, 1000],
      [1, 2, 3, 4],
      [
        [1, 1],
        [9, 10],
      ],
    ],
    [
      'the interval counts from the last line, not the last drop',
      [0, 1000, 1500, 2000],
      [1, 1, 1, 1],
      [
        [1, 1],
        [1, 2],
        [2, 4],
      ],
    ],
  ])('%s', (_name, at, counts, said) => {
    let now = 0;
    const notice = createOverflowNotice(4096, () => now, 1000);
    const facts = at.map((t, i) => {
      now = t;
      return notice(counts[i]!, i === 0 ? undefined : 'HTTP 404');
    });
    expect(facts.map((f) => f.count)).toEqual(counts);
    expect(facts.map((f) => f.times)).toEqual(counts.map((_c, i) => i + 1));
    expect(facts.filter((f) => f.quiet !== true).map((f) => [f.since, f.dropped])).toEqual(said);
    expect(facts.every((f) => f.queueMaxBytes === 4096 && f.reason === 'overflow')).toBe(true);
    expect(facts[0]!.error).toBeUndefined();
    if (facts.length > 1) expect(facts[1]!.error).toBe('HTTP 404');
  });
});
