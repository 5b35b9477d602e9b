// The mapper's counters reach Prometheus: a masked header shows in bridge_records_redacted_total.
import { describe, expect, it } from 'vitest';
import { createMapper } from '../../../src/mapping/mapper.js';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { createMappingStats } from '../../../src/session/mapping-stats.js';
import { createMetrics } from '../../../src/observe/metrics.js';

describe('mapping stats', () => {
  it('counts events whose values redaction masked, by kind', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const mapper = createMapper(defaultMappingOptions, { stats: createMappingStats(metrics) });
    const ctx = { sessionId: 's', attributes: {}, epoch: 0 };
    mapper.map({
      seq: 1,
      event: {
        ts: 1, type: 'network_request', category: 'network', source: { kind: 'cdp' },
        data: { method: 'GET', url: 'https://user:pw@example.com/x?sig=abc', headers: { authorization: 'Bearer secret' } },
      },
    }, ctx, 1);
    const text = await metrics.registry.getSingleMetricAsString('bridge_records_redacted_total');
    expect(text).toMatch(/kind="header"\} 1/);
    expect(text).toMatch(/kind="url"\} 1/);
    expect(text).toMatch(/kind="typed_key"\} 0/);
  });
});
