// Builds the BridgeConfig from the YAML file and the environment, once, at start. The environment
// overrides the file (docs/design.md "The operator contract"). Every problem is a ConfigError naming its key;
// the CLI prints it and exits with code 2.
import { readFileSync } from 'node:fs';
import { parseYaml } from './yaml.js';
import { substituteEnv } from './env-substitution.js';
import { ConfigError } from './errors.js';
import { upstreamTls } from './tls.js';
import { proxyVariableProblem } from '../util/proxy-env.js';
import type { BridgeConfig, SessionSpec, StartPosition } from './schema.js';
import { buildExporter } from './exporter-section.js';
import {
  isRecord,
  onlyKeys,
  optBytes,
  optDurationMs,
  optEnum,
  optInt,
  optString,
  optStringMap,
  optUrl,
  parseKeyValueList,
  section,
  type Raw,
} from './readers.js';
import { parseSessions, parseSessionList } from './sessions.js';
import { parseStoreConfig, replicaId } from './store-config.js';
import { defaultMappingOptions, parseMappingOptions } from './mapping-section.js';
import { parseDiscovery } from './discovery-section.js';

export type { Env } from './env-substitution.js';
import type { Env } from './env-substitution.js';

const TOP_KEYS = [
  'upstream',
  'sessions',
  'start',
  'state',
  'store',
  'spool',
  'listen',
  'control_token',
  'control_allowed_hosts',
  'max_sessions',
  'exporter',
  'service',
  'shutdown',
  'mapping',
  'memory_limit',
  'workers',
  'discovery',
  'traces',
] as const;
const MAX_WORKERS = 64;
const STARTS: readonly StartPosition[] = ['oldest', 'latest'];

