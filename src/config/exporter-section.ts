// The `exporter:` section and the standard OTEL_EXPORTER_OTLP_* variables → ExporterConfig.
// Signal-specific variables (…_LOGS_…, …_TRACES_… for spans) win over the generic ones, which win over the file
// (OpenTelemetry exporter specification). Where the requests go is otlp-endpoint.ts' business.
import { ConfigError, ConfigProblems } from './errors.js';
import { CONFIG_FILE, keysOf } from './config-keys.js';
import { exporterTls } from './tls.js';
import { insecureFlag, resolveEndpoint, signalVar } from './otlp-endpoint.js';
import type { ExporterConfig, OtlpProtocol, OtlpSignal } from './schema.js';
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
import { headerValueProblem } from '../util/header-value.js';

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

/**
 * The exporter of one signal; spans (`traces`) read the OTEL_EXPORTER_OTLP_TRACES_* variables instead of …_LOGS_*.
 * Each value is read on its own, so that one's problem does not hide another's (all are reported at once).
 */
export function buildExporter(ex: Raw, env: Env, signal: OtlpSignal = 'logs'): ExporterConfig {
  const p = new ConfigProblems();
  const v = (name: string): string => signalVar(signal, name);
  p.take(() => onlyKeys(ex, keysOf(KEYS), 'exporter'), undefined);
  const tls = section(ex, 'tls', 'exporter.tls');
  p.take(() => onlyKeys(tls, keysOf(KEYS.keys.tls), 'exporter.tls'), undefined);
  const backoff = section(ex, 'backoff', 'exporter.backoff');
  p.take(() => onlyKeys(backoff, keysOf(KEYS.keys.backoff), 'exporter.backoff'), undefined);
  const protocol = p.take<OtlpProtocol>(
    () =>
      optEnum(env[v('PROTOCOL')], PROTOCOLS, v('PROTOCOL')) ??
      optEnum(env.OTEL_EXPORTER_OTLP_PROTOCOL, PROTOCOLS, 'OTEL_EXPORTER_OTLP_PROTOCOL') ??
      optEnum(ex.protocol, PROTOCOLS, 'exporter.protocol') ??
      'http/protobuf',
    'http/protobuf',
  );
  // Validated whatever the protocol, so a typo is not silently taken; it only matters for gRPC.
  p.take(() => insecureFlag(env, ex, signal), undefined);
  const url = p.take(() => resolveEndpoint(protocol, env, ex, signal), '');
  const compression = p.take(
    () =>
      optEnum(env[v('COMPRESSION')], COMPRESSIONS, v('COMPRESSION')) ??
      optEnum(env.OTEL_EXPORTER_OTLP_COMPRESSION, COMPRESSIONS, 'OTEL_EXPORTER_OTLP_COMPRESSION') ??
      optEnum(ex.compression, COMPRESSIONS, 'exporter.compression') ??
      'none',
    'none',
  );
  const headers = {
    ...p.take(() => checkHeaders(optStringMap(ex.headers, 'exporter.headers'), 'exporter.headers'), {}),
    ...p.take(() => headersFromEnv(env, 'OTEL_EXPORTER_OTLP_HEADERS'), {}),
    ...p.take(() => headersFromEnv(env, v('HEADERS')), {}),
  };
  if (protocol === 'grpc') p.take(() => checkMetadataKeys(headers, env, v('HEADERS')), undefined);
  // The specification documents these as plain milliseconds (default 10000); "10s" is accepted too.
  const timeoutMs = p.take(
    () =>
      optDurationMs(env[v('TIMEOUT')], v('TIMEOUT'), 1) ??
      optDurationMs(env.OTEL_EXPORTER_OTLP_TIMEOUT, 'OTEL_EXPORTER_OTLP_TIMEOUT', 1) ??
      optDurationMs(ex.timeout, 'exporter.timeout', 1) ??
      10_000,
    10_000,
  );
  const config: ExporterConfig = {
    url,
    protocol,
    headers,
    compression,
    timeoutMs,
    batchMaxRecords: p.take(() => optInt(ex.batch_max_records, 'exporter.batch_max_records', 1, 50_000) ?? 1000, 1000),
    batchMaxBytes: p.take(
      () =>
        optBytes(ex.batch_max_bytes, 'exporter.batch_max_bytes', 64 * 1024) ??
        (protocol === 'grpc' ? GRPC_BATCH_MAX_BYTES : HTTP_BATCH_MAX_BYTES),
      HTTP_BATCH_MAX_BYTES,
    ),
    concurrency: p.take(() => optInt(ex.concurrency, 'exporter.concurrency', 1, 64) ?? 4, 4),
    backoff: {
      initialMs: p.take(() => optDurationMs(backoff.initial, 'exporter.backoff.initial', 1) ?? 250, 250),
      maxMs: p.take(() => optDurationMs(backoff.max, 'exporter.backoff.max', 1) ?? 30_000, 30_000),
    },
    tls: p.take(() => exporterTls(env, tls, v), {}),
  };
  p.throwIfAny();
  return config;
}

function headersFromEnv(env: Env, name: string): Record<string, string> {
  const text = env[name];
  return text ? checkHeaders(parseKeyValueList(text, name), name) : {};
}

/** RFC 9110 field names: tokens. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Every request would fail with these (ERR_INVALID_HTTP_TOKEN, ERR_INVALID_CHAR), forever: a CR or
 * LF in a value (a secret pasted with its line end, `%0D%0A` in the variable) is refused here, at
 * load. The value is never quoted: it is usually a credential.
 */
function checkHeaders(headers: Record<string, string>, source: string): Record<string, string> {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name))
      throw new ConfigError(source, `"${name}" is not a valid header name (letters, digits and !#$%&'*+.^_\`|~- only)`);
    const problem = headerValueProblem(value);
    if (problem) throw new ConfigError(source, `the value of "${name}" ${problem}`);
  }
  return headers;
}

/** Headers travel as gRPC metadata, whose keys are stricter than HTTP header names. */
function checkMetadataKeys(headers: Record<string, string>, env: Env, signalHeaders: string): void {
  for (const name of Object.keys(headers)) {
    const key = name.toLowerCase();
    if (METADATA_KEY.test(key) && !key.endsWith('-bin')) continue;
    const source = env[signalHeaders]
      ? signalHeaders
      : env.OTEL_EXPORTER_OTLP_HEADERS
        ? 'OTEL_EXPORTER_OTLP_HEADERS'
        : 'exporter.headers';
    throw new ConfigError(
      source,
      `"${name}" cannot be sent as gRPC metadata: names are letters, digits, "_", "-" and "." only, and binary "-bin" names are not supported`,
    );
  }
}
