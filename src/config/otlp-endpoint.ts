// Where the exporter sends, from the OpenTelemetry exporter specification ("Configuration
// Options"): the signal-specific OTEL_EXPORTER_OTLP_LOGS_ENDPOINT (…_TRACES_ENDPOINT for spans),
// then OTEL_EXPORTER_OTLP_ENDPOINT, then the file's exporter.endpoint. Spans go to the same base
// as records: a file endpoint written as …/v1/logs sends spans to …/v1/traces.
//
// OTLP/HTTP: a URL. The generic endpoint is a base that gets /v1/logs appended; the logs one is used
// as is. Default http://localhost:4318/v1/logs.
//
// OTLP/gRPC: an address. A URL with http:// means plaintext, https:// means TLS, and the scheme wins
// over everything else; an endpoint without a scheme (`collector:4317`) uses TLS unless "insecure"
// is true (OTEL_EXPORTER_OTLP_LOGS_INSECURE, OTEL_EXPORTER_OTLP_INSECURE, exporter.insecure: the
// only case where the specification lets that option matter). Default http://localhost:4317. The
// result always carries the scheme it resolved to, so the transport and every message read the
// same decision.
import { ConfigError } from './errors.js';
import { notABoolean, optString, type Raw } from './readers.js';
import type { OtlpProtocol, OtlpSignal } from './schema.js';
import { maskUrlText } from '../util/mask-url-text.js';

type Env = Record<string, string | undefined>;

const HTTP_BASE_DEFAULT = 'http://localhost:4318';
const GRPC_DEFAULT = 'http://localhost:4317';
const LOGS_PATH = '/v1/logs';
const PATHS: Readonly<Record<OtlpSignal, string>> = { logs: LOGS_PATH, traces: '/v1/traces' };

/** `OTEL_EXPORTER_OTLP_LOGS_<name>` or `OTEL_EXPORTER_OTLP_TRACES_<name>`. */
export const signalVar = (signal: OtlpSignal, name: string): string =>
  `OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_${name}`;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** The exporter's URL for `protocol`, resolved from the environment and the file's exporter section. */
export function resolveEndpoint(protocol: OtlpProtocol, env: Env, ex: Raw, signal: OtlpSignal = 'logs'): string {
  const own = signalVar(signal, 'ENDPOINT');
  const path = PATHS[signal];
  const logs = optString(env[own], own);
  const base = optString(env.OTEL_EXPORTER_OTLP_ENDPOINT, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const file = optString(ex.endpoint, 'exporter.endpoint');
  if (protocol === 'grpc') {
    const [text, key] =
      logs !== undefined
        ? [logs, own]
        : base !== undefined
          ? [base, 'OTEL_EXPORTER_OTLP_ENDPOINT']
          : file !== undefined
            ? [file, 'exporter.endpoint']
            : [undefined, ''];
    return text === undefined ? GRPC_DEFAULT : grpcAddress(text.trim(), key, insecureFlag(env, ex, signal));
  }
  if (logs !== undefined) return httpUrl(logs, own, false);
  if (base !== undefined) return `${httpUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT', true)}${path}`;
  if (file !== undefined) {
    const url = httpUrl(file, 'exporter.endpoint', true);
    return url.endsWith(LOGS_PATH) ? `${url.slice(0, -LOGS_PATH.length)}${path}` : `${url}${path}`;
  }
  return `${HTTP_BASE_DEFAULT}${path}`;
}

/**
 * An http(s) URL without surrounding blanks (an .env line's) or trailing slashes; a bare host:port
 * gets a suggestion rather than "not a URL". `appended`: a base the signal's path is appended to,
 * which a query or fragment would swallow (`http://c:4318?x=1/v1/logs` posts to `/`).
 */
function httpUrl(raw: string, key: string, appended: boolean): string {
  const text = raw.trim();
  if (!HAS_SCHEME.test(text)) {
    // `127.0.0.1:4318` is no URL at all, and `localhost:4318` parses as a URL of scheme "localhost:".
    throw new ConfigError(
      key,
      `needs a scheme: http://${maskUrlText(text)} (or https:// for TLS) (got "${maskUrlText(text)}")`,
    );
  }
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new ConfigError(key, `is not a valid URL (got "${maskUrlText(text)}")`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new ConfigError(key, `must be an http:// or https:// URL (got "${maskUrlText(text)}")`);
  if (appended && (text.includes('?') || text.includes('#')))
    throw new ConfigError(key, `must not have a query (?…) or fragment (#…): ${PATHS.logs} is appended to it`);
  return text.replace(/\/+$/, '');
}

/** `http(s)://host:port` for a gRPC endpoint written as a URL or as host:port. */
function grpcAddress(text: string, key: string, insecure: boolean): string {
  const withScheme = HAS_SCHEME.test(text) ? text : `${insecure ? 'http' : 'https'}://${text}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw new ConfigError(
      key,
      `is not a gRPC endpoint: use http://host:port (plaintext), https://host:port (TLS) or host:port (got "${maskUrlText(text)}")`,
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ConfigError(
      key,
      `must be http://host:port (plaintext), https://host:port (TLS) or host:port (got "${maskUrlText(text)}")`,
    );
  }
  if (u.pathname !== '/' && u.pathname !== '') {
    // A path is what an OTLP/HTTP endpoint has; gRPC names its method itself.
    throw new ConfigError(
      key,
      `a gRPC endpoint is host and port only, without a path: drop "${u.pathname}" (…/v1/logs is for OTLP/HTTP) (got "${maskUrlText(text)}")`,
    );
  }
  if (!HAS_SCHEME.test(text) && u.port === '')
    throw new ConfigError(
      key,
      `names no port: write ${text}:4317 (the OTLP/gRPC port) or the port your collector listens on`,
    );
  return `${u.protocol}//${u.host}`;
}

/** OTEL_EXPORTER_OTLP_LOGS_INSECURE (…_TRACES_…), then OTEL_EXPORTER_OTLP_INSECURE, then exporter.insecure; false by default. */
export function insecureFlag(env: Env, ex: Raw, signal: OtlpSignal = 'logs'): boolean {
  for (const key of [signalVar(signal, 'INSECURE'), 'OTEL_EXPORTER_OTLP_INSECURE']) {
    const v = env[key]?.trim().toLowerCase();
    if (v === undefined || v === '') continue;
    if (v !== 'true' && v !== 'false') throw notABoolean(env[key], key);
    return v === 'true';
  }
  if (ex.insecure !== undefined && typeof ex.insecure !== 'boolean')
    throw notABoolean(ex.insecure, 'exporter.insecure');
  return ex.insecure === true;
}
