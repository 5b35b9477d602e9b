// The OTLP logs protobuf schema, loaded once at run time from the .proto files in <package root>/proto.
// Loading the text definitions (rather than generating code) keeps the wire contract readable and
// reviewable in one place; protobufjs builds the codecs on first use.
import path from 'node:path';
import protobuf from 'protobufjs';
import { findPackageRoot } from './package-root.js';

/** The message types and enum the receiver uses. */
export interface OtlpSchema {
  readonly exportLogsRequest: protobuf.Type;
  readonly exportLogsResponse: protobuf.Type;
  readonly status: protobuf.Type;
  /** SeverityNumber name → number, for OTLP/JSON bodies that spell the enum by name. */
  readonly severityNumbers: Readonly<Record<string, number>>;
  readonly exportTraceRequest: protobuf.Type;
  readonly exportTraceResponse: protobuf.Type;
  /** Span.SpanKind and Status.StatusCode name → number, for OTLP/JSON bodies that spell them by name. */
  readonly spanKinds: Readonly<Record<string, number>>;
  readonly statusCodes: Readonly<Record<string, number>>;
}

const PROTO_FILES = [
  'opentelemetry/proto/collector/logs/v1/logs_service.proto',
  'opentelemetry/proto/collector/trace/v1/trace_service.proto',
  'google/rpc/status.proto',
];

let cached: OtlpSchema | undefined;

/** The directory holding the shipped .proto files. */
export function protoDir(): string {
  return path.join(findPackageRoot(), 'proto');
}

/** Loads (once) and returns the OTLP logs schema. Throws if the .proto files are missing or invalid. */
export function otlpSchema(): OtlpSchema {
  if (cached !== undefined) return cached;
  // Without a 64-bit integer implementation protobufjs decodes fixed64/int64 into doubles and
  // silently loses precision (time_unix_nano exceeds 2^53); refuse to run rather than corrupt values.
  if (!protobuf.util.Long) throw new Error('protobufjs has no Long support; 64-bit fields would lose precision');
  const dir = protoDir();
  const root = new protobuf.Root();
  // Imports in the .proto files are relative to the proto/ directory (as protoc's -I would have it),
  // not to the importing file, which is protobufjs' default.
  root.resolvePath = (_origin, target) => (path.isAbsolute(target) ? target : path.join(dir, target));
  root.loadSync(PROTO_FILES);
  root.resolveAll();
  cached = {
    exportLogsRequest: root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest'),
    exportLogsResponse: root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse'),
    status: root.lookupType('google.rpc.Status'),
    severityNumbers: root.lookupEnum('opentelemetry.proto.logs.v1.SeverityNumber').values,
    exportTraceRequest: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
    exportTraceResponse: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse'),
    spanKinds: root.lookupEnum('opentelemetry.proto.trace.v1.Span.SpanKind').values,
    statusCodes: root.lookupEnum('opentelemetry.proto.trace.v1.Status.StatusCode').values,
  };
  return cached;
}
