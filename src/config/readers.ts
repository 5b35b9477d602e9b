// Small typed readers for untrusted configuration values. Each names the full key in its error,
// so an operator sees exactly which line of the file or which variable is wrong.
import { ConfigError, UnknownKeyError } from './errors.js';
import { maskUrlText } from '../util/mask-url-text.js';
import { isRecord } from '../util/guards.js';

export { isRecord };

export type Raw = Record<string, unknown>;

/** A value of the wrong kind as a problem's `(got …)` shows it: a string quoted, a list or a mapping named. */
export function writtenAs(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return 'a list';
  return isRecord(v) ? 'a mapping' : String(v);
}

/**
 * The problem of a value that should be a boolean, naming what was written: `yes`/`on` (YAML 1.1's
 * booleans, strings in YAML 1.2) and a quoted "true" look right to the person who wrote them.
 */
export function notABoolean(v: unknown, key: string): ConfigError {
  const got = writtenAs(v);
  const quoted = typeof v === 'string' && /^(true|false)$/i.test(v.trim());
  return new ConfigError(key, `must be true or false${quoted ? ', without quotes' : ''} (got ${got})`);
}

/** A boolean of the file (YAML true/false); undefined when absent. */
export function fileFlag(v: unknown, key: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw notABoolean(v, key);
  return v;
}

const ENV_TRUE = new Set(['true', '1', 'yes']);
const ENV_FALSE = new Set(['false', '0', 'no']);

/**
 * A boolean of a BRIDGE_* variable: true/false, 1/0 or yes/no, in any case; undefined when unset or
 * blank. Every BRIDGE_* switch reads them alike, as a shell user writes them. The OpenTelemetry
 * variables (OTEL_EXPORTER_OTLP_INSECURE…) keep to true and false (otlp-endpoint.ts): the
 * specification reads any other value as false, so a `1` there would mean opposite things to the
 * bridge and to the SDKs beside it.
 */
export function envFlag(v: string | undefined, key: string): boolean | undefined {
  const s = v?.trim().toLowerCase();
  if (s === undefined || s === '') return undefined;
  if (ENV_TRUE.has(s)) return true;
  if (ENV_FALSE.has(s)) return false;
  throw new ConfigError(key, `must be true or false (or 1/0, yes/no) (got ${writtenAs(v)})`);
}

/** A section of the file; absent → empty. */
export function section(parent: Raw, name: string, key: string): Raw {
  const v = parent[name];
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) throw new ConfigError(key, `must be a mapping (got ${writtenAs(v)})`);
  return v;
}

/** Rejects keys the schema does not know, so a typo is an error instead of a silently ignored line. */
export function onlyKeys(obj: Raw, allowed: readonly string[], prefix: string): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) {
      const p = prefix ? `${prefix}.${k}` : k;
      throw new UnknownKeyError(p, allowed);
    }
  }
}

export function optString(v: unknown, key: string): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new ConfigError(key, 'must be a string');
  return v;
}

export function optEnum<T extends string>(v: unknown, allowed: readonly T[], key: string): T | undefined {
  const s = optString(v, key);
  if (s === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(s)) {
    throw new ConfigError(key, `must be one of ${allowed.join(', ')} (got "${s}")`);
  }
  return s as T;
}

export function optInt(v: unknown, key: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw new ConfigError(key, 'must be an integer');
  if (n < min || n > max) throw new ConfigError(key, `must be between ${min} and ${max} (got ${n})`);
  return n;
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/** A byte size: an integer or a string like "256MiB". */
export function optBytes(v: unknown, key: string, min: number): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number') {
    const n = optInt(v, key, -Infinity)!;
    if (n < min) throw new ConfigError(key, `must be at least ${min} bytes (got ${n})`);
    return n;
  }
  if (typeof v !== 'string') throw new ConfigError(key, 'must be a size such as 268435456 or "256MiB"');
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(v);
  const unit = m ? SIZE_UNITS[(m[2] ?? '').toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new ConfigError(key, `must be a size such as 268435456 or "256MiB" (got "${v}")`);
  const n = Math.floor(Number(m[1]) * unit);
  if (n < min) throw new ConfigError(key, `must be at least ${min} bytes (got "${v}")`);
  return n;
}

const DURATION_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const DURATION_PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;

