// Answers of an OTLP/HTTP server. The spec ("OTLP/HTTP Response") wants them in the request's
// encoding: an ExportLogsServiceResponse on success (partial_success only when something was
// rejected) and a google.rpc.Status describing the problem on failure.
import type { OtlpFormat } from './decode.js';
import { otlpSchema } from './otlp-schema.js';

/** A response body with the content type to send it under. */
export interface EncodedBody {
  contentType: string;
  body: Uint8Array;
}

/** The content type of each encoding, as sent by the exporters and expected back. */
export const CONTENT_TYPES: Readonly<Record<OtlpFormat, string>> = {
  protobuf: 'application/x-protobuf',
  json: 'application/json',
};

/** The success answer; `rejected` > 0 fills partial_success. */
export function encodeExportResponse(format: OtlpFormat, rejected = 0, errorMessage = ''): EncodedBody {
  const contentType = CONTENT_TYPES[format];
  const partialSuccess = rejected > 0 ? { rejectedLogRecords: rejected, errorMessage } : undefined;
  if (format === 'json') {
    // proto3 JSON writes int64 as a decimal string.
    const payload =
      partialSuccess === undefined
        ? {}
        : { partialSuccess: { ...partialSuccess, rejectedLogRecords: String(rejected) } };
    return { contentType, body: Buffer.from(JSON.stringify(payload)) };
  }
  const type = otlpSchema().exportLogsResponse;
  const message = type.fromObject(partialSuccess === undefined ? {} : { partialSuccess });
  return { contentType, body: type.encode(message).finish() };
}

/** A failure answer: google.rpc.Status with the gRPC code matching `httpStatus`. */
export function encodeStatus(format: OtlpFormat, httpStatus: number, message: string): EncodedBody {
  const status = { code: grpcCodeFor(httpStatus), message };
  if (format === 'json') return { contentType: CONTENT_TYPES.json, body: Buffer.from(JSON.stringify(status)) };
  const type = otlpSchema().status;
  return { contentType: CONTENT_TYPES.protobuf, body: type.encode(type.fromObject(status)).finish() };
}

/** A plain-text answer, for requests whose encoding is unknown (wrong path, method or content type). */
export function encodeText(message: string): EncodedBody {
  return { contentType: 'text/plain; charset=utf-8', body: Buffer.from(`${message}\n`) };
}

// google.rpc.Code values for the HTTP statuses this receiver sends (the usual gRPC ↔ HTTP mapping).
const GRPC_CODES: Readonly<Record<number, number>> = {
  400: 3, // INVALID_ARGUMENT
  401: 16, // UNAUTHENTICATED
  403: 7, // PERMISSION_DENIED
  404: 5, // NOT_FOUND
  413: 8, // RESOURCE_EXHAUSTED
  415: 3, // INVALID_ARGUMENT
  429: 8, // RESOURCE_EXHAUSTED
  500: 13, // INTERNAL
  501: 12, // UNIMPLEMENTED
  502: 14, // UNAVAILABLE
  503: 14, // UNAVAILABLE
  504: 4, // DEADLINE_EXCEEDED
};

/** The google.rpc.Code for an HTTP status (UNKNOWN when there is no usual match). */
export function grpcCodeFor(httpStatus: number): number {
  return GRPC_CODES[httpStatus] ?? 2; // UNKNOWN
}
