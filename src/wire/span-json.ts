// Framed protobuf Spans (as encode-span.ts writes and the spool keeps them) → OTLP/JSON Span
// objects as text, for the http/json protocol; the counterpart of record-json.ts for traces.
// Ids are hex in OTLP/JSON; enums are numbers; 64-bit times are decimal strings.
import { keyValueJson, Reader, WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from './record-json.js';

/** Appends the OTLP/JSON text of every framed span in `payload` to `out`. */
export function spanToJson(payload: Buffer, out: string[]): void {
  const r = new Reader(payload, 0, payload.length);
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag !== 0x12) throw new Error('damaged spool payload: not a framed span');
    const [s, e] = r.len();
    out.push(spanJson(new Reader(payload, s, e)));
  }
}

function spanJson(r: Reader): string {
  const parts: string[] = [];
  const attributes: string[] = [];
  const events: string[] = [];
  const links: string[] = [];
  while (r.pos < r.end) {
    const tag = r.varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (field === 1 && wire === WIRE_LEN) parts.push(`"traceId":"${r.hex()}"`);
    else if (field === 2 && wire === WIRE_LEN) parts.push(`"spanId":"${r.hex()}"`);
    else if (field === 4 && wire === WIRE_LEN) parts.push(`"parentSpanId":"${r.hex()}"`);
    else if (field === 5 && wire === WIRE_LEN) parts.push(`"name":${JSON.stringify(r.string())}`);
    else if (field === 6 && wire === WIRE_VARINT) parts.push(`"kind":${r.varint()}`);
    else if (field === 7 && wire === WIRE_FIXED64) parts.push(`"startTimeUnixNano":"${r.fixed64()}"`);
    else if (field === 8 && wire === WIRE_FIXED64) parts.push(`"endTimeUnixNano":"${r.fixed64()}"`);
    else if (field === 9 && wire === WIRE_LEN) attributes.push(keyValueJson(r, ...r.len()));
    else if (field === 11 && wire === WIRE_LEN) events.push(eventJson(r, ...r.len()));
    else if (field === 13 && wire === WIRE_LEN) links.push(linkJson(r, ...r.len()));
    else if (field === 15 && wire === WIRE_LEN) parts.push(`"status":${statusJson(r, ...r.len())}`);
    else if (field === 16 && wire === WIRE_FIXED32) parts.push(`"flags":${r.fixed32()}`);
    else r.skip(wire);
  }
  parts.push(
    `"attributes":[${attributes.join(',')}]`,
    `"events":[${events.join(',')}]`,
    `"links":[${links.join(',')}]`,
  );
  return `{${parts.join(',')}}`;
}

function eventJson(parent: Reader, start: number, end: number): string {
  const r = new Reader(parent.buf, start, end);
  let time = '0';
  let name = '';
  const attributes: string[] = [];
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === 0x09) time = r.fixed64();
    else if (tag === 0x12) name = r.string();
    else if (tag === 0x1a) attributes.push(keyValueJson(r, ...r.len()));
    else r.skip(tag & 7);
  }
  return `{"timeUnixNano":"${time}","name":${JSON.stringify(name)},"attributes":[${attributes.join(',')}]}`;
}

function linkJson(parent: Reader, start: number, end: number): string {
  const r = new Reader(parent.buf, start, end);
  const parts: string[] = [];
  const attributes: string[] = [];
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === 0x0a) parts.push(`"traceId":"${r.hex()}"`);
    else if (tag === 0x12) parts.push(`"spanId":"${r.hex()}"`);
    else if (tag === 0x22) attributes.push(keyValueJson(r, ...r.len()));
    else if (tag === 0x35) parts.push(`"flags":${r.fixed32()}`);
    else r.skip(tag & 7);
  }
  parts.push(`"attributes":[${attributes.join(',')}]`);
  return `{${parts.join(',')}}`;
}

function statusJson(parent: Reader, start: number, end: number): string {
  const r = new Reader(parent.buf, start, end);
  const parts: string[] = [];
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === 0x12) parts.push(`"message":${JSON.stringify(r.string())}`);
    else if (tag === 0x18) parts.push(`"code":${r.varint()}`);
    else r.skip(tag & 7);
  }
  return `{${parts.join(',')}}`;
}
