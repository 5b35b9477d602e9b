// The span encoder against two references: the receiver's decoder (protobufjs on the .proto files,
// and OTLP/JSON) and the stock OpenTelemetry trace serializers for the same span.
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { describe, expect, it } from 'vitest';
import { decodeTracesRequest } from '../../../src/devkit/receiver/decode-traces.js';
import { createSpanEncoder } from '../../../src/wire/encode-span.js';
import { joinBody, createRequestBuilder } from '../../../src/wire/otlp-request.js';
import type { BridgeSpan } from '../../../src/vocabulary/span.js';

const resource = { 'service.name': 'bridge-test' };
const scope = { name: 'browser-telemetry-bridge', version: '9.9.9' };

const request: BridgeSpan = {
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
  parentSpanId: 'b7ad6b7169203331',
  name: 'GET',
  kind: 3,
  startMicros: 1_764_000_000_123_456,
  endMicros: 1_764_000_000_323_457,
  attributes: { 'http.request.method': 'GET', 'http.response.status_code': 404, 'url.full': 'https://é.example/' },
  events: [],
  links: [],
  status: { code: 2 },
};
const navigation: BridgeSpan = {
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: 'b7ad6b7169203331',
  name: 'https://shop.example.com/cart',
  kind: 1,
  startMicros: 1_764_000_000_000_000,
  endMicros: 1_764_000_000_400_000,
  attributes: { 'browser.web_vital.cls.value': 0.09, 'browser.span.incomplete': true },
  events: [
    { name: 'exception', tsMicros: 1_764_000_000_250_000, attributes: { 'exception.type': 'TypeError' } },
    { name: 'browser.page.load', tsMicros: 1_764_000_000_400_000, attributes: {} },
  ],
  links: [{ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '1111111111111111', attributes: { k: 'v' } }],
  status: { code: 2, message: 'page crashed' },
};

const hr = (us: number): [number, number] => [Math.floor(us / 1e6), (us % 1e6) * 1000];

/** The same span as the SDK's ReadableSpan, for the stock serializers. */
function readable(s: BridgeSpan): never {
  return {
    name: s.name,
    kind: s.kind - 1,
    spanContext: () => ({ traceId: s.traceId, spanId: s.spanId, traceFlags: 1 }),
    parentSpanContext:
      s.parentSpanId === undefined ? undefined : { traceId: s.traceId, spanId: s.parentSpanId, traceFlags: 1 },
    startTime: hr(s.startMicros),
    endTime: hr(s.endMicros),
    status: s.status,
    attributes: s.attributes,
    links: s.links.map((l) => ({
      context: { traceId: l.traceId, spanId: l.spanId, traceFlags: 1 },
      attributes: l.attributes,
    })),
    events: s.events.map((e) => ({ name: e.name, attributes: e.attributes, time: hr(e.tsMicros) })),
    duration: hr(s.endMicros - s.startMicros),
    ended: true,
    resource: resourceFromAttributes(resource),
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  } as never;
}

describe('span encoder', () => {
  const encode = createSpanEncoder();
  const payload = Buffer.concat([encode(navigation), encode(request)]);

  it('protobuf: decodes exactly like the stock serializer’s request for the same spans', () => {
    const ours = joinBody(createRequestBuilder('http/protobuf', { resource, scope }, 'traces').build([payload]));
    const stock = ProtobufTraceSerializer.serializeRequest([readable(navigation), readable(request)])!;
    expect(decodeTracesRequest(ours, 'protobuf')).toEqual(decodeTracesRequest(stock, 'protobuf'));
  });

  it('http/json: decodes exactly like the stock JSON serializer’s request', () => {
    const ours = joinBody(createRequestBuilder('http/json', { resource, scope }, 'traces').build([payload]));
    const stock = JsonTraceSerializer.serializeRequest([readable(navigation), readable(request)])!;
    expect(decodeTracesRequest(ours, 'json')).toEqual(decodeTracesRequest(stock, 'json'));
  });

  it('keeps every field a trace backend draws', () => {
    const ours = joinBody(createRequestBuilder('http/json', { resource, scope }, 'traces').build([payload]));
    const [nav, req] = decodeTracesRequest(ours, 'json');
    expect(req).toMatchObject({
      traceId: request.traceId,
      spanId: request.spanId,
      parentSpanId: request.parentSpanId,
      kind: 3,
      startTimeUnixNano: 1_764_000_000_123_456_000n,
      status: { code: 2, message: '' },
      attributes: request.attributes,
      resource,
      scope,
    });
    expect(nav!.parentSpanId).toBeUndefined();
    expect(nav!.events.map((e) => e.name)).toEqual(['exception', 'browser.page.load']);
    expect(nav!.links).toEqual([{ ...navigation.links[0], attributes: { k: 'v' } }]);
  });
});
