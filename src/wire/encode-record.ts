// BridgeLogRecord → the bytes it travels as: an OTLP `LogRecord` in protobuf, framed as one
// `ScopeLogs.log_records` entry (tag 2, length, message). A request is then the resource and scope,
// encoded once, followed by the framed records as they were spooled: repeated fields concatenate
// in protobuf, so records are never decoded or encoded again (docs/design.md "Performance envelope").
//
// Numbers keep the stock exporter's choice: a safe integer is intValue, anything else doubleValue.
// Fields: LogRecord{1 time fixed64, 2 severity_number, 3 severity_text, 5 body, 6 attributes,
// 8 flags fixed32, 9 trace_id, 10 span_id, 11 observed_time fixed64, 12 event_name}; AnyValue{1 string, 2 bool, 3 int, 4 double, 5 array,
// 6 kvlist}; KeyValue{1 key, 2 value}.
import type { BridgeLogRecord, JsonValue } from '../vocabulary/log-record.js';
import { ProtoWriter, SHORT_VALUE, varintSize } from './proto-writer.js';

/** ScopeLogs.log_records: the tag every framed record starts with. */
export const RECORD_TAG = 0x12;

export type RecordEncoder = (record: BridgeLogRecord) => Buffer;

/**
 * Attribute and body keys repeat from record to record (`browser.session.id`, `url`, `frame_id`…):
 * each is encoded once, as its whole `KeyValue.key` field, and copied afterwards. Bounded, so keys
 * that never repeat (a map keyed by ids) cannot grow it; past the bound keys are encoded each time.
 */
const KEY_CACHE_MAX = 4096;
const keyCache = new Map<string, Buffer>();
const keyWriter = new ProtoWriter(256);

/** The key's encoded `KeyValue.key` field, cached; undefined for a key past the cache's bounds. */
function keyField(key: string): Buffer | undefined {
  let field = keyCache.get(key);
  if (field === undefined) {
    if (keyCache.size >= KEY_CACHE_MAX || key.length > 64) return undefined;
    keyWriter.reset();
    keyWriter.string(1, key);
    field = keyWriter.copyAlone();
    keyCache.set(key, field);
  }
  return field;
}

/** KeyValue{key, value} as field `field` (a record's attribute, a kvlist's member). */
function writeKeyValue(w: ProtoWriter, field: number, key: string, v: JsonValue): void {
  if (typeof v === 'string' && v.length <= SHORT_VALUE) {
    const cached = keyField(key);
    if (cached !== undefined) {
      w.keyStringValue(field, cached, v);
      return;
    }
  } else if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) {
    const cached = keyField(key);
    if (cached !== undefined) {
      w.keyUintValue(field, cached, v);
      return;
    }
  }
  const width = kvWidth(key, v);
  const kv = w.begin(field, width);
  const cached = keyField(key);
  if (cached === undefined) w.string(1, key);
  else w.raw(cached);
  writeAnyValue(w, 2, v);
  w.end(kv, width);
}

/** An encoder with its own scratch buffer; the returned bytes are a fresh copy. */
export function createRecordEncoder(): RecordEncoder {
  const w = new ProtoWriter();
  return (record) => {
    w.reset();
    writeFramedRecord(w, record);
    return w.copy();
  };
}

export function writeFramedRecord(w: ProtoWriter, r: BridgeLogRecord): void {
  // Records are 128 bytes and more (the attributes every record carries alone are), rarely 16 KiB.
  const at = w.begin(2, 2);
  w.fixed64NanosFromMicros(1, r.tsMicros);
  if (r.severityNumber !== 0) w.uintField(2, r.severityNumber);
  if (r.severityText !== '') w.string(3, r.severityText);
  if (r.body !== undefined) writeBody(w, r.body);
  const attrs = r.attributes;
  for (const key in attrs) writeKeyValue(w, 6, key, attrs[key]!);
  if (r.traceId !== undefined && r.spanId !== undefined) {
    // W3C trace flags: sampled. The bridge samples nothing away: every span it builds is sent.
    w.fixed32(8, 1);
    w.hexBytes(9, r.traceId);
    w.hexBytes(10, r.spanId);
  }
  w.fixed64NanosFromMicros(11, r.observedMicros);
  if (r.eventName !== '') w.string(12, r.eventName);
  w.end(at, 2);
}

/**
 * LogRecord.body: writeAnyValue's bytes, with two length bytes reserved for an object's AnyValue
 * and kvlist: most bodies are 128 bytes or more (87 % in the heavy mix), and a reservation of one
 * moved the whole body twice.
 */
function writeBody(w: ProtoWriter, body: JsonValue): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    writeAnyValue(w, 5, body);
    return;
  }
  const at = w.begin(5, 2);
  const list = w.begin(6, 2);
  writeMembers(w, body);
  w.end(list, 2);
  w.end(at, 2);
}

/** The KeyValues of a kvlist, one per member. */
function writeMembers(w: ProtoWriter, obj: { [key: string]: JsonValue }): void {
  for (const key in obj) writeKeyValue(w, 1, key, obj[key] as JsonValue);
}

/** Past this many UTF-16 units a string value makes its KeyValue 128 bytes or more. */
const LONG_VALUE = 120;

/**
 * The length bytes to reserve for a KeyValue: as many as its length needs when the value is an
 * ASCII string (a long console text, a screenshot), else one.
 */
function kvWidth(key: string, v: JsonValue): number {
  return typeof v === 'string' && v.length > LONG_VALUE ? varintSize(key.length + v.length + 8) : 1;
}

/** AnyValue for a JSON value; null is an empty AnyValue, as the stock exporter sends it. */
export function writeAnyValue(w: ProtoWriter, field: number, v: JsonValue): void {
  if (typeof v === 'string') {
    w.anyString(field, v);
    return;
  }
  const at = w.begin(field);
  switch (typeof v) {
    case 'boolean':
      w.boolField(2, v);
      break;
    case 'number':
      if (Number.isSafeInteger(v)) w.int64Field(3, v);
      else w.double(4, v);
      break;
    case 'object':
      if (v === null) break;
      if (Array.isArray(v)) {
        const arr = w.begin(5);
        for (let i = 0; i < v.length; i++) writeAnyValue(w, 1, v[i] as JsonValue);
        w.end(arr);
      } else {
        const list = w.begin(6);
        writeMembers(w, v);
        w.end(list);
      }
      break;
    default:
      break;
  }
  w.end(at);
}

/** KeyValue list of string attributes (Resource.attributes, field 1), for the resource encoded once. */
export function encodeResource(attributes: Record<string, string>): Buffer {
  const w = new ProtoWriter(1024);
  for (const key of Object.keys(attributes)) {
    const kv = w.begin(1);
    w.string(1, key);
    writeAnyValue(w, 2, attributes[key]!);
    w.end(kv);
  }
  return w.copy();
}

/** InstrumentationScope{1 name, 2 version}, encoded once. */
export function encodeScope(name: string, version: string): Buffer {
  const w = new ProtoWriter(256);
  w.string(1, name);
  w.string(2, version);
  return w.copy();
}
