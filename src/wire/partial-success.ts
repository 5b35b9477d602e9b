// The partial-success part of an ExportLogsServiceResponse or ExportTraceServiceResponse (OTLP: a
// 2xx answer may say that some records or spans were rejected; both have the same field numbers).
// Read per request, so every rejected record is counted (docs/design.md "Delivery semantics": loss
// is repaired, or reported). Protobuf: ExportLogsServiceResponse{1 partial_success:
// {1 rejected_log_records int64, 2 error_message string}}; JSON: {"partialSuccess": {...}}.
import { isUtf8 } from 'node:buffer';
import { readVarint } from './proto-writer.js';

export interface PartialSuccess {
  rejected: number;
  message: string;
}

/**
 * A collector's rejected count taken within what the request carried: a negative one, or one above
 * the request's records (or spans), would count items delivered or rejected that never were.
 */
export function rejectedWithin(sent: number, rejected: number): number {
  return Math.min(sent, Math.max(0, rejected));
}

/** Null when the response reports no rejection (or is empty, or cannot be read). */
export function decodePartialSuccess(body: Buffer, contentType: string): PartialSuccess | null {
  if (body.length === 0) return null;
  return contentType.includes('json') ? fromJson(body) : fromProtobuf(body);
}

function fromJson(body: Buffer): PartialSuccess | null {
  try {
    const v = JSON.parse(body.toString('utf8')) as {
      partialSuccess?: { rejectedLogRecords?: string | number; rejectedSpans?: string | number; errorMessage?: string };
    };
    const p = v.partialSuccess;
    if (!p) return null;
    const rejected = Number(p.rejectedLogRecords ?? p.rejectedSpans ?? 0);
    const message = typeof p.errorMessage === 'string' ? p.errorMessage : '';
    return rejected > 0 || message ? { rejected: Number.isFinite(rejected) ? rejected : 0, message } : null;
  } catch {
    return null;
  }
}

function fromProtobuf(body: Buffer): PartialSuccess | null {
  let pos = 0;
  while (pos < body.length) {
    const [tag, next] = readVarint(body, pos);
    if (tag < 0) return null;
    if (tag === 0x0a) {
      const [len, start] = readVarint(body, next);
      if (len < 0 || start + len > body.length) return null;
      return fromPartial(body.subarray(start, start + len));
    }
    pos = skip(body, tag & 7, next);
    if (pos < 0) return null;
  }
  return null;
}

function fromPartial(b: Buffer): PartialSuccess | null {
  let rejected = 0;
  let message = '';
  let pos = 0;
  while (pos < b.length) {
    const [tag, next] = readVarint(b, pos);
    if (tag < 0) return null;
    if (tag === 0x08) {
      const [v, after] = readVarint(b, next);
      if (v < 0) return null;
      rejected = v;
      pos = after;
    } else if (tag === 0x12) {
      const [len, start] = readVarint(b, next);
      if (len < 0 || start + len > b.length) return null;
      message = b.toString('utf8', start, start + len);
      pos = start + len;
    } else {
      pos = skip(b, tag & 7, next);
      if (pos < 0) return null;
    }
  }
  return rejected > 0 || message ? { rejected, message } : null;
}

function skip(b: Buffer, wire: number, pos: number): number {
  if (wire === 0) return readVarint(b, pos)[1];
  if (wire === 1) return pos + 8;
  if (wire === 5) return pos + 4;
  if (wire === 2) {
    const [len, start] = readVarint(b, pos);
    return len < 0 ? -1 : start + len;
  }
  return -1;
}

/**
 * The message of a google.rpc.Status body (OTLP/HTTP: a failed request's answer), protobuf
 * {1 code, 2 message, 3 details} or JSON {"message"}; '' when there is none or it cannot be read.
 */
export function decodeStatusMessage(body: Buffer, contentType: string): string {
  if (body.length === 0) return '';
  if (contentType.includes('json')) {
    try {
      const v = JSON.parse(body.toString('utf8')) as { message?: unknown };
      return typeof v.message === 'string' ? v.message : '';
    } catch {
      return '';
    }
  }
  let pos = 0;
  while (pos < body.length) {
    const [tag, next] = readVarint(body, pos);
    if (tag < 0) return '';
    if (tag === 0x12) {
      const [len, start] = readVarint(body, next);
      if (len < 0 || start + len > body.length) return '';
      return body.toString('utf8', start, start + len);
    }
    pos = skip(body, tag & 7, next);
    if (pos < 0) return '';
  }
  return '';
}

/**
 * Whether a 2xx answer's body is what an OTLP collector sends back: nothing, or an
 * ExportLogsServiceResponse (protobuf: well-formed fields, `partial_success` a message of a count and
 * a string; JSON: an object). Anything else (an HTML page from a catch-all route at a wrong path, a
 * proxy's "OK") acknowledged records nobody may have stored. `cut`: the body was read only in part.
 */
export function isOtlpAnswer(body: Buffer, contentType: string, cut = false): boolean {
  if (cut) return false;
  if (body.length === 0) return true;
  const type = contentType.toLowerCase();
  if (type.startsWith('text/')) return false;
  if (type.includes('json')) {
    try {
      const v: unknown = JSON.parse(body.toString('utf8'));
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    } catch {
      return false;
    }
  }
  return wellFormed(body, (field, wire, b) => field !== 1 || (b !== undefined && wellFormed(b, partialField)));
}

/** ExportLogsPartialSuccess: 1 rejected_log_records (varint), 2 error_message (UTF-8 string). */
const partialField = (field: number, wire: number, b: Buffer | undefined): boolean =>
  field === 1 ? wire === 0 : field === 2 ? wire === 2 && b !== undefined && isUtf8(b) : true;

/**
 * A protobuf message whose every field has a known wire type and lies within the body; `check` sees
 * each field (with its bytes for length-delimited ones) and may refuse it.
 */
function wellFormed(b: Buffer, check: (field: number, wire: number, bytes: Buffer | undefined) => boolean): boolean {
  let pos = 0;
  while (pos < b.length) {
    const [tag, next] = readVarint(b, pos);
    if (tag < 0) return false;
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (field === 0) return false;
    if (wire === 2) {
      const [len, start] = readVarint(b, next);
      if (len < 0 || start + len > b.length) return false;
      if (!check(field, wire, b.subarray(start, start + len))) return false;
      pos = start + len;
      continue;
    }
    if (!check(field, wire, undefined)) return false;
    if (wire === 0) {
      const [v, after] = readVarint(b, next);
      if (v < 0) return false;
      pos = after;
    } else if (wire === 1 || wire === 5) {
      pos = next + (wire === 1 ? 8 : 4);
      if (pos > b.length) return false;
    } else return false;
  }
  return true;
}
