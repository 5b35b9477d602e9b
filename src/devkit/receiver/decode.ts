// Decoding an OTLP logs export request (POST /v1/logs body) into flat, normalized records.
// Pure functions: bytes in, records out, OtlpDecodeError on anything that is not a valid request.
// Both encodings end in the same walk (resource_logs → scope_logs → log_records, flatten-request.ts),
// see otlp-value.ts for how their scalar representations differ.
import { anyValueToJs, keyValuesToObject } from './any-value.js';
import { otlpSchema } from './otlp-schema.js';
import { flattenRequest, type ReceivedScope, type RequestShape } from './flatten-request.js';
import { OtlpDecodeError, asEnum, asString, asUint64, field, rethrowAt, type WireObject } from './otlp-value.js';

export { OtlpDecodeError } from './otlp-value.js';

/** One log record as the receiver got it, with its resource and scope flattened in. */
export interface ReceivedLogRecord {
  /** Resource attributes as plain JS (shared by all records of one ResourceLogs). */
  resource: Record<string, unknown>;
  scope: ReceivedScope;
  timeUnixNano: bigint;
  observedTimeUnixNano: bigint;
  severityNumber: number;
  severityText: string;
  eventName: string;
  /** AnyValue → JS (see any-value.ts); null for an empty AnyValue and for no body at all. */
  body: unknown;
  attributes: Record<string, unknown>;
  /** The span the record points at (lowercase hex), when it carries one. */
  traceId?: string;
  spanId?: string;
}

/** The two OTLP/HTTP encodings. */
export type OtlpFormat = 'protobuf' | 'json';

/** Decodes a request body in the given encoding. */
export function decodeLogsRequest(body: Uint8Array, format: OtlpFormat): ReceivedLogRecord[] {
  return format === 'protobuf' ? decodeProtobufLogsRequest(body) : decodeJsonLogsRequest(body);
}

/** Decodes a binary protobuf ExportLogsServiceRequest. */
export function decodeProtobufLogsRequest(body: Uint8Array): ReceivedLogRecord[] {
  let message: unknown;
  try {
    message = otlpSchema().exportLogsRequest.decode(body);
  } catch (err) {
    throw new OtlpDecodeError(`invalid protobuf ExportLogsServiceRequest: ${(err as Error).message}`);
  }
  return requestToRecords(message);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes an OTLP/JSON ExportLogsServiceRequest (UTF-8 bytes or text). */
export function decodeJsonLogsRequest(body: Uint8Array | string): ReceivedLogRecord[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof body === 'string' ? body : utf8.decode(body));
  } catch (err) {
    throw new OtlpDecodeError(`invalid JSON: ${(err as Error).message}`);
  }
  return requestToRecords(parsed);
}

/** Walks a decoded request (either encoding) and flattens it into records, in request order. */
export function requestToRecords(request: unknown): ReceivedLogRecord[] {
  const { severityNumbers } = otlpSchema();
  return flattenRequest(request, LOGS, (wire, resource, scope) => toRecord(wire, resource, scope, severityNumbers));
}

const LOGS: RequestShape = {
  resources: { field: ['resourceLogs', 'resource_logs'], entry: 'ResourceLogs' },
  scopes: { field: ['scopeLogs', 'scope_logs'], entry: 'ScopeLogs' },
  items: { field: ['logRecords', 'log_records'], entry: 'LogRecord' },
};

function toRecord(
  wire: WireObject,
  resource: Record<string, unknown>,
  scope: ReceivedScope,
  severityNumbers: Readonly<Record<string, number>>,
): ReceivedLogRecord {
  let body: unknown;
  let attributes: Record<string, unknown>;
  try {
    // No body and an empty one mean the same in OTLP, and the JSON exporter cannot tell them apart
    // (it sends {} for an undefined body): both become null so results do not depend on the protocol.
    body = anyValueToJs(field(wire, 'body'));
  } catch (err) {
    rethrowAt(err, 'body');
  }
  try {
    attributes = keyValuesToObject(field(wire, 'attributes'));
  } catch (err) {
    rethrowAt(err, 'attributes');
  }
  const record: ReceivedLogRecord = {
    resource,
    scope,
    timeUnixNano: asUint64(field(wire, 'timeUnixNano', 'time_unix_nano'), 'timeUnixNano'),
    observedTimeUnixNano: asUint64(
      field(wire, 'observedTimeUnixNano', 'observed_time_unix_nano'),
      'observedTimeUnixNano',
    ),
    severityNumber: asEnum(field(wire, 'severityNumber', 'severity_number'), severityNumbers, 'severityNumber'),
    severityText: asString(field(wire, 'severityText', 'severity_text'), 'severityText'),
    eventName: asString(field(wire, 'eventName', 'event_name'), 'eventName'),
    body,
    attributes,
  };
  const traceId = idHex(field(wire, 'traceId', 'trace_id'), 'traceId');
  const spanId = idHex(field(wire, 'spanId', 'span_id'), 'spanId');
  if (traceId !== undefined) record.traceId = traceId;
  if (spanId !== undefined) record.spanId = spanId;
  return record;
}

/** A trace or span id: bytes in protobuf, hex text in OTLP/JSON; empty means none. */
export function idHex(v: unknown, what: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (v instanceof Uint8Array) return v.length === 0 ? undefined : Buffer.from(v).toString('hex');
  if (typeof v === 'string') {
    if (v === '') return undefined;
    if (/^[0-9a-fA-F]+$/.test(v) && v.length % 2 === 0) return v.toLowerCase();
  }
  throw new OtlpDecodeError(`${what} is not a hex id`);
}
