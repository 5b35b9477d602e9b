// Wires the mapper's counters (mapping/stats.ts) to the Prometheus metrics.
import type { MappingStats } from '../mapping/stats.js';
import { categoryLabel, type BridgeMetrics } from '../observe/metrics.js';

export function createMappingStats(metrics: BridgeMetrics): MappingStats {
  return {
    filtered: (_type, category) => metrics.eventsFiltered.inc({ category: categoryLabel(category) }),
    oversized: (_type, action) => metrics.oversized.inc({ action }),
    redacted: (_type, kind) => metrics.redacted.inc({ kind }),
    screenshotWritten: () => metrics.screenshots.inc({ outcome: 'written' }),
    screenshotFailed: () => metrics.screenshots.inc({ outcome: 'write_failed' }),
  };
}
