// The periodic status: one compact line on a terminal (no object, so a pretty printer cannot turn
// it into a dozen lines), a structured heartbeat elsewhere.
import type { Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatStatusLine, startStatusReporter, type StatusSummary } from '../../../src/cli/status-reporter.js';

const base: StatusSummary = {
  sessions: { streaming: 2 },
  received: 100,
  delivered: 90,
  gaps: 0,
  malformed: 0,
  spoolRecords: 10,
  spoolBytes: 5000,
  exportFailing: false,
};

function fakeLog(): { log: Logger; calls: unknown[][] } {
  const calls: unknown[][] = [];
  return { log: { info: (...a: unknown[]) => void calls.push(a) } as unknown as Logger, calls };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('formatStatusLine', () => {
  it.each([
    [base, undefined, '2 streaming · received 100 · delivered 90 · spool 10'],
    [{ ...base, received: 300 }, base, '2 streaming · received 300 (+40/s) · delivered 90 · spool 10'],
    [
      { ...base, sessions: {}, gaps: 2, malformed: 1, exportFailing: true },
      undefined,
      'no sessions · received 100 · delivered 90 · spool 10 · gaps 2 · malformed 1 · EXPORT FAILING',
    ],
    [
      { ...base, gaps: 1, owedGaps: 1 },
      undefined,
      '2 streaming · received 100 · delivered 90 · spool 10 · gaps 1 · gaps owed 1 (archive unreadable; see top)',
    ],
    [
      { ...base, sessions: { streaming: 1, ended: 3 } },
      undefined,
      '1 streaming, 3 ended · received 100 · delivered 90 · spool 10',
    ],
  ] as const)('%#', (s, prev, line) => {
    expect(formatStatusLine(s, prev, 5)).toBe(line);
  });
});

describe('startStatusReporter', () => {
  it('on a terminal: a gap becoming owed, or no longer, is a line even when nothing else moves', () => {
    const { log, calls } = fakeLog();
    let s: StatusSummary = base;
    const r = startStatusReporter(() => s, log, { tty: true, intervalMs: 5000 });
    vi.advanceTimersByTime(5000);
    s = { ...base, owedGaps: 1 };
    vi.advanceTimersByTime(5000);
    vi.advanceTimersByTime(5000);
    s = base;
    vi.advanceTimersByTime(5000);
    r.stop();
    expect(calls).toEqual([
      ['2 streaming · received 100 · delivered 90 · spool 10'],
      ['2 streaming · received 100 (+0/s) · delivered 90 · spool 10 · gaps owed 1 (archive unreadable; see top)'],
      ['2 streaming · received 100 (+0/s) · delivered 90 · spool 10'],
    ]);
  });

  it('on a terminal: one string per tick, nothing while nothing moves', () => {
    const { log, calls } = fakeLog();
    let s = base;
    const r = startStatusReporter(() => s, log, { tty: true, intervalMs: 5000 });
    vi.advanceTimersByTime(5000);
    vi.advanceTimersByTime(5000);
    s = { ...base, received: 150, delivered: 150 };
    vi.advanceTimersByTime(5000);
    r.stop();
    expect(calls).toEqual([
      ['2 streaming · received 100 · delivered 90 · spool 10'],
      ['2 streaming · received 150 (+10/s) · delivered 150 · spool 10'],
    ]);
  });

  it('off a terminal: every tick, with the numbers as fields', () => {
    const { log, calls } = fakeLog();
    const r = startStatusReporter(() => base, log, { tty: false, intervalMs: 60_000 });
    vi.advanceTimersByTime(120_000);
    r.stop();
    expect(calls).toHaveLength(2);
    expect(calls[0]).toEqual([{ status: base }, '2 streaming · received 100 · delivered 90 · spool 10']);
  });
});
