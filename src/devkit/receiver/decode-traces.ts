// Decoding an OTLP traces export request (POST /v1/traces body) into flat spans, the counterpart of
// decode.ts for logs: pure, bytes in, spans out, OtlpDecodeError on anything that is not a valid
// request. Both encodings end in the same walk (resource_spans → scope_spans → spans).
import { keyValuesToObject } from './any-value.js';
import { idHex, type OtlpFormat } from './decode.js';
import { otlpSchema } from './otlp-schema.js';
import {
  OtlpDecodeError,
  asEnum,
  asList,
  asObject,
  asString,
  asUint64,
  field,
  rethrowAt,
  type WireObject,
} from './otlp-value.js';

/** One span as the receiver got it, with its resource and scope flattened in. */
export interface ReceivedSpan {
  resource: Record<string, unknown>;
  scope: { name: string; version?: string };
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, unknown>;
  events: Array<{ timeUnixNano: bigint; name: string; attributes: Record<string, unknown> }>;
  links: Array<{ traceId: string; spanId: string; attributes: Record<string, unknown> }>;
  status: { code: number; message: string };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes a request body in the given encoding. */
export function decodeTracesRequest(body: Uint8Array, format: OtlpFormat): ReceivedSpan[] {
  let message: unknown;
  try {
    message =
      format === 'protobuf' ? otlpSchema().exportTraceRequest.decode(body) : (JSON.parse(utf8.decode(body)) as unknown);
  } catch (err) {
    throw new OtlpDecodeError(`invalid ${format} ExportTraceServiceRequest: ${(err as Error).message}`);
  }
  const spans: ReceivedSpan[] = [];
  const resourceSpans = asList(field(asObject(message, 'request'), 'resourceSpans', 'resource_spans'), 'resourceSpans');
  for (let i = 0; i < resourceSpans.length; i++) {
    try {
      appendResourceSpans(spans, asObject(resourceSpans[i], 'ResourceSpans'));
    } catch (err) {
      rethrowAt(err, `resourceSpans[${i}]`);
    }
  }
  return spans;
}

function appendResourceSpans(out: ReceivedSpan[], rs: WireObject): void {
  const resourceWire = field(rs, 'resource');
  const resource =
    resourceWire === undefined ? {} : keyValuesToObject(field(asObject(resourceWire, 'Resource'), 'attributes'));
  const scopeSpans = asList(field(rs, 'scopeSpans', 'scope_spans'), 'scopeSpans');
  for (let j = 0; j < scopeSpans.length; j++) {
    try {
      const ss = asObject(scopeSpans[j], 'ScopeSpans');
      const scopeWire = field(ss, 'scope');
      const scope: ReceivedSpan['scope'] = { name: '' };
      if (scopeWire !== undefined) {
        const so = asObject(scopeWire, 'scope');
        scope.name = asString(field(so, 'name'), 'scope.name');
        const version = asString(field(so, 'version'), 'scope.version');
        if (version !== '') scope.version = version;
      }
      const spans = asList(field(ss, 'spans'), 'spans');
      for (let k = 0; k < spans.length; k++) {
        try {
          out.push(toSpan(asObject(spans[k], 'Span'), resource, scope));
        } catch (err) {
          rethrowAt(err, `spans[${k}]`);
        }
      }
    } catch (err) {
      rethrowAt(err, `scopeSpans[${j}]`);
    }
  }
}

function requiredId(v: unknown, what: string): string {
  const id = idHex(v, what);
  if (id === undefined) throw new OtlpDecodeError(`${what} is missing`);
  return id;
}

function toSpan(wire: WireObject, resource: Record<string, unknown>, scope: ReceivedSpan['scope']): ReceivedSpan {
  const { spanKinds, statusCodes } = otlpSchema();
  const statusWire = field(wire, 'status');
  const status = { code: 0, message: '' };
  if (statusWire !== undefined && statusWire !== null) {
    const so = asObject(statusWire, 'status');
    status.code = asEnum(field(so, 'code'), statusCodes, 'status.code');
    status.message = asString(field(so, 'message'), 'status.message');
  }
  const span: ReceivedSpan = {
    resource,
    scope,
    traceId: requiredId(field(wire, 'traceId', 'trace_id'), 'traceId'),
    spanId: requiredId(field(wire, 'spanId', 'span_id'), 'spanId'),
    name: asString(field(wire, 'name'), 'name'),
    kind: asEnum(field(wire, 'kind'), spanKinds, 'kind'),
    startTimeUnixNano: asUint64(field(wire, 'startTimeUnixNano', 'start_time_unix_nano'), 'startTimeUnixNano'),
    endTimeUnixNano: asUint64(field(wire, 'endTimeUnixNano', 'end_time_unix_nano'), 'endTimeUnixNano'),
    attributes: keyValuesToObject(field(wire, 'attributes')),
    events: asList(field(wire, 'events') ?? [], 'events').map((e) => {
      const eo = asObject(e, 'event');
      return {
        timeUnixNano: asUint64(field(eo, 'timeUnixNano', 'time_unix_nano'), 'event.timeUnixNano'),
        name: asString(field(eo, 'name'), 'event.name'),
        attributes: keyValuesToObject(field(eo, 'attributes')),
      };
    }),
    links: asList(field(wire, 'links') ?? [], 'links').map((l) => {
      const lo = asObject(l, 'link');
      return {
        traceId: requiredId(field(lo, 'traceId', 'trace_id'), 'link.traceId'),
        spanId: requiredId(field(lo, 'spanId', 'span_id'), 'link.spanId'),
        attributes: keyValuesToObject(field(lo, 'attributes')),
      };
    }),
    status,
  };
  const parent = idHex(field(wire, 'parentSpanId', 'parent_span_id'), 'parentSpanId');
  if (parent !== undefined) span.parentSpanId = parent;
  return span;
}