/** Reads and validates the file named by `path` (or BRIDGE_CONFIG), then applies the environment. */
export function loadConfig(path: string | undefined, env: Env = process.env): BridgeConfig {
  const configPath = path ?? (env.BRIDGE_CONFIG || undefined);
  let raw: Raw = {};
  if (configPath) {
    // A file that cannot be read is named by what pointed at it; problems inside it by key.
    const fileKey = path !== undefined ? '--config' : 'BRIDGE_CONFIG';
    let text: string;
    try {
      text = readFileSync(configPath, 'utf8');
    } catch (err) {
      throw new ConfigError(fileKey, readProblem(configPath, err));
    }
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (err) {
      throw new ConfigError('config', `${configPath} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
    }
    if (doc !== null && doc !== undefined && !isRecord(doc))
      throw new ConfigError('config', `${configPath} must contain a YAML mapping`);
    raw = substituteEnv(doc ?? {}, env) as Raw;
  }
  return buildConfig(raw, env, configPath);
}

/** Pure: file contents (already parsed) + environment → config. */
export function buildConfig(raw: Raw, env: Env, configPath?: string): BridgeConfig {
  onlyKeys(raw, TOP_KEYS, '');
  const up = section(raw, 'upstream', 'upstream');
  onlyKeys(
    up,
    [
      'url',
      'api_key',
      'api_key_file',
      'idle_timeout',
      'connect_timeout',
      'backoff',
      'pool_refresh',
      'ca_file',
      'archive',
    ],
    'upstream',
  );
  const upBackoff = section(up, 'backoff', 'upstream.backoff');
  onlyKeys(upBackoff, ['initial', 'max', 'auth'], 'upstream.backoff');

  // Both peers are reached through these: a value no request could use is a load error, not a
  // failure of every request (or, before, of the process).
  const proxy = proxyVariableProblem(env);
  if (proxy) throw new ConfigError(proxy.variable, proxy.problem);

  const url = optUrl(env.BROWSER_API_URL, 'BROWSER_API_URL') ?? optUrl(up.url, 'upstream.url');
  if (!url) throw new ConfigError('upstream.url', 'is required (or set BROWSER_API_URL)');
  const apiKey = optString(env.BROWSER_API_KEY, 'BROWSER_API_KEY') ?? optString(up.api_key, 'upstream.api_key');
  const apiKeyFile =
    optString(env.BROWSER_API_KEY_FILE, 'BROWSER_API_KEY_FILE') ?? optString(up.api_key_file, 'upstream.api_key_file');
  if (!apiKey && !apiKeyFile)
    throw new ConfigError('upstream.api_key', 'an API key is required: set BROWSER_API_KEY or BROWSER_API_KEY_FILE');
  // Checked even when a key is also given: a file named and missing is a mistake (a key left in the
  // shell would otherwise hide it until the day that variable is gone).
  if (apiKeyFile) {
    try {
      readFileSync(apiKeyFile, 'utf8');
    } catch (err) {
      const key = env.BROWSER_API_KEY_FILE ? 'BROWSER_API_KEY_FILE' : 'upstream.api_key_file';
      throw new ConfigError(key, readProblem(apiKeyFile, err));
    }
  }

  const start = optEnum(env.BRIDGE_START, STARTS, 'BRIDGE_START') ?? optEnum(raw.start, STARTS, 'start') ?? 'oldest';
  const sessions: SessionSpec[] = parseSessions(raw.sessions, 'sessions');
  if (env.BRIDGE_SESSIONS) {
    for (const s of parseSessionList(env.BRIDGE_SESSIONS, 'BRIDGE_SESSIONS')) {
      if (!sessions.some((x) => x.id === s.id)) sessions.push(s);
    }
  }

  const state = section(raw, 'state', 'state');
  onlyKeys(state, ['dir'], 'state');
  const stateDir =
    optString(env.BRIDGE_STATE_DIR, 'BRIDGE_STATE_DIR') ?? optString(state.dir, 'state.dir') ?? './state';

  const spool = section(raw, 'spool', 'spool');
  onlyKeys(
    spool,
    ['mode', 'max_bytes', 'memory_max_bytes', 'memory_max_age', 'commit_max_records', 'commit_interval'],
    'spool',
  );

  const listenText = env.BRIDGE_LISTEN ?? (raw.listen === undefined ? '127.0.0.1:9464' : raw.listen);
  const listen = parseListen(listenText, env.BRIDGE_LISTEN !== undefined ? 'BRIDGE_LISTEN' : 'listen');

  const exporter = buildExporter(section(raw, 'exporter', 'exporter'), env);
  const tracesSection = section(raw, 'traces', 'traces');
  onlyKeys(tracesSection, ['enabled'], 'traces');
  const tracesEnabled =
    flag(env.BRIDGE_TRACES, 'BRIDGE_TRACES') ?? flag(tracesSection.enabled, 'traces.enabled') ?? false;
  // Built only when enabled, so a TRACES variable's mistake cannot stop a bridge that sends no spans.
  const tracesExporter = tracesEnabled ? buildExporter(section(raw, 'exporter', 'exporter'), env, 'traces') : exporter;

  const svc = section(raw, 'service', 'service');
  onlyKeys(svc, ['name', 'resource_attributes'], 'service');
  const fileAttributes = optStringMap(svc.resource_attributes, 'service.resource_attributes');
  const envAttributes = env.OTEL_RESOURCE_ATTRIBUTES
    ? parseKeyValueList(env.OTEL_RESOURCE_ATTRIBUTES, 'OTEL_RESOURCE_ATTRIBUTES')
    : {};
  const resourceAttributes = { ...fileAttributes, ...envAttributes };
  // The environment wins over the file, as everywhere else; within each, the dedicated name wins
  // over the one among the attributes (OTEL_SERVICE_NAME over OTEL_RESOURCE_ATTRIBUTES, as the
  // OpenTelemetry specification orders them).
  const serviceName =
    optString(env.OTEL_SERVICE_NAME, 'OTEL_SERVICE_NAME') ??
    envAttributes['service.name'] ??
    optString(svc.name, 'service.name') ??
    fileAttributes['service.name'] ??
    'browser-telemetry-bridge';

  const store = parseStoreConfig(raw, env);
  const replica = replicaId(env);

  const shutdown = section(raw, 'shutdown', 'shutdown');
  onlyKeys(shutdown, ['grace'], 'shutdown');

  return {
    configPath,
    upstream: {
      url,
      apiKey,
      apiKeyFile,
      idleTimeoutMs: optDurationMs(up.idle_timeout, 'upstream.idle_timeout', 100) ?? 45_000,
      connectTimeoutMs: optDurationMs(up.connect_timeout, 'upstream.connect_timeout', 100) ?? 10_000,
      backoff: {
        initialMs: optDurationMs(upBackoff.initial, 'upstream.backoff.initial', 1) ?? 500,
        maxMs: optDurationMs(upBackoff.max, 'upstream.backoff.max', 1) ?? 30_000,
        // A minute: a rotated key file is re-read at every retry, and a fixed key shows up soon.
        authMs: optDurationMs(upBackoff.auth, 'upstream.backoff.auth', 1) ?? 60_000,
      },
      poolRefreshMs: optDurationMs(up.pool_refresh, 'upstream.pool_refresh', 1000) ?? 300_000,
      tls: upstreamTls(env, up),
      archive: optEnum(up.archive, ['auto', 'off'] as const, 'upstream.archive') ?? 'auto',
    },
    sessions,
    start,
    stateDir,
    store,
    replicaId: replica.id,
    spool: {
      mode:
        optEnum(
          env.BRIDGE_SPOOL_MODE ?? spool.mode,
          ['overflow', 'always'] as const,
          env.BRIDGE_SPOOL_MODE !== undefined ? 'BRIDGE_SPOOL_MODE' : 'spool.mode',
        ) ?? 'overflow',
      memoryMaxBytes: optBytes(spool.memory_max_bytes, 'spool.memory_max_bytes', 64 * 1024),
      memoryMaxAgeMs: optDurationMs(spool.memory_max_age, 'spool.memory_max_age', 1) ?? 10_000,
      maxBytes: optBytes(spool.max_bytes, 'spool.max_bytes', 1024 * 1024) ?? 256 * 1024 * 1024,
      commitMaxRecords: optInt(spool.commit_max_records, 'spool.commit_max_records', 1, 100_000) ?? 5000,
      commitIntervalMs: optDurationMs(spool.commit_interval, 'spool.commit_interval', 1) ?? 200,
    },
    listen,
    controlToken:
      optString(env.BRIDGE_CONTROL_TOKEN, 'BRIDGE_CONTROL_TOKEN') ?? optString(raw.control_token, 'control_token'),
    controlAllowedHosts: parseHostNames(env.BRIDGE_CONTROL_ALLOWED_HOSTS, raw.control_allowed_hosts),
    maxSessions:
      optInt(
        env.BRIDGE_MAX_SESSIONS ?? raw.max_sessions,
        env.BRIDGE_MAX_SESSIONS !== undefined ? 'BRIDGE_MAX_SESSIONS' : 'max_sessions',
        1,
        1_000_000,
      ) ?? 1000,
    exporter,
    traces: { enabled: tracesEnabled, exporter: tracesExporter },
    // A named replica (or one of several sharing a store) is who exported a record.
    resource: {
      serviceName,
      attributes: resourceAttributes,
      ...(replica.explicit || store.kind === 'postgres' ? { instanceId: replica.id } : {}),
    },
    shutdownGraceMs: optDurationMs(shutdown.grace, 'shutdown.grace', 0) ?? 10_000,
    workers: parseWorkers(env.BRIDGE_WORKERS, raw.workers),
    memoryLimitBytes: memoryLimit(env.BRIDGE_MEMORY_LIMIT, raw.memory_limit),
    mapping: raw.mapping === undefined ? defaultMappingOptions : parseMappingOptions(raw.mapping, 'mapping'),
    discovery: parseDiscovery(raw, env),
  };
}

/** A boolean from YAML (true/false) or the environment (true/false, case-insensitive); undefined when unset. */
function flag(v: unknown, key: string): boolean | undefined {
  if (v === undefined || v === '') return undefined;
  if (typeof v === 'boolean') return v;
  const s = typeof v === 'string' ? v.trim().toLowerCase() : undefined;
  if (s === 'true' || s === 'false') return s === 'true';
  throw new ConfigError(key, 'must be true or false');
}

/**
 * control_allowed_hosts: names besides loopback literals and `localhost` that the HTTP surface
 * answers to (a Host header on a loopback listener, an Origin on control requests).
 */
function parseHostNames(envValue: string | undefined, fileValue: unknown): string[] {
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

/** `workers`: a count (0: none) or "auto" (one per core beyond the first; see resolveWorkers). */
function parseWorkers(envValue: string | undefined, fileValue: unknown): number | 'auto' {
  const key = envValue !== undefined ? 'BRIDGE_WORKERS' : 'workers';
  const v = envValue ?? fileValue;
  if (v === undefined || v === 'auto') return 'auto';
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > MAX_WORKERS)
    throw new ConfigError(key, `must be "auto" or a whole number from 0 to ${MAX_WORKERS} (got ${JSON.stringify(v)})`);
  return n;
}

function parseListen(v: unknown, key: string): { host: string; port: number } | null {
  if (v === false || v === 'off' || v === 'none' || v === '') return null;
  if (typeof v !== 'string') throw new ConfigError(key, 'must be host:port, or "off"');
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(v.trim());
  if (!m) throw new ConfigError(key, `must be host:port, e.g. 127.0.0.1:9464 (got "${v}")`);
  const port = Number(m[3]);
  if (port > 65535) throw new ConfigError(key, `port ${port} is out of range`);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

/** BRIDGE_MEMORY_LIMIT / memory_limit: a size, or "off"; unset means the container's limit, if any. */
function memoryLimit(envValue: string | undefined, fileValue: unknown): number | 'off' | undefined {
  const [v, key] =
    envValue !== undefined && envValue !== '' ? [envValue, 'BRIDGE_MEMORY_LIMIT'] : [fileValue, 'memory_limit'];
  if (v === 'off' || v === false) return 'off';
  return optBytes(v, key, 32 * 1024 * 1024);
}

/** A file that cannot be read, in words rather than an errno. */
function readProblem(path: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `${path} does not exist`;
  if (code === 'EISDIR') return `${path} is a directory, not a file`;
  if (code === 'EACCES' || code === 'EPERM') return `${path} cannot be read: permission denied`;
  return `cannot read ${path}: ${code ?? (err as Error).message}`;
}
