// A gRPC status as an ExportOutcome, by the OTLP specification ("OTLP/gRPC Response", "Failures"):
// CANCELLED, DEADLINE_EXCEEDED, ABORTED, OUT_OF_RANGE, UNAVAILABLE and DATA_LOSS are retryable;
// RESOURCE_EXHAUSTED is retryable only when the server says recovery is possible by sending a
// google.rpc.RetryInfo in the status details (otherwise it is a limit, e.g. a message over the
// collector's size, that sending again cannot pass); every other code is permanent. A RetryInfo's
// delay is how long to wait, like HTTP's Retry-After. Pure.
import { retryInfoDelayMs } from '../wire/retry-info.js';
import type { ExportOutcome } from './otlp-transport.js';

/** The gRPC status codes by number (as the gRPC project's list of status codes numbers them), for messages and metric labels. */
const CODE_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

export const GRPC = {
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

const RETRYABLE = new Set([1, 4, 10, 11, 14, 15]);

/** 'UNAVAILABLE' for 14; `CODE_<n>` for a number outside the table. */
export function grpcCodeName(code: number): string {
  return CODE_NAMES[code] ?? `CODE_${code}`;
}

/** The outcome of a call that ended with a non-OK status. `statusDetails`: the grpc-status-details-bin trailer. */
export function grpcFailure(code: number, details: string, statusDetails?: Uint8Array): ExportOutcome {
  const text = tidyDetails(details);
  const message = text ? `${grpcCodeName(code)}: ${text}` : grpcCodeName(code);
  const retryAfterMs = statusDetails === undefined ? undefined : retryInfoDelayMs(statusDetails);
  if (RETRYABLE.has(code) || (code === GRPC.RESOURCE_EXHAUSTED && retryAfterMs !== undefined)) {
    return retryAfterMs === undefined
      ? { kind: 'retryable', grpcCode: code, message }
      : { kind: 'retryable', grpcCode: code, retryAfterMs, message };
  }
  if (code === GRPC.INVALID_ARGUMENT) return { kind: 'failure', grpcCode: code, refused: 'invalid', message };
  return { kind: 'failure', grpcCode: code, message };
}

/**
 * grpc-js' connection failures read "No connection established. Last error: Error: connect
 * ECONNREFUSED 127.0.0.1:4317 (2026-…). Resolution note: " and quote OpenSSL's whole error string:
 * the cause is kept, the wrapping and the timestamp go, so logs and `check` show one short line.
 */
export function tidyDetails(details: string): string {
  return details
    .replace(/Last error: (?:Error: )?/, 'last error: ')
    .replace(/\s*\(\d{4}-\d\d-\d\dT[^)]*\)/g, '')
    .replace(/[0-9A-F]+:error:[0-9A-F]+:SSL routines:[^:]*:([^:]+):\S*/g, 'TLS: $1')
    .replace(/\.?\s*Resolution note:\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}
