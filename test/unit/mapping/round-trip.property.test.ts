// The record contract's invariant (docs/design.md "The log-record contract"): the original envelope can be rebuilt from the record,
// except for the documented redactions and normalizations (docs/mapping.md "Round trip"). Checked on
// generated envelopes of every type and cdp_command method, through the spool's JSON form.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import { defaultMappingOptions, MAX_MAX_RECORD_BYTES, type MappingOptions } from '../../../src/config/mapping-section.js';
import { rebuildEnvelope } from '../../helpers/rebuild-envelope.js';
import type { SessionContext } from '../../../src/vocabulary/log-record.js';
import { envelopes } from './arbitraries.js';

const RUNS = 600;
// Generated events are small; a high limit keeps the size limit (tested on its own) out of the way.
const base: MappingOptions = { ...defaultMappingOptions, maxRecordBytes: MAX_MAX_RECORD_BYTES };
const contexts = fc.record({
  sessionId: fc.string({ minLength: 1, maxLength: 12 }),
  attributes: fc.constantFrom({}, { 'browser.pool.id': 'p1', 'browser.pool.name': 'checkout', 'cloud.region': 'eu-west' }),
  epoch: fc.constantFrom(0, 0, 1, 7),
}) as fc.Arbitrary<SessionContext>;

/** As the spool keeps it: JSON text, read back. */
const spooled = (record: BridgeLogRecord | null): BridgeLogRecord => {
  if (record === null) throw new Error('filtered');
  return JSON.parse(JSON.stringify(record)) as BridgeLogRecord;
};

describe('rebuildEnvelope(map(envelope))', () => {
  it('equals the original with redaction off (modulo y and truncated:false), map body', () => {
    const mapper = createMapper({ ...base, redaction: { ...base.redaction, enabled: false } });
    fc.assert(
      fc.property(envelopes, contexts, (g, ctx) => {
        const before = JSON.stringify(g.envelope);
        const record = spooled(mapper.map(g.envelope, ctx, 1));
        expect(rebuildEnvelope(record)).toEqual(g.unredacted);
        expect(JSON.stringify(g.envelope)).toBe(before); // the envelope is never modified
      }),
      { numRuns: RUNS },
    );
  });

  it('equals the original modulo the documented masks under default redaction, and no secret leaks', () => {
    const mapper = createMapper(base);
    fc.assert(
      fc.property(envelopes, contexts, (g, ctx) => {
        const record = spooled(mapper.map(g.envelope, ctx, 1));
        expect(rebuildEnvelope(record)).toEqual(g.expected);
        // Secrets only ever sit where the oracle masks them, so none may remain anywhere.
        expect(JSON.stringify(record)).not.toContain('SECRET');
      }),
      { numRuns: RUNS },
    );
  });

  it('holds for the json body format too', () => {
    const mapper = createMapper({ ...base, bodyFormat: 'json' });
    fc.assert(
      fc.property(envelopes, contexts, (g, ctx) => {
        const record = spooled(mapper.map(g.envelope, ctx, 1));
        expect(record.body === undefined || typeof record.body === 'string').toBe(true);
        expect(rebuildEnvelope(record)).toEqual(g.expected);
      }),
      { numRuns: RUNS / 2 },
    );
  });

  it('keeps the contract attributes on every record', () => {
    const mapper = createMapper(base);
    fc.assert(
      fc.property(envelopes, contexts, (g, ctx) => {
        const r = spooled(mapper.map(g.envelope, ctx, 1));
        const { seq, event } = g.envelope;
        expect(r.eventName).toBe(`browser.${event.type}`);
        expect(r.tsMicros).toBe(event.ts);
        expect(r.severityText).toMatch(/^(TRACE|DEBUG|INFO|WARN|ERROR|FATAL)$/);
        expect(r.attributes['browser.session.id']).toBe(ctx.sessionId);
        expect(r.attributes['browser.telemetry.seq']).toBe(seq);
        expect(r.attributes['log.record.uid']).toBe(ctx.epoch === 0 ? `${ctx.sessionId}:${seq}` : `${ctx.sessionId}:e${ctx.epoch}:${seq}`);
        for (const [k, v] of Object.entries(ctx.attributes)) expect(r.attributes[k]).toBe(v);
      }),
      { numRuns: RUNS / 2 },
    );
  });
});
