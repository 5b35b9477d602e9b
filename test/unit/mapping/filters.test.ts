// Filters (docs/mapping.md "Filters"): include/exclude by category and type; filtered events are
// produce no record (the session reports them as filtered: test/unit/session/session-pipeline.test.ts).
import { describe, expect, it } from 'vitest';
import { createMapper } from '../../../src/mapping/mapper.js';
import { defaultMappingOptions, parseMappingOptions } from '../../../src/config/mapping-section.js';
import { CTX, envelopeOf } from './helpers.js';

function run(filters: Record<string, string[]>, events: Array<[string, string]>) {
  const filtered: string[] = [];
  const mapper = createMapper(parseMappingOptions({ filters }, 'mapping'));
  const kept = events
    .filter(([type, category]) => {
      const record = mapper.map(envelopeOf(type, category, {}), CTX, 1);
      if (record === null) filtered.push(`${type}/${category}`);
      return record !== null;
    })
    .map(([t]) => t);
  return { kept, filtered };
}

const EVENTS: Array<[string, string]> = [
  ['console_log', 'console'],
  ['network_request', 'network'],
  ['network_idle', 'network'],
  ['monitor_disconnected', 'system'],
  ['monitor_screenshot', 'screenshot'],
  ['future_thing', 'platform'],
];

describe('filters', () => {
  it('none configured: everything passes', () => {
    expect(run({}, EVENTS).kept).toHaveLength(EVENTS.length);
    const mapper = createMapper(defaultMappingOptions);
    expect(mapper.map(envelopeOf('x', 'y', {}), CTX, 1)).not.toBeNull();
  });

  it('exclude a category, and count what was filtered', () => {
    const { kept, filtered } = run({ exclude_categories: ['screenshot'] }, EVENTS);
    expect(kept).not.toContain('monitor_screenshot');
    expect(filtered).toEqual(['monitor_screenshot/screenshot']);
  });

  it('include categories OR types, then exclude wins', () => {
    const { kept } = run(
      { include_categories: ['network'], include_types: ['console_log'], exclude_types: ['network_idle'] },
      EVENTS,
    );
    expect(kept).toEqual(['console_log', 'network_request']);
  });

  it('`monitor` matches monitor events sent under `system`', () => {
    expect(run({ exclude_categories: ['monitor'] }, EVENTS).kept).not.toContain('monitor_disconnected');
    expect(run({ include_categories: ['system'] }, EVENTS).kept).toEqual(['monitor_disconnected']);
  });

  it('unknown types are filtered by the category they are sent with', () => {
    expect(run({ include_categories: ['platform'] }, EVENTS).kept).toEqual(['future_thing']);
  });

  it('empty lists count as unset', () => {
    expect(run({ include_types: [] }, EVENTS).kept).toHaveLength(EVENTS.length);
  });
});
