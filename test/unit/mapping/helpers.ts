// Shared fixtures for the mapping tests.
import type { Envelope } from '../../../src/upstream/envelope.js';
import type { BridgeLogRecord, SessionContext } from '../../../src/vocabulary/log-record.js';
import { createMapper, type MapperDeps } from '../../../src/mapping/mapper.js';
import { defaultMappingOptions, type MappingOptions } from '../../../src/config/mapping-section.js';
import type { MappingCase } from './cases.js';

export const CTX: SessionContext = { sessionId: 's-1', attributes: { 'browser.pool.id': 'pool-1' }, epoch: 0 };
export const TS = 1_731_000_000_123_456;

/** A fake screenshot sink: no files, a predictable path. */
export const fakeSink = {
  write: (session: string, _epoch: number, seq: number): string => `/fake/${session}/${seq}.png`,
};

export function envelopeOf(type: string, category: string, data?: Record<string, unknown>, seq = 1): Envelope {
  const event: Envelope['event'] = { ts: TS, type, category, source: { kind: 'cdp', event: 'Some.event' } };
  if (data !== undefined) event.data = data;
  return { seq, event };
}

export function mapCase(k: MappingCase, deps: MapperDeps = {}): BridgeLogRecord {
  const options: MappingOptions = k.options === undefined ? defaultMappingOptions : k.options(defaultMappingOptions);
  const record = createMapper(options, { screenshots: fakeSink, ...deps }).map(
    envelopeOf(k.type, k.category, k.data),
    CTX,
    TS + 5,
  );
  if (record === null) throw new Error('unexpectedly filtered');
  return record;
}

/** Attributes every event record has (not "promoted"). */
export function isBaseAttribute(name: string): boolean {
  return (
    name.startsWith('browser.event.') ||
    name === 'browser.session.id' ||
    name === 'browser.telemetry.seq' ||
    name === 'log.record.uid' ||
    name === 'browser.pool.id'
  );
}
