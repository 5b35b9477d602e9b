// The record contract's invariant (docs/design.md "The log-record contract"): the original envelope can be rebuilt from the record,
// except for the documented redactions and normalizations (docs/mapping.md "Round trip"). Checked on
// generated envelopes of every type and cdp_command method, through the bytes the spool holds and
// the collector receives: the record encoder's protobuf, decoded as a collector would.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AttributeValue, BridgeLogRecord, JsonValue } from '../../../src/vocabulary/log-record.js';
import { createRecordEncoder } from '../../../src/wire/encode-record.js';
import { joinBody, createRequestBuilder } from '../../../src/wire/otlp-request.js';
import { splitRecords } from '../../../src/wire/segment-framing.js';
import { decodeProtobufLogsRequest } from '../../../src/devkit/receiver/decode.js';
import { otlpSchema } from '../../../src/devkit/receiver/otlp-schema.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import {
  defaultMappingOptions,
  MAX_MAX_RECORD_BYTES,
  type MappingOptions,
} from '../../../src/config/mapping-section.js';
import { rebuildEnvelope } from '../../helpers/rebuild-envelope.js';
import type { SessionContext } from '../../../src/vocabulary/log-record.js';
import { envelopes } from './arbitraries.js';

const RUNS = 600;
// Generated events are small; a high limit keeps the size limit (tested on its own) out of the way.
const base: MappingOptions = { ...defaultMappingOptions, maxRecordBytes: MAX_MAX_RECORD_BYTES };
const contexts = fc.record({
  sessionId: fc.string({ minLength: 1, maxLength: 12 }),
  attributes: fc.constantFrom(
    {},
    { 'browser.pool.id': 'p1', 'browser.pool.name': 'checkout', 'cloud.region': 'eu-west' },
  ),
  epoch: fc.constantFrom(0, 0, 1, 7),
}) as fc.Arbitrary<SessionContext>;

const encode = createRecordEncoder();
const requests = createRequestBuilder('http/protobuf', {
  resource: { 'service.name': 'round-trip' },
  scope: { name: 'browser-telemetry-bridge', version: '0' },
});
type RawRequest = { resourceLogs: Array<{ scopeLogs: Array<{ logRecords: Array<Record<string, unknown>> }> }> };

/**
 * As the spool keeps it and a collector reads it: the record encoder's bytes (one framed
 * `ScopeLogs.log_records` entry), sent in a request as delivery builds it, decoded by the receiver's
 * decoder (protobufjs over the .proto files in proto/), and turned back into a record.
 */
const spooled = (record: BridgeLogRecord | null): BridgeLogRecord => {
  if (record === null) throw new Error('filtered');
  const bytes = encode(record);
  expect(splitRecords(bytes)).toHaveLength(1);
  const request = joinBody(requests.build([bytes]));
  const decoded = decodeProtobufLogsRequest(request);
  expect(decoded).toHaveLength(1);
  const d = decoded[0]!;
  // The receiver reads an empty body (JSON null) and no body alike as null (OTLP does not tell them
  // apart); the bytes do: an empty AnyValue is present, an absent body is not.
  const raw = otlpSchema().exportLogsRequest.decode(request) as unknown as RawRequest;
  const hasBody = Object.hasOwn(raw.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!, 'body');
  return {
    tsMicros: micros(d.timeUnixNano),
    observedMicros: micros(d.observedTimeUnixNano),
    eventName: d.eventName,
    severityNumber: d.severityNumber,
    severityText: d.severityText,
    body: hasBody ? (d.body as JsonValue) : undefined,
    attributes: d.attributes as Record<string, AttributeValue>,
  };
};

/** Nanoseconds since the epoch (always whole microseconds here) back to microseconds. */
function micros(nanos: bigint): number {
  expect(nanos % 1000n).toBe(0n);
  return Number(nanos / 1000n);
}

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
        const mapped = mapper.map(g.envelope, ctx, 1);
        const record = spooled(mapped);
        expect(rebuildEnvelope(record)).toEqual(g.expected);
        // Secrets only ever sit where the oracle masks them, so none may remain anywhere, bytes included.
        expect(JSON.stringify(record)).not.toContain('SECRET');
        expect(encode(mapped!).includes('SECRET')).toBe(false);
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
        expect(r.attributes['log.record.uid']).toBe(
          ctx.epoch === 0 ? `${ctx.sessionId}:${seq}` : `${ctx.sessionId}:e${ctx.epoch}:${seq}`,
        );
        for (const [k, v] of Object.entries(ctx.attributes)) expect(r.attributes[k]).toBe(v);
      }),
      { numRuns: RUNS / 2 },
    );
  });
});
