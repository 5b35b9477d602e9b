// Framed protobuf LogRecords (as spooled) → OTLP/JSON LogRecord objects as text, for the http/json
// protocol. The spool holds one canonical encoding (protobuf) whatever the protocol, so a protocol
// change between two runs needs no migration; JSON is the rarer choice and pays this transcoding.
// Only what encode-record.ts writes needs to be understood; anything else is a damaged record.

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

/** A bounded protobuf reader over one message of a framed payload (span-json.ts reads spans with it). */
export class Reader {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }

  varint(): number {
    let value = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new Error('damaged record: varint runs past the end');
      const b = this.buf[this.pos++]!;
      value += (b & 0x7f) * mul;
      if (b < 0x80) return value;
      mul *= 0x80;
    }
    throw new Error('damaged record: varint too long');
  }

  /** int64 varint: a 10-byte value is a negative number in two's complement. */
  int64(): string {
    const start = this.pos;
    const v = this.varint();
    if (this.pos - start < 10) return String(v);
    let x = 0n;
    for (let i = this.pos - 1; i >= start; i--) x = (x << 7n) | BigInt(this.buf[i]! & 0x7f);
    return String(BigInt.asIntN(64, x));
  }

  fixed64(): string {
    if (this.pos + 8 > this.end) throw new Error('damaged record: fixed64 runs past the end');
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return String(v);
  }

  double(): number {
    if (this.pos + 8 > this.end) throw new Error('damaged record: double runs past the end');
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  /** Start and end of a length-delimited field's content. */
  len(): [number, number] {
    const n = this.varint();
    const start = this.pos;
    if (start + n > this.end) throw new Error('damaged record: field runs past the end');
    this.pos = start + n;
    return [start, start + n];
  }

  fixed32(): number {
    if (this.pos + 4 > this.end) throw new Error('damaged record: fixed32 runs past the end');
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  hex(): string {
    const [s, e] = this.len();
    return this.buf.toString('hex', s, e);
  }

  string(): string {
    const [s, e] = this.len();
    return this.buf.toString('utf8', s, e);
  }

  skip(wire: number): void {
    if (wire === WIRE_VARINT) this.varint();
    else if (wire === WIRE_FIXED64) this.pos += 8;
    else if (wire === WIRE_LEN) this.len();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`damaged record: wire type ${wire}`);
  }
}

/** Appends the OTLP/JSON text of every framed record in `payload` to `out`. */
export function recordToJson(payload: Buffer, out: string[]): void {
  const r = new Reader(payload, 0, payload.length);
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag !== 0x12) throw new Error('damaged spool payload: not a framed record');
    const [s, e] = r.len();
    out.push(logRecordJson(new Reader(payload, s, e)));
  }
}

function logRecordJson(r: Reader): string {
  let time = '0';
  let observed = '0';
  let severityNumber = 0;
  let severityText = '';
  let body: string | undefined;
  let eventName = '';
  const attributes: string[] = [];
  let ids = '';
  while (r.pos < r.end) {
    const tag = r.varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (field === 1 && wire === WIRE_FIXED64) time = r.fixed64();
    else if (field === 11 && wire === WIRE_FIXED64) observed = r.fixed64();
    else if (field === 2 && wire === WIRE_VARINT) severityNumber = r.varint();
    else if (field === 3 && wire === WIRE_LEN) severityText = r.string();
    else if (field === 12 && wire === WIRE_LEN) eventName = r.string();
    else if (field === 5 && wire === WIRE_LEN) body = anyValueJson(r, ...r.len());
    else if (field === 6 && wire === WIRE_LEN) attributes.push(keyValueJson(r, ...r.len()));
    else if (field === 8 && wire === WIRE_FIXED32) ids += `,"flags":${r.fixed32()}`;
    // OTLP/JSON spells trace and span ids as hex, not base64 like other bytes fields.
    else if (field === 9 && wire === WIRE_LEN) ids += `,"traceId":"${r.hex()}"`;
    else if (field === 10 && wire === WIRE_LEN) ids += `,"spanId":"${r.hex()}"`;
    else r.skip(wire);
  }
  return `{"timeUnixNano":"${time}","observedTimeUnixNano":"${observed}","severityNumber":${severityNumber},"severityText":${JSON.stringify(severityText)}${
    body === undefined ? '' : `,"body":${body}`
  },"eventName":${JSON.stringify(eventName)},"attributes":[${attributes.join(',')}],"droppedAttributesCount":0${ids}}`;
}

export function keyValueJson(parent: Reader, start: number, end: number): string {
  const r = new Reader(parent.buf, start, end);
  let key = '';
  let value = '{}';
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === 0x0a) key = r.string();
    else if (tag === 0x12) value = anyValueJson(r, ...r.len());
    else r.skip(tag & 7);
  }
  return `{"key":${JSON.stringify(key)},"value":${value}}`;
}

function anyValueJson(parent: Reader, start: number, end: number): string {
  const r = new Reader(parent.buf, start, end);
  let out = '{}';
  while (r.pos < r.end) {
    const tag = r.varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (field === 1 && wire === WIRE_LEN) out = `{"stringValue":${JSON.stringify(r.string())}}`;
    else if (field === 2 && wire === WIRE_VARINT) out = `{"boolValue":${r.varint() !== 0}}`;
    else if (field === 3 && wire === WIRE_VARINT) out = `{"intValue":${r.int64()}}`;
    else if (field === 4 && wire === WIRE_FIXED64) out = `{"doubleValue":${JSON.stringify(r.double())}}`;
    else if (field === 5 && wire === WIRE_LEN)
      out = `{"arrayValue":{"values":[${listJson(r, ...r.len(), anyValueJson)}]}}`;
    else if (field === 6 && wire === WIRE_LEN)
      out = `{"kvlistValue":{"values":[${listJson(r, ...r.len(), keyValueJson)}]}}`;
    else r.skip(wire);
  }
  return out;
}

function listJson(
  parent: Reader,
  start: number,
  end: number,
  item: (r: Reader, s: number, e: number) => string,
): string {
  const r = new Reader(parent.buf, start, end);
  const items: string[] = [];
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === 0x0a) items.push(item(r, ...r.len()));
    else r.skip(tag & 7);
  }
  return items.join(',');
}
