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

export class FactRelay {
  /** Counts without labels, by name. */
  private plain = new Map<string, CountFact>();
  /**
   * Counts with two labels (event_filtered, record_oversized, values_redacted), by name, then label,
   * then label: Maps of the strings as they come, where a key made of name and labels was a new
   * string per fact to build and hash (a redaction fact every few events: 270 ns each).
   */
  private labelled = new Map<string, Map<string, Map<string, CountFact>>>();
  /** Every sum, in the order of its first fact. */
  private sums: CountFact[] = [];
  private lines: Fact[] = [];
  /** Facts dropped because the queue was full (said once the queue drains). */
  private dropped = 0;

  /** The worker's `emit`. */
  readonly emit = (fact: Fact): void => {
    if (isCount(fact)) {
      this.count(fact);
      return;
    }
    if (this.lines.length >= MAX_PENDING) {
      this.dropped++;
      return;
    }
    this.lines.push(fact);
  };

  /** Adds a count to its sum: the labels it is summed by are everything but the session and the count. */
  private count(f: CountFact): void {
    let a: string;
    let b: string;
    switch (f.f) {
      case 'event_filtered':
        a = f.type;
        b = f.category;
        break;
      case 'record_oversized':
        a = f.type;
        b = f.action;
        break;
      case 'values_redacted':
        a = f.type;
        b = f.kind;
        break;
      default: {
        const sum = this.plain.get(f.f);
        if (sum) sum.count += f.count;
        else this.plain.set(f.f, this.start(f));
        return;
      }
    }
    let byA = this.labelled.get(f.f);
    if (byA === undefined) this.labelled.set(f.f, (byA = new Map<string, Map<string, CountFact>>()));
    let byB = byA.get(a);
    if (byB === undefined) byA.set(a, (byB = new Map<string, CountFact>()));
    const sum = byB.get(b);
    if (sum) sum.count += f.count;
    else byB.set(b, this.start(f));
  }

  /** A new sum from a count's first fact (its own object, without the session). */
  private start(f: CountFact): CountFact {
    const { session: _session, ...rest } = f as CountFact & { session?: string };
    const sum = { ...rest };
    this.sums.push(sum);
    return sum;
  }

  /** Everything since the last call, counts first; empties the relay. */
  take(): Fact[] {
    const out: Fact[] = [...this.sums, ...this.lines];
    if (this.dropped > 0) out.push({ f: 'facts_dropped', count: this.dropped, where: 'ingest worker' });
    this.plain = new Map();
    this.labelled = new Map();
    this.sums = [];
    this.lines = [];
    this.dropped = 0;
    return out;
  }
}
