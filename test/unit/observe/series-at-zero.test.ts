// docs/operations.md "Metrics": labelled counters whose label values are known in advance exist at
// zero from the start, so `increase()` sees their first increment and an alert on them can fire.
// Every family of the registry must have at least one series before anything happened; a counter
// added without its values in LABEL_VALUES (and the `zero` list) fails here.
import { expect, it } from 'vitest';
import { createMetrics } from '../../../src/observe/metrics.js';

it('has a series for every metric family before anything happened', async () => {
  const m = createMetrics({ defaultMetrics: false });
  m.setSources({
    spool: () => Promise.resolve({ records: 0, bytes: 0, oldestTsMicros: null }),
    sessionsByState: () => ({}),
    pendingRecords: () => 0,
  });
  const empty = (await m.registry.collect()).filter((f) => f.samples.length === 0).map((f) => f.name);
  expect(empty).toEqual([]);
});

// The reasons docs/operations.md lists for it.
it('starts bridge_spans_dropped_total at zero for every reason', async () => {
  const m = createMetrics({ defaultMetrics: false });
  const family = await m.registry.family('bridge_spans_dropped_total');
  const reasons = family?.samples.map((s) => s.labels.reason).sort();
  expect(reasons).toEqual(['overflow', 'refused', 'rejected', 'shutdown']);
  expect(family?.samples.every((s) => s.value === 0)).toBe(true);
});
