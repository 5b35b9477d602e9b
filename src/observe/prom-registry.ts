// A small Prometheus registry: counters, gauges and fixed-bucket histograms with label names, kept
// in memory and written as the text exposition format (prom-exposition.ts) when scraped. It does
// what the bridge needs and no more — no summaries, no exemplars, no OpenMetrics, no default labels —
// written to replace prom-client, which cost ~4.6 MiB of RSS in a sidecar whose budget is 64 MiB.
//
// A series is one label set of a metric. It exists from its first inc/set/observe, or from
// `inc(labels, 0)` / `zero(labels)`, which create it at zero: a series that appears with its first
// increment hides that increment from rate(). An unlabelled metric has its one series from the start.
// Output order is stable: metrics in registration order, each one's series in creation order.
// A metric may have a `collect` (sync or async), run at every scrape before anything is read, to
// set values from their sources; the scrape runs all of them at once and waits for every one.
import {
  CONTENT_TYPE,
  formatFamily,
  formatValue,
  type FamilySnapshot,
  type MetricType,
  type Sample,
} from './prom-exposition.js';

/** A label set: a value for every label name of the metric, no other. */
export type Labels<L extends string> = { [K in L]: string };

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export interface MetricOptions<L extends string, M> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** Runs at every scrape before the values are read (`this` is the metric). */
  collect?: (this: M) => void | Promise<void>;
}

abstract class Metric<L extends string, V> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  abstract readonly type: MetricType;
  protected readonly series = new Map<string, { labels: Record<string, string>; v: V }>();
  private readonly collector: (() => void | Promise<void>) | undefined;

  constructor(opts: MetricOptions<L, never>, reserved: readonly string[]) {
    if (!METRIC_NAME.test(opts.name)) throw new Error(`invalid metric name ${JSON.stringify(opts.name)}`);
    this.name = opts.name;
    this.help = opts.help;
    this.labelNames = [...(opts.labelNames ?? [])];
    for (const l of this.labelNames) {
      if (!LABEL_NAME.test(l) || l.startsWith('__') || reserved.includes(l))
        throw new Error(`${opts.name}: invalid label name ${JSON.stringify(l)}`);
    }
    if (new Set(this.labelNames).size !== this.labelNames.length)
      throw new Error(`${opts.name}: a label name is repeated`);
    const collect = opts.collect as ((this: this) => void | Promise<void>) | undefined;
    this.collector = collect ? () => collect.call(this) : undefined;
  }

  /** The registry runs this at every scrape. */
  collect(): void | Promise<void> {
    return this.collector?.();
  }

  abstract snapshot(): FamilySnapshot;

  protected abstract initial(): V;

  /** The series of a label set, created (at its initial value) if it does not exist yet. */
  protected at(labels: Labels<L> | undefined): { labels: Record<string, string>; v: V } {
    const key = this.key(labels);
    let s = this.series.get(key);
    if (!s) {
      s = { labels: this.checked(labels), v: this.initial() };
      this.series.set(key, s);
    }
    return s;
  }

  protected find(labels: Labels<L> | undefined): V | undefined {
    return this.series.get(this.key(labels))?.v;
  }

  private key(labels: Labels<L> | undefined): string {
    const names = this.labelNames;
    if (names.length === 0) return '';
    const l = labels as Record<string, string> | undefined;
    if (names.length === 1) return String(l?.[names[0]!]);
    return JSON.stringify(names.map((n) => l?.[n]));
  }

  /** The label set in the declared order; throws unless it names exactly the metric's labels. */
  private checked(labels: Labels<L> | undefined): Record<string, string> {
    const given = (labels ?? {}) as Record<string, unknown>;
    const out: Record<string, string> = {};
    for (const n of this.labelNames) {
      const v = given[n];
      if (typeof v !== 'string') throw new Error(`${this.name}: label ${n} missing or not a string`);
      out[n] = v;
    }
    const extra = Object.keys(given).filter((k) => !(this.labelNames as readonly string[]).includes(k));
    if (extra.length > 0) throw new Error(`${this.name}: unknown label ${extra.join(', ')}`);
    return out;
  }
}

/** Splits the (labels?, n?) overloads. */
function args<L extends string>(
  a: Labels<L> | number | undefined,
  b: number | undefined,
  dflt: number | undefined,
): [Labels<L> | undefined, number | undefined] {
  return typeof a === 'number' ? [undefined, a] : [a, b ?? dflt];
}

/** A metric whose series are one number each: counters and gauges. */
abstract class NumberMetric<L extends string> extends Metric<L, number> {
  constructor(opts: MetricOptions<L, never>) {
    super(opts, []);
    if (this.labelNames.length === 0) this.at(undefined);
  }

  protected initial(): number {
    return 0;
  }

  /** The value of a series, undefined if it does not exist. */
  get(labels?: Labels<L>): number | undefined {
    return this.find(labels);
  }

  snapshot(): FamilySnapshot {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      samples: [...this.series.values()].map((s) => ({ name: this.name, labels: s.labels, value: s.v })),
    };
  }
}

export class Counter<L extends string = never> extends NumberMetric<L> {
  readonly type = 'counter';

  // Typed for `collect`, whose `this` is the counter.
  constructor(opts: MetricOptions<L, Counter<L>>) {
    super(opts);
  }

  /** Adds n (default 1, never negative) to a series; `inc(labels, 0)` creates it at zero. */
  inc(n?: number): void;
  inc(labels: Labels<L>, n?: number): void;
  inc(a?: Labels<L> | number, b?: number): void {
    const [labels, n] = args(a, b, 1);
    if (!(n! >= 0)) throw new Error(`${this.name}: a counter only goes up (inc by ${n})`);
    this.at(labels).v += n!;
  }
}

