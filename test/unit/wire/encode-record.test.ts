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

// A plain reference of the record's bytes (every message built from its parts, lengths counted
// after the fact): the writer's reservations and moves must never change a byte.
const vi = (n: number): Buffer => {
  const out: number[] = [];
  for (; n >= 0x80; n = Math.floor(n / 0x80)) out.push((n % 0x80) | 0x80);
  out.push(n);
  return Buffer.from(out);
};
const len = (field: number, content: Buffer): Buffer =>
  Buffer.concat([vi((field << 3) | 2), vi(content.length), content]);
const fixed64 = (field: number, n: bigint): Buffer => {
  const b = Buffer.alloc(9);
  b[0] = (field << 3) | 1;
  b.writeBigUInt64LE(n, 1);
  return b;
};
function plainValue(v: unknown): Buffer {
  if (typeof v === 'string') return len(1, Buffer.from(v));
  if (typeof v === 'boolean') return Buffer.from([0x10, v ? 1 : 0]);
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) {
      if (v >= 0) return Buffer.concat([Buffer.from([0x18]), vi(v)]);
      const b: number[] = [0x18];
      let x = BigInt.asUintN(64, BigInt(v));
      for (let i = 0; i < 9; i++, x >>= 7n) b.push(Number(x & 0x7fn) | 0x80);
      b.push(Number(x));
      return Buffer.from(b);
    }
    const b = Buffer.alloc(9);
    b[0] = 0x21;
    b.writeDoubleLE(v, 1);
    return b;
  }
  if (v === null) return Buffer.alloc(0);
  if (Array.isArray(v)) return len(5, Buffer.concat(v.map((x) => len(1, plainValue(x)))));
  return len(6, plainMembers(v as Record<string, unknown>));
}
const plainMembers = (o: Record<string, unknown>): Buffer =>
  Buffer.concat(Object.keys(o).map((k) => len(1, Buffer.concat([len(1, Buffer.from(k)), len(2, plainValue(o[k]))]))));
function plainRecord(r: BridgeLogRecord): Buffer {
  const parts = [fixed64(1, BigInt(r.tsMicros) * 1000n)];
  if (r.severityNumber !== 0) parts.push(Buffer.from([0x10]), vi(r.severityNumber));
  if (r.severityText !== '') parts.push(len(3, Buffer.from(r.severityText)));
  if (r.body !== undefined) parts.push(len(5, plainValue(r.body)));
  for (const k of Object.keys(r.attributes))
    parts.push(len(6, Buffer.concat([len(1, Buffer.from(k)), len(2, plainValue(r.attributes[k]))])));
  if (r.traceId !== undefined && r.spanId !== undefined)
    parts.push(
      Buffer.from([0x45, 1, 0, 0, 0]),
      len(9, Buffer.from(r.traceId, 'hex')),
      len(10, Buffer.from(r.spanId, 'hex')),
    );
  parts.push(fixed64(11, BigInt(r.observedMicros) * 1000n));
  if (r.eventName !== '') parts.push(len(12, Buffer.from(r.eventName)));
  return len(2, Buffer.concat(parts));
}

// Bodies and records either side of the one and two byte lengths the encoder reserves.
const sized = (n: number): Record<string, string> => ({ s: 'a'.repeat(n) });
const boundaryCases: Array<[string, Partial<BridgeLogRecord>]> = [
  ['a tiny object body', { body: { a: 1 } }],
  ['an empty object body', { body: {} }],
  ...[117, 118, 119, 120, 121, 122, 16_370, 16_371, 16_372, 16_373, 16_374, 16_375].map(
    (n): [string, Partial<BridgeLogRecord>] => [`an object body with a string of ${n}`, { body: sized(n) }],
  ),
  ['a minimal record', { body: undefined, attributes: {}, severityText: '', eventName: '' }],
  ['a record of about 16 KiB', { body: undefined, attributes: { big: 'z'.repeat(16_300) } }],
  ['an array body', { body: ['a'.repeat(200), 1] }],
  // Short string values beside a cached key are written as one KeyValue; a key past the cache's
  // 64 units takes the general path.
  [
    'short values beside keys of 64 and 65 units',
    {
      attributes: { ['k'.repeat(64)]: 'v'.repeat(40), ['q'.repeat(65)]: 'w'.repeat(40) },
      body: { ['m'.repeat(65)]: 'é' },
    },
  ],
  [
    'integers beside cached keys and past them, with negatives and doubles beside',
    {
      attributes: { n0: 0, n1: 128, big: Number.MAX_SAFE_INTEGER, neg: -1, half: 0.5, ['q'.repeat(65)]: 7 },
      body: { nav_seq: 1, nested: { node_id: 2 ** 40 }, list: [1, 2] },
    },
  ],
  [
    'short values whose KeyValue passes 127 bytes as UTF-8',
    { body: { ['k'.repeat(60)]: '€'.repeat(40), s: '😀\ud800' } },
  ],
  ['timestamps at zero and either side of 2^32 microseconds', { tsMicros: 0, observedMicros: 4_294_967_295 }],
  ['timestamps whose nanoseconds carry into the high word', { tsMicros: 4_294_967_297, observedMicros: 4_294_968 }],
];

describe('record encoder', () => {
  const encode = createRecordEncoder();

  for (const [name, over] of [...cases, ...boundaryCases]) {
    it(`${name}: the bytes of the plain reference`, () => {
      const r = { ...base, ...over };
      expect(encode(r)).toEqual(plainRecord(r));
    });
  }

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
