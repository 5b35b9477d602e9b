// Facts emitted in an ingest worker reach the main thread's sink (metrics and log lines) with the
// worker's next report. Count facts (`count`) are summed by their name and labels first: with a
// thousand live sessions, one fact per read would be thousands of objects cloned per report for
// figures the main thread only adds up. Their `session` is dropped in the sum; each session's own
// numbers travel in its status. Every other fact travels as it was emitted, in order.
import type { Fact } from '../vocabulary/facts.js';

/** Bounded: a worker that cannot post (the main thread stalled) keeps the counts, not the lines. */
const MAX_PENDING = 10_000;

type CountFact = Extract<Fact, { count: number }>;

function isCount(f: Fact): f is CountFact {
  return 'count' in f;
}

/** The labels a count is summed by: everything but the session and the count. */
function sumKey(f: CountFact): string {
  switch (f.f) {
    case 'event_filtered':
      return `${f.f}\u0000${f.type}\u0000${f.category}`;
    case 'record_oversized':
      return `${f.f}\u0000${f.type}\u0000${f.action}`;
    case 'values_redacted':
      return `${f.f}\u0000${f.type}\u0000${f.kind}`;
    default:
      return f.f;
  }
}

export class FactRelay {
  private sums = new Map<string, CountFact>();
  private lines: Fact[] = [];
  /** Facts dropped because the queue was full (said once the queue drains). */
  private dropped = 0;

  /** The worker's `emit`. */
  readonly emit = (fact: Fact): void => {
    if (isCount(fact)) {
      const key = sumKey(fact);
      const sum = this.sums.get(key);
      if (sum) sum.count += fact.count;
      else {
        const { session: _session, ...rest } = fact as CountFact & { session?: string };
        this.sums.set(key, { ...rest });
      }
      return;
    }
    if (this.lines.length >= MAX_PENDING) {
      this.dropped++;
      return;
    }
    this.lines.push(fact);
  };

  /** Everything since the last call, counts first; empties the relay. */
  take(): Fact[] {
    const out: Fact[] = [...this.sums.values(), ...this.lines];
    if (this.dropped > 0) out.push({ f: 'facts_dropped', count: this.dropped, where: 'ingest worker' });
    this.sums = new Map();
    this.lines = [];
    this.dropped = 0;
    return out;
  }
}
