// The span exporter's one wait: how long it stands when several answers join it, and what a
// success or shutdown ends early. The clock and the scheduler are the test's.
import { describe, expect, it } from 'vitest';
import { createSpanWait, type SpanWaitKind } from '../../../src/export/span-wait.js';

function rig() {
  let t = 0;
  const timers: Array<{ at: number; fn: () => void; cancelled: boolean }> = [];
  let ended = 0;
  const wait = createSpanWait(
    (fn, ms) => {
      const timer = { at: t + ms, fn, cancelled: false };
      timers.push(timer);
      return () => void (timer.cancelled = true);
    },
    () => ended++,
    () => t,
  );
  /** When the wait that stands runs out, on the clock. */
  const endsAt = () => timers.filter((x) => !x.cancelled).map((x) => x.at);
  const advance = (to: number) => {
    t = to;
    for (const x of timers.filter((y) => !y.cancelled && y.at <= t)) {
      x.cancelled = true;
      x.fn();
    }
  };
  return { wait, endsAt, advance, ended: () => ended, at: (ms: number) => void (t = ms) };
}

type Step = [at: number, ms: number, kind: SpanWaitKind];

describe('span wait', () => {
  it.each<[string, Step[], number[], boolean, boolean]>([
    // [name, waits started, when it ends, a success ends it, shutdown ends it]
    ['a backoff', [[0, 100, 'backoff']], [100], true, true],
    ['a Retry-After', [[0, 100, 'retry_after']], [100], false, false],
    ['the wait for a pipeline', [[0, 100, 'pipeline']], [100], true, false],
    [
      'a longer backoff joining a backoff: the first stands',
      [
        [0, 100, 'backoff'],
        [10, 400, 'backoff'],
      ],
      [100],
      true,
      true,
    ],
    [
      'a shorter backoff joining a Retry-After: the Retry-After stands',
      [
        [0, 7000, 'retry_after'],
        [10, 100, 'backoff'],
      ],
      [7000],
      false,
      false,
    ],
    [
      'a Retry-After joining a shorter backoff: it lasts as long as the collector asked',
      [
        [0, 100, 'backoff'],
        [10, 7000, 'retry_after'],
      ],
      [7010],
      false,
      false,
    ],
    [
      'a shorter Retry-After joining a backoff: the backoff end, and no early end',
      [
        [0, 1000, 'backoff'],
        [10, 100, 'retry_after'],
      ],
      [1000],
      false,
      false,
    ],
    [
      'a pipeline wait joining a backoff: a success ends it, shutdown does not',
      [
        [0, 100, 'backoff'],
        [10, 60_000, 'pipeline'],
      ],
      [60_010],
      true,
      false,
    ],
    [
      'a pipeline wait joining a pipeline wait',
      [
        [0, 60_000, 'pipeline'],
        [10, 60_000, 'pipeline'],
      ],
      [60_010],
      true,
      false,
    ],
    [
      'a Retry-After joining the wait for a pipeline: a success no longer ends it',
      [
        [0, 60_000, 'pipeline'],
        [10, 70_000, 'retry_after'],
      ],
      [70_010],
      false,
      false,
    ],
    [
      'the wait for a pipeline joining a Retry-After: a success does not end it',
      [
        [0, 70_000, 'retry_after'],
        [10, 60_000, 'pipeline'],
      ],
      [70_000],
      false,
      false,
    ],
  ])('%s', (_name, steps, ends, successEnds, shutdownEnds) => {
    for (const ending of ['success', 'shutdown'] as const) {
      const r = rig();
      for (const [at, ms, kind] of steps) {
        r.at(at);
        r.wait.start(ms, kind);
      }
      expect(r.endsAt()).toEqual(ends);
      if (ending === 'success') r.wait.succeeded();
      else r.wait.endBackoff();
      const endedEarly = ending === 'success' ? successEnds : shutdownEnds;
      expect(r.wait.standing).toBe(!endedEarly);
      expect(r.endsAt()).toEqual(endedEarly ? [] : ends);
      // Ended early, the exporter is not told: it sends again on its own (kick).
      expect(r.ended()).toBe(0);
    }
  });

  it('runs out at its end: the exporter is told once, and no wait stands', () => {
    const r = rig();
    r.wait.start(100, 'retry_after');
    r.advance(99);
    expect(r.wait.standing).toBe(true);
    r.advance(100);
    expect(r.wait.standing).toBe(false);
    expect(r.ended()).toBe(1);
  });

  it('cancel drops any wait without telling', () => {
    const r = rig();
    r.wait.start(100, 'retry_after');
    r.wait.cancel();
    expect(r.wait.standing).toBe(false);
    expect(r.endsAt()).toEqual([]);
    expect(r.ended()).toBe(0);
  });
});
