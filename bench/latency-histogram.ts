// A fixed-bucket latency histogram for the benchmark's sink: recording is one array increment (the
// sink records ~20k values/s and must stay cheap), percentiles are read rarely. Resolution: 1 ms up
// to 1 s, 10 ms up to 10 s, 100 ms up to 1000 s; anything longer falls in the last bucket, and the
// exact maximum is kept apart. A percentile reports the upper edge of its bucket, so it never
// understates.

const TIERS = [
  { upTo: 1_000, width: 1 },
  { upTo: 10_000, width: 10 },
  { upTo: 1_000_000, width: 100 },
] as const;

function bucketCount(): number {
  let n = 0;
  let from = 0;
  for (const t of TIERS) {
    n += (t.upTo - from) / t.width;
    from = t.upTo;
  }
  return n;
}

const BUCKETS = bucketCount();

/** Bucket index of a latency in ms (negative counts as 0). */
export function bucketOf(ms: number): number {
  let base = 0;
  let from = 0;
  const v = ms > 0 ? ms : 0;
  for (const t of TIERS) {
    if (v < t.upTo) return base + Math.floor((v - from) / t.width);
    base += (t.upTo - from) / t.width;
    from = t.upTo;
  }
  return BUCKETS - 1;
}

/** Upper edge (ms) of a bucket. */
export function bucketUpperMs(index: number): number {
  let base = 0;
  let from = 0;
  for (const t of TIERS) {
    const n = (t.upTo - from) / t.width;
    if (index < base + n) return from + (index - base + 1) * t.width;
    base += n;
    from = t.upTo;
  }
  return TIERS[TIERS.length - 1]!.upTo;
}

export interface LatencySummary {
  count: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

export class LatencyHistogram {
  private readonly counts = new Uint32Array(BUCKETS);
  private total = 0;
  private max = 0;

  record(ms: number): void {
    this.counts[bucketOf(ms)]!++;
    this.total++;
    if (ms > this.max) this.max = ms; // negative (clock) values count as 0 and never raise the max
  }

  /** The latency (ms, bucket upper edge) below which `q` (0..1] of the values fall; null when empty. */
  percentile(q: number): number | null {
    if (this.total === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.total));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      // The last bucket is open-ended; elsewhere the edge, but never above the real maximum.
      if (seen >= rank) return i === BUCKETS - 1 ? this.max : Math.min(bucketUpperMs(i), this.max);
    }
    return this.max;
  }

  summary(): LatencySummary {
    return {
      count: this.total,
      p50Ms: this.percentile(0.5),
      p99Ms: this.percentile(0.99),
      maxMs: this.total ? Math.round(this.max * 10) / 10 : null,
    };
  }
}
