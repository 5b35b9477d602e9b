// The server's retry delay in a gRPC error's `grpc-status-details-bin` trailer. The OTLP
// specification ("OTLP/gRPC Throttling") has a collector that wants a client to slow down answer
// RESOURCE_EXHAUSTED or UNAVAILABLE with a google.rpc.Status whose details carry a
// google.rpc.RetryInfo; RESOURCE_EXHAUSTED is retryable only when that RetryInfo is there.
//
//   google.rpc.Status { 1 code int32, 2 message string, 3 details repeated google.protobuf.Any }
//   google.protobuf.Any { 1 type_url string, 2 value bytes }
//   google.rpc.RetryInfo { 1 retry_delay google.protobuf.Duration }
//   google.protobuf.Duration { 1 seconds int64, 2 nanos int32 }
import { MAX_RETRY_AFTER_MS } from '../util/backoff.js';
import { readVarint } from './proto-writer.js';

const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo';

/**
 * The RetryInfo a status carries: absent (undefined), or its delay in ms (0 when it names none), at
 * most MAX_RETRY_AFTER_MS as a Retry-After header is (util/backoff.ts says why).
 */
export function retryInfoDelayMs(statusDetails: Uint8Array): number | undefined {
  for (const any of fields(statusDetails, 3)) {
    const [typeUrl] = fields(any, 1);
    if (typeUrl === undefined || Buffer.from(typeUrl).toString('utf8') !== RETRY_INFO_TYPE) continue;
    const [value] = fields(any, 2);
    const [duration] = value === undefined ? [] : fields(value, 1);
    return duration === undefined ? 0 : durationMs(duration);
  }
  return undefined;
}

function durationMs(d: Uint8Array): number {
  let seconds = 0;
  let nanos = 0;
  walk(d, (field, wire, value) => {
    if (wire !== 0) return;
    if (field === 1) seconds = value;
    else if (field === 2) nanos = value;
  });
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, Math.round(seconds * 1000 + nanos / 1e6)));
}

/** The length-delimited values of field `wanted`, in order; stops quietly at damaged bytes. */
function fields(buf: Uint8Array, wanted: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  walk(buf, (field, wire, _value, start, end) => {
    if (field === wanted && wire === 2) out.push(buf.subarray(start, end));
  });
  return out;
}

/**
 * Calls `visit` for each field: varints with their value, length-delimited fields with their
 * bounds. A damaged message ends the walk: a trailer is advice, never a reason to fail an export.
 */
function walk(
  buf: Uint8Array,
  visit: (field: number, wire: number, value: number, start: number, end: number) => void,
): void {
  let pos = 0;
  while (pos < buf.length) {
    const [tag, next] = readVarint(buf, pos);
    if (tag < 0) return;
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 0) {
      const [value, after] = readVarint(buf, next);
      if (value < 0) return;
      visit(field, wire, value, next, after);
      pos = after;
    } else if (wire === 2) {
      const [len, start] = readVarint(buf, next);
      if (len < 0 || start + len > buf.length) return;
      visit(field, wire, len, start, start + len);
      pos = start + len;
    } else if (wire === 1) pos = next + 8;
    else if (wire === 5) pos = next + 4;
    else return;
  }
}