/**
 * The longest duration any key takes: 2^31-1 ms, about 24.8 days, the longest a Node timer waits.
 * Beyond it setTimeout waits 1 ms instead (with a warning on stderr), so an `exporter.timeout` of
 * 2147483648 aborted every export at once and an `upstream.idle_timeout` of 30 days would cut every
 * stream as idle: a value meant as "practically never" did the opposite.
 */
export const MAX_DURATION_MS = 2 ** 31 - 1;
const MAX_DURATION_RULE = 'must be at most 596h (about 24 days, the longest a timer waits)';

/**
 * A duration: milliseconds as a number (or a string of digits, as the OTEL_*_TIMEOUT variables are
 * documented), or a Go-style duration as Collector configurations write them: "45s", "500ms",
 * "1m30s", "1.5h".
 */
export function optDurationMs(v: unknown, key: string, min: number): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number') {
    // Not optInt's bounds: "between 1 and 9007199254740991" only puzzled the reader, and named no unit.
    const ms = optInt(v, key, -Infinity)!;
    if (ms < min) throw new ConfigError(key, `must be at least ${min} ms (got ${ms})`);
    if (ms > MAX_DURATION_MS) throw new ConfigError(key, `${MAX_DURATION_RULE} (got ${ms})`);
    return ms;
  }
  if (typeof v !== 'string')
    throw new ConfigError(key, `must be a duration such as "45s" or 45000 (got ${JSON.stringify(v)})`);
  const ms = parseDurationMs(v.trim());
  if (ms === undefined)
    throw new ConfigError(
      key,
      `must be a duration such as "45s", "500ms", "1m30s" or a number of milliseconds (got "${v}")`,
    );
  if (ms < min) throw new ConfigError(key, `must be at least ${min} ms (got "${v}")`);
  if (ms > MAX_DURATION_MS) throw new ConfigError(key, `${MAX_DURATION_RULE} (got "${v}")`);
  return ms;
}

/** "1m30s" → 90000; digits alone are milliseconds; undefined when it is not a duration. */
export function parseDurationMs(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  if (text === '') return undefined;
  let total = 0;
  DURATION_PART.lastIndex = 0;
  while (DURATION_PART.lastIndex < text.length) {
    const m = DURATION_PART.exec(text);
    if (!m) return undefined;
    total += Number(m[1]) * DURATION_UNITS[m[2]!]!;
  }
  return Math.round(total);
}

/**
 * A base URL that paths are appended to (the service's `/browsers/…`). Trimmed: the URL parser
 * forgives surrounding spaces (an .env line's trailing blank) but the URLs built from it did not,
 * and every request failed as ERR_INVALID_URL, "cannot reach". A query or a fragment would swallow
 * the appended path (`http://h?x=1/browsers/…` asks for `/`), so neither is taken.
 */
export function optUrl(v: unknown, key: string): string | undefined {
  const s = optString(v, key)?.trim();
  if (s === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    // Echoed masked: a URL that fails to parse may still carry a password or a token.
    throw new ConfigError(key, `is not a valid URL (got "${maskUrlText(s)}")`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(key, 'must be an http or https URL');
  if (s.includes('?') || s.includes('#'))
    throw new ConfigError(key, 'must not have a query (?…) or fragment (#…): the API paths are appended to it');
  return s.replace(/\/+$/, '');
}

/** A mapping whose values are strings, numbers or booleans (attributes, headers), kept as they are. */
export function optScalarMap(v: unknown, key: string): Record<string, string | number | boolean> {
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) throw new ConfigError(key, 'must be a mapping of names to values');
  const out: Record<string, string | number | boolean> = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== 'string' && typeof val !== 'number' && typeof val !== 'boolean') {
      throw new ConfigError(`${key}.${k}`, 'must be a string, number or boolean');
    }
    out[k] = val;
  }
  return out;
}

/** A map of string values (YAML mapping), e.g. headers or resource attributes. */
export function optStringMap(v: unknown, key: string): Record<string, string> {
  return Object.fromEntries(Object.entries(optScalarMap(v, key)).map(([k, val]) => [k, String(val)]));
}

/** `k1=v1,k2=v2` as used by OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES (values URL-encoded). */
export function parseKeyValueList(text: string, key: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new ConfigError(key, 'must be a comma-separated list of name=value pairs');
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      throw new ConfigError(key, `value of "${name}" is not valid percent-encoding`);
    }
    out[name] = value;
  }
  return out;
}
