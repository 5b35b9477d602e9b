// The line `tail` prints when a signal stops it: what it showed, what was missing, for how long.
import { describe, expect, it } from 'vitest';
import { emptyTally, formatElapsed, tailSummary, type TailTally } from '../../../src/cli/tail-summary.js';

const tally = (t: Partial<TailTally>): TailTally => ({ ...emptyTally(), ...t });

describe('tailSummary', () => {
  it.each<[string, Partial<TailTally>, string, number, string]>([
    ['nothing came', {}, 'SIGINT', 2_300, 'stopped by SIGINT after 2.3 s: 0 events shown, no gaps'],
    [
      'one of each',
      { shown: 1, gaps: 1, missed: 1 },
      'SIGINT',
      900,
      'stopped by SIGINT after 0.9 s: 1 event shown, 1 gap (1 event not received)',
    ],
    [
      'filters, gaps, frames and reconnects',
      { shown: 57, filtered: 23, gaps: 2, missed: 5, malformed: 1, reconnects: 3 },
      'SIGTERM',
      75_000,
      'stopped by SIGTERM after 1 min 15 s: 57 events shown, 23 left out by the filters, 2 gaps (5 events not received), 1 undecodable frame skipped, 3 reconnects',
    ],
    [
      'a long run',
      { shown: 2 },
      'SIGINT',
      2 * 3600_000 + 3 * 60_000 + 59_000,
      'stopped by SIGINT after 2 h 03 min: 2 events shown, no gaps',
    ],
  ])('%s', (_name, t, signal, ms, expected) => {
    expect(tailSummary(tally(t), signal, ms)).toBe(expected);
  });
});

describe('formatElapsed', () => {
  it.each([
    [0, '0.0 s'],
    [-5, '0.0 s'],
    [59_949, '59.9 s'],
    [59_960, '1 min 00 s'],
    [60_000, '1 min 00 s'],
    [3_599_000, '59 min 59 s'],
    [3_599_999, '1 h 00 min'],
    [3_600_000, '1 h 00 min'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatElapsed(ms)).toBe(text);
  });
});
