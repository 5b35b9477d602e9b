// Counters kept in a worker reach the process's one registry (the one /metrics serves): the worker
// counts into a registry of its own, and each report carries what every counter series grew by
// since the last one; the main thread adds that to the same series. Only counters travel: gauges
// are computed where /metrics is served, and the worker's path has no histograms.
import type { Counter, Registry } from 'prom-client';
import type { CounterDelta } from './protocol.js';

export class CounterReader {
  private last = new Map<string, number>();

  constructor(private readonly registry: Registry) {}

  /** The increments since the previous call (series that did not change are left out). */
  async deltas(): Promise<CounterDelta[]> {
    const out: CounterDelta[] = [];
    for (const m of await this.registry.getMetricsAsJSON()) {
      if (String(m.type) !== 'counter') continue;
      for (const v of m.values) {
        const labels = v.labels as Record<string, string | number>;
        const key = `${m.name}\u0000${JSON.stringify(labels)}`;
        const before = this.last.get(key) ?? 0;
        if (v.value === before) continue;
        this.last.set(key, v.value);
        out.push([m.name, labels, v.value - before]);
      }
    }
    return out;
  }
}

/** Adds a worker's increments to the same counters of `registry`; unknown names are ignored. */
export function applyDeltas(registry: Registry, deltas: readonly CounterDelta[]): void {
  for (const [name, labels, delta] of deltas) {
    const c = registry.getSingleMetric(name) as Counter<string> | undefined;
    if (!c || delta <= 0) continue;
    if (Object.keys(labels).length === 0) c.inc(delta);
    else c.inc(labels, delta);
  }
}
