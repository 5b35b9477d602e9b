// A scrape while the shared store is unreachable: the spool's gauges cannot be read, and every
// other series is still served (an outage of the database is when an operator needs /metrics most).
import { expect, it } from 'vitest';
import { createMetrics } from '../../../src/observe/metrics.js';

it('serves every series when the spool figures cannot be read, the spool gauges keeping their last value', async () => {
  const m = createMetrics({ defaultMetrics: false });
  let reachable = true;
  m.setSources({
    spool: () =>
      reachable
        ? Promise.resolve({ records: 7, bytes: 70, oldestTsMicros: null })
        : Promise.reject(new Error('Connection terminated due to connection timeout')),
    sessionsByState: () => ({}),
    pendingRecords: () => 0,
  });
  m.eventsDelivered.inc(5);
  const value = async (name: string): Promise<number | undefined> =>
    (await m.registry.collect()).find((f) => f.name === name)?.samples[0]?.value;
  expect(await value('bridge_spool_records')).toBe(7);
  reachable = false;
  expect(await value('bridge_events_delivered_total')).toBe(5);
  expect(await value('bridge_spool_records')).toBe(7);
  expect(await value('bridge_delivery_paused')).toBe(0);
});
