// Just enough of an OTLP logs request to time and count its records, for the benchmark's sink:
// ExportLogsServiceRequest → resource_logs(1) → scope_logs(2) → log_records(2) → time_unix_nano(1,
// fixed64) and the `log.record.uid` attribute (attributes(6) → KeyValue{key(1), value(2) →
// AnyValue.string_value(1)}). Everything else is skipped by wire type without being decoded: a full
// decode (protobufjs, the receiver) would cost the sink more CPU than the bridge spends encoding,
// and at 20k records/s the sink would measure itself.
//
// time_unix_nano comes back as a double (lo + hi·2^32): exact to ~256 ns at today's epoch, plenty
// for latency, and no BigInt per record.

/** Called once per log record; uid is undefined when the record has no string `log.record.uid`. */
export type RecordVisitor = (timeUnixNano: number, uid: string | undefined) => void;

export class OtlpWalkError extends Error {}

const UID_KEY = Buffer.from('log.record.uid');
const TWO_32 = 4294967296;

// The varint just read; module-level so the hot loop allocates nothing.
let value = 0;

function varint(buf: Buffer, pos: number): number {
  let result = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    const b = buf[pos++];
    if (b === undefined) throw new OtlpWalkError('truncated varint');
    result += (b & 0x7f) * scale;
    if (b < 0x80) {
      value = result;
      return pos;
    }
    scale *= 128;
  }
  throw new OtlpWalkError('varint longer than 10 bytes');
}

/** Position after the field value of wire type `wt` starting at `pos`; `end` bounds it. */
function skip(buf: Buffer, pos: number, wt: number, end: number): number {
  let next: number;
  if (wt === 0) next = varint(buf, pos);
  else if (wt === 1) next = pos + 8;
  else if (wt === 5) next = pos + 4;
  else if (wt === 2) {
    pos = varint(buf, pos);
    next = pos + value;
  } else throw new OtlpWalkError(`unsupported wire type ${wt}`);
  if (next > end) throw new OtlpWalkError('field runs past the end of its message');
  return next;
}

/**
 * Calls `onMessage(start, end)` for every length-delimited field `wanted` of the message in
 * [pos, end); skips every other field.
 */
function eachField(
  buf: Buffer,
  pos: number,
  end: number,
  wanted: number,
  onMessage: (start: number, end: number) => void,
): void {
  while (pos < end) {
    pos = varint(buf, pos);
    const tag = value;
    const wt = tag & 7;
    if (tag >>> 3 === wanted && wt === 2) {
      pos = varint(buf, pos);
      const stop = pos + value;
      if (stop > end) throw new OtlpWalkError('field runs past the end of its message');
      onMessage(pos, stop);
      pos = stop;
    } else pos = skip(buf, pos, wt, end);
  }
}

/** The string_value of an AnyValue in [pos, end), or undefined. */
function anyString(buf: Buffer, pos: number, end: number): string | undefined {
  let out: string | undefined;
  eachField(buf, pos, end, 1, (s, e) => (out = buf.toString('utf8', s, e)));
  return out;
}

function isUidKey(buf: Buffer, start: number, end: number): boolean {
  return end - start === UID_KEY.length && buf.compare(UID_KEY, 0, UID_KEY.length, start, end) === 0;
}

/** The uid if the KeyValue in [pos, end) is `log.record.uid` with a string value. */
function uidOf(buf: Buffer, pos: number, end: number): string | undefined {
  let keyMatches = false;
  let valueStart = -1;
  let valueEnd = -1;
  while (pos < end) {
    pos = varint(buf, pos);
    const tag = value;
    if (tag === 0x0a || tag === 0x12) {
      pos = varint(buf, pos);
      const stop = pos + value;
      if (stop > end) throw new OtlpWalkError('field runs past the end of its message');
      if (tag === 0x0a) keyMatches = isUidKey(buf, pos, stop);
      else {
        valueStart = pos;
        valueEnd = stop;
      }
      pos = stop;
    } else pos = skip(buf, pos, tag & 7, end);
  }
  return keyMatches && valueStart >= 0 ? anyString(buf, valueStart, valueEnd) : undefined;
}

function logRecord(buf: Buffer, pos: number, end: number, visit: RecordVisitor): void {
  let time = 0;
  let uid: string | undefined;
  while (pos < end) {
    pos = varint(buf, pos);
    const tag = value;
    if (tag === 0x09) {
      // time_unix_nano, fixed64 little-endian
      if (pos + 8 > end) throw new OtlpWalkError('truncated time_unix_nano');
      time = buf.readUInt32LE(pos) + buf.readUInt32LE(pos + 4) * TWO_32;
      pos += 8;
    } else if (tag === 0x32) {
      // attributes: only the uid is of interest, the first one wins
      pos = varint(buf, pos);
      const stop = pos + value;
      if (stop > end) throw new OtlpWalkError('field runs past the end of its message');
      if (uid === undefined) uid = uidOf(buf, pos, stop);
      pos = stop;
    } else pos = skip(buf, pos, tag & 7, end);
  }
  visit(time, uid);
}

/** Walks a protobuf ExportLogsServiceRequest; returns the number of log records. */
export function walkProtobufRequest(buf: Buffer, visit: RecordVisitor): number {
  let records = 0;
  const onRecord = (s: number, e: number): void => {
    records++;
    logRecord(buf, s, e, visit);
  };
  const onScope = (s: number, e: number): void => eachField(buf, s, e, 2, onRecord);
  const onResource = (s: number, e: number): void => eachField(buf, s, e, 2, onScope);
  eachField(buf, 0, buf.length, 1, onResource);
  return records;
}

interface JsonKeyValue {
  key?: unknown;
  value?: { stringValue?: unknown };
}

/** Walks an OTLP/JSON ExportLogsServiceRequest (already parsed); returns the number of log records. */
export function walkJsonRequest(body: unknown, visit: RecordVisitor): number {
  let records = 0;
  const list = (o: unknown, key: string): unknown[] => {
    const v = o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined;
    return Array.isArray(v) ? v : [];
  };
  for (const rl of list(body, 'resourceLogs')) {
    for (const sl of list(rl, 'scopeLogs')) {
      for (const lr of list(sl, 'logRecords')) {
        records++;
        const t = (lr as { timeUnixNano?: unknown }).timeUnixNano;
        let uid: string | undefined;
        for (const kv of list(lr, 'attributes') as JsonKeyValue[]) {
          if (kv?.key === 'log.record.uid' && typeof kv.value?.stringValue === 'string') {
            uid = kv.value.stringValue;
            break;
          }
        }
        visit(typeof t === 'string' || typeof t === 'number' ? Number(t) : 0, uid);
      }
    }
  }
  return records;
}