export class Gauge<L extends string = never> extends NumberMetric<L> {
  readonly type = 'gauge';

  // Typed for `collect`, whose `this` is the gauge.
  constructor(opts: MetricOptions<L, Gauge<L>>) {
    super(opts);
  }

  set(value: number): void;
  set(labels: Labels<L>, value: number): void;
  set(a: Labels<L> | number, b?: number): void {
    const [labels, v] = args(a, b, undefined);
    if (typeof v !== 'number') throw new Error(`${this.name}: set without a value`);
    this.at(labels).v = v;
  }

  inc(n?: number): void;
  inc(labels: Labels<L>, n?: number): void;
  inc(a?: Labels<L> | number, b?: number): void {
    const [labels, n] = args(a, b, 1);
    this.at(labels).v += n!;
  }

  dec(n?: number): void;
  dec(labels: Labels<L>, n?: number): void;
  dec(a?: Labels<L> | number, b?: number): void {
    const [labels, n] = args(a, b, 1);
    this.at(labels).v -= n!;
  }
}

interface HistogramSeries {
  /** Observations per bucket, not cumulative; the last slot is above the highest bound. */
  counts: number[];
  sum: number;
  count: number;
}

export interface HistogramValue {
  /** Cumulative counts per bound, in the order of `buckets` (the +Inf bucket is `count`). */
  buckets: number[];
  sum: number;
  count: number;
}

export class Histogram<L extends string = never> extends Metric<L, HistogramSeries> {
  readonly type = 'histogram';
  readonly buckets: readonly number[];

  constructor(opts: MetricOptions<L, Histogram<L>> & { buckets: readonly number[] }) {
    super(opts, ['le']);
    const b = opts.buckets;
    if (b.length === 0 || b.some((x, i) => !Number.isFinite(x) || (i > 0 && !(x > b[i - 1]!)))) {
      throw new Error(`${opts.name}: buckets must be finite and strictly increasing`);
    }
    this.buckets = [...b];
    if (this.labelNames.length === 0) this.at(undefined);
  }

  protected initial(): HistogramSeries {
    return { counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
  }

  observe(value: number): void;
  observe(labels: Labels<L>, value: number): void;
  observe(a: Labels<L> | number, b?: number): void {
    const [labels, v] = args(a, b, undefined);
    if (typeof v !== 'number' || Number.isNaN(v)) throw new Error(`${this.name}: observe needs a number (got ${v})`);
    const s = this.at(labels).v;
    let i = 0;
    while (i < this.buckets.length && v > this.buckets[i]!) i++;
    s.counts[i]!++;
    s.sum += v;
    s.count++;
  }

  /** Creates a label set's series with every bucket at zero (no-op if it exists). */
  zero(labels: Labels<L>): void {
    this.at(labels);
  }

  get(labels?: Labels<L>): HistogramValue | undefined {
    const s = this.find(labels);
    if (!s) return undefined;
    let acc = 0;
    return { buckets: this.buckets.map((_, i) => (acc += s.counts[i]!)), sum: s.sum, count: s.count };
  }

  snapshot(): FamilySnapshot {
    const samples: Sample[] = [];
    for (const { labels, v } of this.series.values()) {
      let acc = 0;
      this.buckets.forEach((le, i) => {
        acc += v.counts[i]!;
        samples.push({ name: `${this.name}_bucket`, labels: { ...labels, le: formatValue(le) }, value: acc });
      });
      samples.push({ name: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: v.count });
      samples.push({ name: `${this.name}_sum`, labels, value: v.sum });
      samples.push({ name: `${this.name}_count`, labels, value: v.count });
    }
    return { name: this.name, help: this.help, type: this.type, samples };
  }
}

export type AnyMetric = Counter<string> | Gauge<string> | Histogram<string>;

export class Registry {
  readonly contentType = CONTENT_TYPE;
  private readonly all = new Map<string, AnyMetric>();

  /** Adds a metric (names are unique per registry) and returns it. */
  register<M extends AnyMetric>(metric: M): M {
    if (this.all.has(metric.name)) throw new Error(`metric ${metric.name} is already registered`);
    this.all.set(metric.name, metric);
    return metric;
  }

  counter<L extends string = never>(opts: MetricOptions<L, Counter<L>>): Counter<L> {
    return this.register(new Counter<L>(opts));
  }

  gauge<L extends string = never>(opts: MetricOptions<L, Gauge<L>>): Gauge<L> {
    return this.register(new Gauge<L>(opts));
  }

  histogram<L extends string = never>(
    opts: MetricOptions<L, Histogram<L>> & { buckets: readonly number[] },
  ): Histogram<L> {
    return this.register(new Histogram<L>(opts));
  }

  getMetric(name: string): AnyMetric | undefined {
    return this.all.get(name);
  }

  /** Runs the collects of the given metrics (all at once), then reads them in their order. */
  private async read(metrics: AnyMetric[]): Promise<FamilySnapshot[]> {
    await Promise.all(metrics.map(async (m) => m.collect()));
    return metrics.map((m) => m.snapshot());
  }

  /** Every family, collected now, in registration order. */
  async collect(): Promise<FamilySnapshot[]> {
    return this.read([...this.all.values()]);
  }

  /** One family, collected now; undefined if no metric has that name. */
  async family(name: string): Promise<FamilySnapshot | undefined> {
    const m = this.all.get(name);
    return m ? (await this.read([m]))[0] : undefined;
  }

  /** The exposition text of every family (what GET /metrics answers). */
  async metrics(): Promise<string> {
    return (await this.collect()).map(formatFamily).join('');
  }

  /** The exposition text of one family; '' if no metric has that name. */
  async metricText(name: string): Promise<string> {
    const f = await this.family(name);
    return f ? formatFamily(f) : '';
  }
}
