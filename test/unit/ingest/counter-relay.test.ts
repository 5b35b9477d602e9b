import { describe, expect, it } from 'vitest';
import { applyDeltas, CounterReader } from '../../../src/ingest/counter-relay.js';
import { createMetrics } from '../../../src/observe/metrics.js';

const value = async (m: ReturnType<typeof createMetrics>, name: string, labels: Record<string, string> = {}): Promise<number> => {
  const metric = (await m.registry.getMetricsAsJSON()).find((x) => x.name === name)!;
  return metric.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0;
};

describe('counter relay: a worker\'s counters reach the main registry', () => {
  it('sends what each series grew by since the last report, and the main side adds exactly that', async () => {
    const worker = createMetrics({ defaultMetrics: false });
    const main = createMetrics({ defaultMetrics: false });
    const reader = new CounterReader(worker.registry);
    worker.eventsReceived.inc(5);
    worker.reconnects.inc({ reason: 'idle' }, 2);
    main.eventsReceived.inc(100); // counted on the main thread meanwhile (another worker)
    applyDeltas(main.registry, await reader.deltas());
    expect(await value(main, 'bridge_events_received_total')).toBe(105);
    expect(await value(main, 'bridge_reconnects_total', { reason: 'idle' })).toBe(2);
    expect(await value(main, 'bridge_reconnects_total', { reason: 'network' })).toBe(0);

    worker.eventsReceived.inc(1);
    const second = await reader.deltas();
    expect(second).toEqual([['bridge_events_received_total', {}, 1]]);
    applyDeltas(main.registry, second);
    expect(await value(main, 'bridge_events_received_total')).toBe(106);
    expect(await reader.deltas()).toEqual([]);
  });

  it('ignores names the main registry does not have', () => {
    const main = createMetrics({ defaultMetrics: false });
    expect(() => applyDeltas(main.registry, [['no_such_total', {}, 3]])).not.toThrow();
  });
});
