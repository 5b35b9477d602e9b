// The receiver's answers in gRPC terms: a refused request's HTTP-style status becomes its gRPC code
// (the usual mapping, as in response.ts), and a forced Retry-After becomes the google.rpc.RetryInfo
// a collector puts in the grpc-status-details-bin trailer when it wants the client to wait
// (OTLP specification, "OTLP/gRPC Throttling").
import { grpcCodeFor } from './response.js';

const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo';

export interface GrpcError {
  code: number;
  details: string;
  /** google.rpc.Status bytes for grpc-status-details-bin, when the answer carries RetryInfo. */
  statusDetails?: Buffer;
}

/** The gRPC error for a refusal the receiver would answer over HTTP with `httpStatus`. */
export function grpcErrorFor(httpStatus: number, message: string, retryAfterSeconds?: number): GrpcError {
  const code = grpcCodeFor(httpStatus);
  if (retryAfterSeconds === undefined) return { code, details: message };
  return { code, details: message, statusDetails: encodeStatusWithRetryInfo(code, message, retryAfterSeconds * 1000) };
}

/** google.rpc.Status{code, message, details: [Any{RetryInfo{retry_delay: Duration}}]}. */
export function encodeStatusWithRetryInfo(code: number, message: string, delayMs: number): Buffer {
  const duration = Buffer.concat([varintField(1, Math.floor(delayMs / 1000)), varintField(2, (delayMs % 1000) * 1e6)]);
  const retryInfo = bytesField(1, duration);
  const any = Buffer.concat([bytesField(1, Buffer.from(RETRY_INFO_TYPE)), bytesField(2, retryInfo)]);
  return Buffer.concat([varintField(1, code), bytesField(2, Buffer.from(message)), bytesField(3, any)]);
}

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Buffer.from(out);
}

const varintField = (field: number, n: number): Buffer => Buffer.concat([varint(field * 8), varint(n)]);
const bytesField = (field: number, b: Buffer): Buffer => Buffer.concat([varint(field * 8 + 2), varint(b.length), b]);
