// Problems in a valid configuration that deserve a word but not a refusal: event types this bridge
// does not know (maybe newer than it, maybe a typo), a collector port that belongs to the other OTLP
// protocol. `run` logs them at start, `check` and `validate` print them. Pure.
import type { BridgeConfig } from './schema.js';
import { typeWarnings } from './event-names.js';
import { exporterWarnings } from './exporter-warnings.js';

export function configWarnings(config: BridgeConfig): string[] {
  const f = config.mapping.filters;
  return [
    ...typeWarnings(f.includeTypes ?? [], 'mapping.filters.include_types'),
    ...typeWarnings(f.excludeTypes ?? [], 'mapping.filters.exclude_types'),
    ...exporterWarnings(config.exporter),
  ];
}
