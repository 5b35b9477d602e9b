// The `exporter:` section and the standard OTEL_EXPORTER_OTLP_* variables → ExporterConfig.
// Signal-specific variables (…_LOGS_…) win over the generic ones, which win over the file
// (OpenTelemetry exporter specification). Where the requests go is otlp-endpoint.ts' business.
import { ConfigError } from './errors.js';
import { CONFIG_FILE, keysOf } from './config-keys.js';
import { exporterTls } from './tls.js';
import { insecureFlag, resolveEndpoint } from './otlp-endpoint.js';
import type { ExporterConfig, OtlpProtocol } from './schema.js';
import {
  onlyKeys,
  optBytes,
  optDurationMs,
  optEnum,
  optInt,
  optStringMap,
  parseKeyValueList,
  section,
  type Raw,
} from './readers.js';

type Env = Record<string, string | undefined>;

const KEYS = CONFIG_FILE.keys.exporter;

const PROTOCOLS: readonly OtlpProtocol[] = ['http/protobuf', 'http/json', 'grpc'];
const COMPRESSIONS = ['gzip', 'none'] as const;
/** Below the OpenTelemetry Collector's default max_request_body_size for OTLP/HTTP (20 MiB). */
const HTTP_BATCH_MAX_BYTES = 8 * 1024 * 1024;
/**
 * The Collector's gRPC receiver refuses a message over 4 MiB by default (max_recv_msg_size_mib,
 * checked after decompression) with RESOURCE_EXHAUSTED and no RetryInfo, which the specification
 * makes permanent: a request must stay under it. 64 KiB are left for the resource and the framing.
 */
export const GRPC_MESSAGE_LIMIT = 4 * 1024 * 1024;
const GRPC_BATCH_MAX_BYTES = GRPC_MESSAGE_LIMIT - 64 * 1024;
/** gRPC metadata keys: lower-case ASCII letters, digits, `_`, `-`, `.` (binary `-bin` keys are not text). */
const METADATA_KEY = /^[0-9a-z_.-]+$/;

export function buildExporter(ex: Raw, env: Env): ExporterConfig {
  onlyKeys(ex, keysOf(KEYS), 'exporter');
  const tls = section(ex, 'tls', 'exporter.tls');
  onlyKeys(tls, keysOf(KEYS.keys.tls), 'exporter.tls');
  const backoff = section(ex, 'backoff', 'exporter.backoff');
  onlyKeys(backoff, keysOf(KEYS.keys.backoff), 'exporter.backoff');
  const protocol =
    optEnum(env.OTEL_EXPORTER_OTLP_LOGS_PROTOCOL, PROTOCOLS, 'OTEL_EXPORTER_OTLP_LOGS_PROTOCOL') ??
    optEnum(env.OTEL_EXPORTER_OTLP_PROTOCOL, PROTOCOLS, 'OTEL_EXPORTER_OTLP_PROTOCOL') ??
    optEnum(ex.protocol, PROTOCOLS, 'exporter.protocol') ??
    'http/protobuf';
  // Validated whatever the protocol, so a typo is not silently taken; it only matters for gRPC.
  insecureFlag(env, ex);
  const url = resolveEndpoint(protocol, env, ex);
  const compression =
    optEnum(env.OTEL_EXPORTER_OTLP_LOGS_COMPRESSION, COMPRESSIONS, 'OTEL_EXPORTER_OTLP_LOGS_COMPRESSION') ??
    optEnum(env.OTEL_EXPORTER_OTLP_COMPRESSION, COMPRESSIONS, 'OTEL_EXPORTER_OTLP_COMPRESSION') ??
    optEnum(ex.compression, COMPRESSIONS, 'exporter.compression') ??
    'none';
  const headers = {
    ...optStringMap(ex.headers, 'exporter.headers'),
    ...(env.OTEL_EXPORTER_OTLP_HEADERS
      ? parseKeyValueList(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS')
      : {}),
    ...(env.OTEL_EXPORTER_OTLP_LOGS_HEADERS
      ? parseKeyValueList(env.OTEL_EXPORTER_OTLP_LOGS_HEADERS, 'OTEL_EXPORTER_OTLP_LOGS_HEADERS')
      : {}),
  };
  if (protocol === 'grpc') checkMetadataKeys(headers, env);
  // The specification documents these as plain milliseconds (default 10000); "10s" is accepted too.
  const timeoutMs =
    optDurationMs(env.OTEL_EXPORTER_OTLP_LOGS_TIMEOUT, 'OTEL_EXPORTER_OTLP_LOGS_TIMEOUT', 1) ??
    optDurationMs(env.OTEL_EXPORTER_OTLP_TIMEOUT, 'OTEL_EXPORTER_OTLP_TIMEOUT', 1) ??
    optDurationMs(ex.timeout, 'exporter.timeout', 1) ??
    10_000;
  return {
    url,
    protocol,
    headers,
    compression,
    timeoutMs,
    batchMaxRecords: optInt(ex.batch_max_records, 'exporter.batch_max_records', 1, 50_000) ?? 1000,
    batchMaxBytes:
      optBytes(ex.batch_max_bytes, 'exporter.batch_max_bytes', 64 * 1024) ??
      (protocol === 'grpc' ? GRPC_BATCH_MAX_BYTES : HTTP_BATCH_MAX_BYTES),
    concurrency: optInt(ex.concurrency, 'exporter.concurrency', 1, 64) ?? 4,
    backoff: {
      initialMs: optDurationMs(backoff.initial, 'exporter.backoff.initial', 1) ?? 250,
      maxMs: optDurationMs(backoff.max, 'exporter.backoff.max', 1) ?? 30_000,
    },
    tls: exporterTls(env, tls),
  };
}

/** Headers travel as gRPC metadata, whose keys are stricter than HTTP header names. */
function checkMetadataKeys(headers: Record<string, string>, env: Env): void {
  for (const name of Object.keys(headers)) {
    const key = name.toLowerCase();
    if (METADATA_KEY.test(key) && !key.endsWith('-bin')) continue;
    const source = env.OTEL_EXPORTER_OTLP_LOGS_HEADERS
      ? 'OTEL_EXPORTER_OTLP_LOGS_HEADERS'
      : env.OTEL_EXPORTER_OTLP_HEADERS
        ? 'OTEL_EXPORTER_OTLP_HEADERS'
        : 'exporter.headers';
    throw new ConfigError(
      source,
      `"${name}" cannot be sent as gRPC metadata: names are letters, digits, "_", "-" and "." only, and binary "-bin" names are not supported`,
    );
  }
}
