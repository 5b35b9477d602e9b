// When a full span queue's drops are said. The queue drops at every offer while the traces endpoint
// does not take spans, and the span tap offers the spans one at a time as they end: said every 50th
// drop (as other drops are), a busy bridge logged several lines a second, each with `count: 1`, and
// no line gave the spans lost. Said instead at the first drop, then at most once per interval, each
// line with the spans dropped since the one before and in all, the bound, and why the queue is full.
import type { Fact } from '../vocabulary/facts.js';

/** At most one line per this interval about a full span queue. */
export const OVERFLOW_SAY_EVERY_MS = 60_000;

type OverflowFact = Extract<Fact, { f: 'spans_dropped' }>;

/**
 * The fact of each drop over the bound (every one counts in bridge_spans_dropped_total), `quiet`
 * when no line is due. `now`: a steady clock in ms.
 */
export function createOverflowNotice(
  queueMaxBytes: number,
  now: () => number,
  everyMs = OVERFLOW_SAY_EVERY_MS,
): (count: number, error: string | undefined) => OverflowFact {
  let times = 0;
  let dropped = 0;
  let since = 0;
  let saidAt: number | undefined;
  return (count, error) => {
    times++;
    dropped += count;
    since += count;
    const t = now();
    const quiet = saidAt !== undefined && t - saidAt < everyMs;
    const fact: OverflowFact = { f: 'spans_dropped', count, reason: 'overflow', times, dropped, since, queueMaxBytes };
    if (error !== undefined) fact.error = error;
    if (quiet) fact.quiet = true;
    else {
      saidAt = t;
      since = 0;
    }
    return fact;
  };
}
