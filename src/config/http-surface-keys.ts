// The keys of the bridge's own HTTP surface (health, metrics, the control API): where it listens,
// the token its control API asks for, and the host names it answers to besides loopback.
import { ConfigError } from './errors.js';
import { optString } from './readers.js';
import { headerValueProblem } from '../util/header-value.js';

/** `listen` / BRIDGE_LISTEN: host:port of the HTTP surface, or off (null). */
export function parseListen(v: unknown, key: string): { host: string; port: number } | null {
  if (v === false || v === 'off' || v === 'none' || v === '') return null;
  // YAML reads `listen: 9464` as a number: the port alone, which says nothing of the address.
  if (typeof v === 'number')
    throw new ConfigError(
      key,
      `must be host:port, not a port alone (got ${v}): write "127.0.0.1:${v}", or "0.0.0.0:${v}" for every interface`,
    );
  if (typeof v !== 'string')
    throw new ConfigError(key, `must be host:port, e.g. 127.0.0.1:9464, or "off" (got ${JSON.stringify(v)})`);
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(v.trim());
  if (!m)
    throw new ConfigError(
      key,
      /^\d+$/.test(v.trim())
        ? `must be host:port, not a port alone (got "${v}"): write "127.0.0.1:${v.trim()}", or "0.0.0.0:${v.trim()}" for every interface`
        : `must be host:port, e.g. 127.0.0.1:9464 (got "${v}")`,
    );
  const port = Number(m[3]);
  if (port > 65535) throw new ConfigError(key, `port ${port} is out of range`);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

/**
 * BRIDGE_CONTROL_TOKEN / control_token, trimmed: a Secret made from a file keeps its final newline,
 * and no client can present one (a header value loses its surrounding whitespace; node:http refuses
 * a line break), so every control request answered 401. A token of whitespace only would be no
 * token, which opens the control API on loopback: refused rather than read as unset.
 */
export function controlToken(envValue: string | undefined, fileValue: unknown): string | undefined {
  const key = envValue !== undefined ? 'BRIDGE_CONTROL_TOKEN' : 'control_token';
  // The exception to "blank is unset" (env-values.ts): unset, the file's token or none would apply,
  // and none leaves the control API open on loopback; a variable set empty meant a token.
  if (envValue !== undefined && envValue.trim() === '')
    throw new ConfigError(key, 'is empty or only whitespace: give a token, or leave it unset');
  const raw = optString(envValue ?? fileValue, key);
  if (raw === undefined || raw === '') return raw;
  const token = raw.trim();
  if (token === '') throw new ConfigError(key, 'is only whitespace: give a token, or leave it unset');
  const problem = headerValueProblem(token);
  if (problem) throw new ConfigError(key, `the token ${problem} (the token is not shown)`);
  return token;
}

/**
 * control_allowed_hosts: names besides loopback literals and `localhost` that the HTTP surface
 * answers to (a Host header on a loopback listener, an Origin on control requests).
 */
export function parseHostNames(envValue: string | undefined, fileValue: unknown): string[] {
  const key = envValue !== undefined ? 'BRIDGE_CONTROL_ALLOWED_HOSTS' : 'control_allowed_hosts';
  const v: unknown = envValue !== undefined ? envValue.split(',') : fileValue;
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ConfigError(key, 'must be a list of host names');
  return v.map((n, i) => {
    if (typeof n !== 'string' || !/^[A-Za-z0-9.:_-]+$/.test(n.trim()))
      throw new ConfigError(`${key}[${i}]`, 'must be a host name or address without port or scheme');
    return n.trim().toLowerCase();
  });
}
