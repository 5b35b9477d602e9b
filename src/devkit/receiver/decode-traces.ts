// Decoding an OTLP traces export request (POST /v1/traces body) into flat spans, the counterpart of
// decode.ts for logs: pure, bytes in, spans out, OtlpDecodeError on anything that is not a valid
// request. Both encodings end in the same walk (resource_spans → scope_spans → spans, flatten-request.ts).
import { keyValuesToObject } from './any-value.js';
import { idHex, type OtlpFormat } from './decode.js';
import { otlpSchema } from './otlp-schema.js';
import { flattenRequest, type ReceivedScope, type RequestShape } from './flatten-request.js';
import { OtlpDecodeError, asEnum, asList, asObject, asString, asUint64, field, type WireObject } from './otlp-value.js';

/** One span as the receiver got it, with its resource and scope flattened in. */
export interface ReceivedSpan {
  resource: Record<string, unknown>;
  scope: ReceivedScope;
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
  return flattenRequest(message, TRACES, toSpan);
}

const TRACES: RequestShape = {
  resources: { field: ['resourceSpans', 'resource_spans'], entry: 'ResourceSpans' },
  scopes: { field: ['scopeSpans', 'scope_spans'], entry: 'ScopeSpans' },
  items: { field: ['spans', 'spans'], entry: 'Span' },
};

function requiredId(v: unknown, what: string): string {
  const id = idHex(v, what);
  if (id === undefined) throw new OtlpDecodeError(`${what} is missing`);
  return id;
}

function toSpan(wire: WireObject, resource: Record<string, unknown>, scope: ReceivedScope): ReceivedSpan {
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
