// The hand-written encoder against two references: the receiver's protobufjs decoder (what a
// collector reads) and the stock OpenTelemetry serializer.
import { ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { describe, expect, it } from 'vitest';
import { createRecordEncoder } from '../../../src/wire/encode-record.js';
import { joinBody, createRequestBuilder } from '../../../src/wire/otlp-request.js';
import { ProtoWriter } from '../../../src/wire/proto-writer.js';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';
import { decodeJsonLogsRequest, decodeProtobufLogsRequest } from '../../../src/devkit/receiver/decode.js';
import { splitRecords } from '../../../src/wire/segment-framing.js';

const resource = { 'service.name': 'bridge-test', 'service.instance.id': 'i-1' };
const scope = { name: 'browser-telemetry-bridge', version: '9.9.9' };

const base: BridgeLogRecord = {
  tsMicros: 1_731_000_000_123_456,
  observedMicros: 1_731_000_001_000_001,
  eventName: 'browser.console_log',
  severityNumber: 9,
  severityText: 'INFO',
  body: { text: 'hello', n: 3 },
  attributes: { 'browser.session.id': 's1', 'browser.telemetry.seq': 7 },
};

const long = 'x'.repeat(300) + 'é'.repeat(100);
const cases: Array<[string, Partial<BridgeLogRecord>]> = [
  ['plain record', {}],
  ['no body', { body: undefined }],
  ['string body', { body: 'telemetry gap: 3 events' }],
  [
    'nested map, arrays, null, bool, doubles, negatives',
    { body: { a: [1, 2.5, null, true, 'x'], b: { c: { d: -42, e: -1.5 } }, f: false } },
  ],
  [
    'unicode: multi-byte, astral, right at the short-string limit',
    {
      body: { s: '😀'.repeat(21), t: 'ü'.repeat(42), u: 'a'.repeat(43), k: long },
      attributes: { clé: 'välue', 'browser.session.id': 's1' },
    },
  ],
  [
    'long nested message (length varint of 2-3 bytes)',
    { body: { big: 'y'.repeat(70_000), list: Array.from({ length: 200 }, (_, i) => ({ i, s: `item-${i}` })) } },
  ],
  [
    'string values at the one-byte-lengths limit (40 units) and past it',
    {
      body: { a: 'a'.repeat(40), b: 'a'.repeat(41), e: '€'.repeat(40), f: '€'.repeat(41), g: '😀'.repeat(20) },
      attributes: { at: '€'.repeat(40), past: '€'.repeat(41), 'browser.session.id': 's1' },
    },
  ],
  [
    'long strings whose UTF-8 needs a wider length than their length does',
    { body: { two: 'é'.repeat(100), three: '€'.repeat(6000), astral: '😀'.repeat(40), mixed: 'a'.repeat(120) + 'é' } },
  ],
  ['a non-ASCII string larger than the writer has room for thrice', { body: { big: '€'.repeat(30_000) } }],
  ['empty containers and strings', { body: { a: [], m: {}, s: '' }, attributes: { empty: '' } }],
  ['attribute arrays', { attributes: { strs: ['a', 'b'], nums: [1, 2, 3], bools: [true, false] } }],
  ['pointing at its span', { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' }],
  ['severity 0 and empty text (unspecified)', { severityNumber: 0, severityText: '' }],
  [
    'large and unsafe numbers become doubles',
    { body: { big: 2 ** 60, max: Number.MAX_SAFE_INTEGER, min: -Number.MAX_SAFE_INTEGER } },
  ],
  [
    'timestamps near the top of the microsecond range',
    { tsMicros: 9_007_199_254_740_991, observedMicros: 4_294_967_296_000 },
  ],
];

describe('record encoder', () => {
  const encode = createRecordEncoder();
  const proto = createRequestBuilder('http/protobuf', { resource, scope });
  const json = createRequestBuilder('http/json', { resource, scope });

  for (const [name, over] of cases) {
    it(`${name}: decodes to the same record (protobuf and JSON)`, () => {
      const r = { ...base, ...over };
      const bytes = encode(r);
      expect(splitRecords(bytes)).toHaveLength(1);
      for (const decoded of [
        decodeProtobufLogsRequest(joinBody(proto.build([bytes]))),
        decodeJsonLogsRequest(joinBody(json.build([bytes]))),
      ]) {
        expect(decoded).toHaveLength(1);
        const d = decoded[0]!;
        expect(d.timeUnixNano).toBe(BigInt(r.tsMicros) * 1000n);
        expect(d.observedTimeUnixNano).toBe(BigInt(r.observedMicros) * 1000n);
        expect(d.severityNumber).toBe(r.severityNumber);
        expect(d.severityText).toBe(r.severityText);
        expect(d.eventName).toBe(r.eventName);
        expect(d.resource).toEqual(resource);
        expect(d.scope).toEqual(scope);
        expect(d.body).toEqual(r.body === undefined ? null : r.body);
        expect(d.attributes).toEqual(r.attributes);
        expect(d.traceId).toBe(r.traceId);
        expect(d.spanId).toBe(r.spanId);
      }
    });
  }

  it('a request of many segments carries every record in order', () => {
    const records = Array.from({ length: 50 }, (_, i) => encode({ ...base, attributes: { i } }));
    const segments = [
      Buffer.concat(records.slice(0, 20)),
      Buffer.concat(records.slice(20, 21)),
      Buffer.concat(records.slice(21)),
    ];
    const decoded = decodeProtobufLogsRequest(joinBody(proto.build(segments)));
    expect(decoded.map((d) => d.attributes.i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(decodeJsonLogsRequest(joinBody(json.build(segments))).map((d) => d.attributes.i)).toEqual(
      Array.from({ length: 50 }, (_, i) => i),
    );
  });

  it("decodes exactly like the stock serializer's request for the same record", () => {
    const r: BridgeLogRecord = {
      ...base,
      body: { text: 'héllo', list: [1, 'two', false], nested: { x: 1.25 } },
      attributes: { 'browser.session.id': 's1', n: -5, 'url.full': 'https://example.com/' + 'p'.repeat(200) },
    };
    const stock = ProtobufLogsSerializer.serializeRequest([
      {
        hrTime: [Math.floor(r.tsMicros / 1e6), (r.tsMicros % 1e6) * 1000],
        hrTimeObserved: [Math.floor(r.observedMicros / 1e6), (r.observedMicros % 1e6) * 1000],
        severityNumber: r.severityNumber,
        severityText: r.severityText,
        body: r.body as never,
        eventName: r.eventName,
        attributes: r.attributes as never,
        resource: resourceFromAttributes(resource),
        instrumentationScope: scope,
        droppedAttributesCount: 0,
      } as never,
    ])!;
    const ours = joinBody(proto.build([encode(r)]));
    // Not byte-identical only because the stock serializer also writes zero dropped-attribute counts.
    expect(decodeProtobufLogsRequest(ours)).toEqual(decodeProtobufLogsRequest(stock));
  });

  it('carries trace_id, span_id and flags exactly as the stock serializer does for a record in a span', () => {
    const r: BridgeLogRecord = { ...base, traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
    const stock = ProtobufLogsSerializer.serializeRequest([
      {
        hrTime: [Math.floor(r.tsMicros / 1e6), (r.tsMicros % 1e6) * 1000],
        hrTimeObserved: [Math.floor(r.observedMicros / 1e6), (r.observedMicros % 1e6) * 1000],
        severityNumber: r.severityNumber,
        severityText: r.severityText,
        body: r.body as never,
        eventName: r.eventName,
        attributes: r.attributes as never,
        spanContext: { traceId: r.traceId, spanId: r.spanId, traceFlags: 1 },
        resource: resourceFromAttributes(resource),
        instrumentationScope: scope,
        droppedAttributesCount: 0,
      } as never,
    ])!;
    const ours = decodeProtobufLogsRequest(joinBody(proto.build([encode(r)])));
    expect(ours).toEqual(decodeProtobufLogsRequest(stock));
    expect(ours[0]).toMatchObject({ traceId: r.traceId, spanId: r.spanId });
  });

  it('back-patches a length that needs more than one varint byte', () => {
    const w = new ProtoWriter(8);
    const at = w.begin(1);
    w.string(1, 'z'.repeat(200));
    w.end(at);
    const out = w.copy();
    expect(out[0]).toBe(0x0a);
    expect(out[1]).toBe((203 & 0x7f) | 0x80);
    expect(out[2]).toBe(203 >> 7);
    expect(out.length).toBe(3 + 203);
  });
});
