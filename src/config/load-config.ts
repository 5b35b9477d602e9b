// Builds the BridgeConfig from the YAML file and the environment, once, at start. The environment
// overrides the file (docs/design.md "The operator contract"). Every problem is a ConfigError naming its key,
// all of a configuration's problems are reported together; the CLI prints them and exits with code 2.
import { FileTooLargeError, readTextFileBounded } from '../util/read-bounded.js';
import { parseYaml } from './yaml.js';
import { substituteEnv } from './env-substitution.js';
import { ConfigError, ConfigErrors, ConfigProblems, UnknownKeyError } from './errors.js';
import { CONFIG_FILE } from './config-keys.js';
import { shapeProblems } from './config-shape.js';
import { upstreamTls } from './tls.js';
import { proxyVariableProblem } from '../util/proxy-env.js';
import type { BridgeConfig, SessionSpec, StartPosition } from './schema.js';
import { buildExporter } from './exporter-section.js';
import {
  envFlag,
  fileFlag,
  isRecord,
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
import { DISCOVERY_DEFAULTS, parseDiscovery } from './discovery-section.js';
import { controlToken, parseHostNames, parseListen } from './http-surface-keys.js';
import { headerValueProblem } from '../util/header-value.js';
import { setVariables } from './env-values.js';

export type { Env } from './env-substitution.js';
import type { Env } from './env-substitution.js';
import { MAX_CONFIG_BYTES, MAX_KEY_FILE_BYTES } from './file-limits.js';

const MAX_WORKERS = 64;

const formatSize = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;
const STARTS: readonly StartPosition[] = ['oldest', 'latest'];

/** Reads and validates the file named by `path` (or BRIDGE_CONFIG), then applies the environment. */
export function loadConfig(path: string | undefined, processEnv: Env = process.env): BridgeConfig {
  // One rule for every variable (env-values.ts): blank is unset. Applied once, here, so no reader below decides again.
  const env = setVariables(processEnv);
  const configPath = path ?? env.BRIDGE_CONFIG?.trim();
  let raw: Raw = {};
  if (configPath) {
    // A file that cannot be read is named by what pointed at it; problems inside it by key.
    const fileKey = path !== undefined ? '--config' : 'BRIDGE_CONFIG';
    let text: string;
    try {
      text = readTextFileBounded(configPath, MAX_CONFIG_BYTES);
    } catch (err) {
      throw new ConfigError(fileKey, readProblem(configPath, err, 'a configuration file'));
    }
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (err) {
      throw new ConfigError('config', `${configPath} is not valid YAML: ${yamlProblem(err)}`);
    }
    if (doc !== null && doc !== undefined && !isRecord(doc))
      throw new ConfigError('config', `${configPath} must contain a YAML mapping`);
    const unset = new ConfigProblems();
    raw = substituteEnv(doc ?? {}, env, '', unset) as Raw;
    if (unset.list.length > 0) {
      // Reported with every other problem of the configuration; a key whose variable is unset is
      // named once for its value (left out, it would otherwise also read as missing), and once more
      // when the key itself is misspelt: that is a second mistake to fix, not a consequence.
      const named = new Set(unset.list.map((q) => q.key));
      try {
        buildConfig(raw, env, configPath);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        const problems = err instanceof ConfigErrors ? err.problems : [err];
        unset.add(...problems.filter((q) => q instanceof UnknownKeyError || !named.has(q.key)));
      }
      unset.throwIfAny();
    }
  }
  return buildConfig(raw, env, configPath);
}

/**
 * Pure: file contents (already parsed) + environment → config. Every problem is reported at once:
 * the file's shape against the declared keys (config-shape.ts) and each independent part's value,
 * a ConfigErrors when there are several.
 */
// Unknown keys are the shape walk's (config-shape.ts), which reports all of them; the parts below
// read values only.
export function buildConfig(raw: Raw, processEnv: Env, configPath?: string): BridgeConfig {
  const env = setVariables(processEnv);
  const p = new ConfigProblems();
  p.add(...shapeProblems(raw, CONFIG_FILE, ''));
  const config = readConfig(raw, env, p, configPath);
  p.throwIfAny();
  // Every part that could fail has its value: throwIfAny() left when one had none.
  return config as BridgeConfig;
}

/** The parts of the configuration, each read on its own so that one's problem does not hide another's. */
function readConfig(raw: Raw, env: Env, p: ConfigProblems, configPath: string | undefined) {
  const upstream = p.take(() => readUpstream(raw, env), undefined);
  const start = p.take(
    () => optEnum(env.BRIDGE_START, STARTS, 'BRIDGE_START') ?? optEnum(raw.start, STARTS, 'start') ?? 'oldest',
    'oldest',
  );
  const sessions: SessionSpec[] = p.take(() => parseSessions(raw.sessions, 'sessions'), []);
  if (env.BRIDGE_SESSIONS) {
    // A set, not a search of the list per id: 40,000 ids took 5 s to load (and to reload).
    const listed = new Set(sessions.map((x) => x.id));
    for (const s of p.take(() => parseSessionList(env.BRIDGE_SESSIONS!, 'BRIDGE_SESSIONS'), [])) {
      if (!listed.has(s.id)) sessions.push(s);
      listed.add(s.id);
    }
  }

  const stateDir = p.take(() => {
    const state = section(raw, 'state', 'state');
    // Trimmed as the URLs are (readers.ts optUrl): an .env line's trailing blank named another directory.
    const dir = (optString(env.BRIDGE_STATE_DIR, 'BRIDGE_STATE_DIR') ?? optString(state.dir, 'state.dir'))?.trim();
    return dir || './state';
  }, './state');

  const spool = p.take(() => readSpool(raw, env), undefined);

  const listen = p.take(() => {
    const listenText = env.BRIDGE_LISTEN ?? (raw.listen === undefined ? '127.0.0.1:9464' : raw.listen);
    return parseListen(listenText, env.BRIDGE_LISTEN !== undefined ? 'BRIDGE_LISTEN' : 'listen');
  }, null);

  const exporter = p.take(() => buildExporter(section(raw, 'exporter', 'exporter'), env), undefined);
  const traces = p.take(() => {
    const tracesSection = section(raw, 'traces', 'traces');
    const enabled = p.take(
      () => envFlag(env.BRIDGE_TRACES, 'BRIDGE_TRACES') ?? fileFlag(tracesSection.enabled, 'traces.enabled') ?? false,
      false,
    );
    // The open span state is captured once per this interval (session/span-tap.ts); 0: at every batch.
    const stateIntervalMs = p.take(
      () => optDurationMs(tracesSection.state_interval, 'traces.state_interval', 0) ?? 5000,
      5000,
    );
    // A collector without a traces pipeline is asked again after this long (export/span-export.ts,
    // UNSUPPORTED_RETRY_MS); not under a second, a request loop against a collector that said no.
    const unsupportedRetryMs = p.take(
      () => optDurationMs(tracesSection.unsupported_retry, 'traces.unsupported_retry', 1000) ?? 300_000,
      300_000,
    );
    // Spans wait in memory only (export/span-export.ts); 16 MiB is tens of thousands of spans (a span
    // is 300-800 bytes), and a bridge with a small memory budget may want fewer.
    const queueMaxBytes = p.take(
      () => optBytes(tracesSection.queue_max_bytes, 'traces.queue_max_bytes', 64 * 1024) ?? 16 * 1024 * 1024,
      16 * 1024 * 1024,
    );
    // Built only when enabled, so a TRACES variable's mistake cannot stop a bridge that sends no spans.
    const tracesExporter = enabled ? buildExporter(section(raw, 'exporter', 'exporter'), env, 'traces') : exporter;
    return { enabled, exporter: tracesExporter, stateIntervalMs, unsupportedRetryMs, queueMaxBytes };
  }, undefined);
  const store = p.take(() => parseStoreConfig(raw, env), { kind: 'sqlite' } as const);
  const replica = p.take(() => replicaId(env), { id: '', explicit: false });
  const resource = p.take(() => readResource(raw, env, store, replica), undefined);

  const shutdownGraceMs = p.take(() => {
    const shutdown = section(raw, 'shutdown', 'shutdown');
    return optDurationMs(shutdown.grace, 'shutdown.grace', 0) ?? 10_000;
  }, 10_000);

  const config = {
    configPath,
    upstream,
    sessions,
    start,
    stateDir,
    store,
    replicaId: replica.id,
    spool,
    listen,
    controlToken: p.take(() => controlToken(env.BRIDGE_CONTROL_TOKEN, raw.control_token), undefined),
    controlAllowedHosts: p.take(() => parseHostNames(env.BRIDGE_CONTROL_ALLOWED_HOSTS, raw.control_allowed_hosts), []),
    maxSessions: p.take(
      () =>
        optInt(
          env.BRIDGE_MAX_SESSIONS ?? raw.max_sessions,
          env.BRIDGE_MAX_SESSIONS !== undefined ? 'BRIDGE_MAX_SESSIONS' : 'max_sessions',
          1,
          1_000_000,
        ) ?? 1000,
      1000,
    ),
    exporter,
    traces,
    resource,
    shutdownGraceMs,
    workers: p.take(() => parseWorkers(env.BRIDGE_WORKERS, raw.workers), 'auto'),
    memoryLimitBytes: p.take(() => memoryLimit(env.BRIDGE_MEMORY_LIMIT, raw.memory_limit), undefined),
    mapping: p.take(
      () => (raw.mapping === undefined ? defaultMappingOptions : parseMappingOptions(raw.mapping, 'mapping')),
      defaultMappingOptions,
    ),
    discovery: p.take(() => parseDiscovery(raw, env), DISCOVERY_DEFAULTS),
  };
  return config;
}

function readUpstream(raw: Raw, env: Env): BridgeConfig['upstream'] {
  const p = new ConfigProblems();
  const up = section(raw, 'upstream', 'upstream');
  const upBackoff = section(up, 'backoff', 'upstream.backoff');

  // Both peers are reached through these: a value no request could use is a load error, not a
  // failure of every request (or, before, of the process).
  p.take(() => {
    const proxy = proxyVariableProblem(env);
    if (proxy) throw new ConfigError(proxy.variable, proxy.problem);
  }, undefined);

  const url = p.take(() => {
    const u = optUrl(env.BROWSER_API_URL, 'BROWSER_API_URL') ?? optUrl(up.url, 'upstream.url');
    if (!u) throw new ConfigError('upstream.url', 'is required (or set BROWSER_API_URL)');
    return u;
  }, '');
  const [apiKey, apiKeyFile] = p.take(() => {
    const keyName = env.BROWSER_API_KEY ? 'BROWSER_API_KEY' : 'upstream.api_key';
    // Trimmed as the key file is (api-key.ts): a Secret mounted as a variable often keeps the line
    // end of the file it was made from, and node:http refuses a header with one (ERR_INVALID_CHAR),
    // so every request failed as if the service were unreachable.
    const key = (
      optString(env.BROWSER_API_KEY, 'BROWSER_API_KEY') ?? optString(up.api_key, 'upstream.api_key')
    )?.trim();
    const keyProblem = key ? headerValueProblem(key) : undefined;
    if (keyProblem) throw new ConfigError(keyName, `the key ${keyProblem} (the key is not shown)`);
    const file =
      optString(env.BROWSER_API_KEY_FILE, 'BROWSER_API_KEY_FILE') ??
      optString(up.api_key_file, 'upstream.api_key_file');
    if (!key && !file)
      throw new ConfigError('upstream.api_key', 'an API key is required: set BROWSER_API_KEY or BROWSER_API_KEY_FILE');
    // Checked even when a key is also given: a file named and missing is a mistake (a key left in the
    // shell would otherwise hide it until the day that variable is gone).
    if (file) {
      let text: string;
      try {
        text = readTextFileBounded(file, MAX_KEY_FILE_BYTES);
      } catch (err) {
        const named = env.BROWSER_API_KEY_FILE ? 'BROWSER_API_KEY_FILE' : 'upstream.api_key_file';
        const keyToo = key
          ? ` (${env.BROWSER_API_KEY ? 'BROWSER_API_KEY' : 'upstream.api_key'} is set too, but a key file that is named must exist: remove ${named} to use the key alone)`
          : '';
        throw new ConfigError(named, readProblem(file, err, 'a key file') + keyToo);
      }
      const fileProblem = headerValueProblem(text.trim());
      if (fileProblem)
        throw new ConfigError(
          env.BROWSER_API_KEY_FILE ? 'BROWSER_API_KEY_FILE' : 'upstream.api_key_file',
          `the key in ${file} ${fileProblem} (the key is not shown)`,
        );
    }
    return [key, file];
  }, [undefined, undefined]);
  const duration = (v: unknown, key: string, min: number, fallback: number): number =>
    p.take(() => optDurationMs(v, key, min) ?? fallback, fallback);
  const upstream: BridgeConfig['upstream'] = {
    url,
    apiKey,
    apiKeyFile,
    idleTimeoutMs: duration(up.idle_timeout, 'upstream.idle_timeout', 100, 45_000),
    connectTimeoutMs: duration(up.connect_timeout, 'upstream.connect_timeout', 100, 10_000),
    readPacingMs: p.take(() => readPacing(env.BRIDGE_READ_PACING, up.read_pacing), DEFAULT_READ_PACING_MS),
    backoff: {
      initialMs: duration(upBackoff.initial, 'upstream.backoff.initial', 1, 500),
      maxMs: duration(upBackoff.max, 'upstream.backoff.max', 1, 30_000),
      // A minute: a rotated key file is re-read at every retry, and a fixed key shows up soon.
      authMs: duration(upBackoff.auth, 'upstream.backoff.auth', 1, 60_000),
    },
    poolRefreshMs: duration(up.pool_refresh, 'upstream.pool_refresh', 1000, 300_000),
    tls: p.take(() => upstreamTls(env, up), {}),
    archive: p.take(() => optEnum(up.archive, ['auto', 'off'] as const, 'upstream.archive') ?? 'auto', 'auto'),
    archiveRetryMs: duration(up.archive_retry, 'upstream.archive_retry', 0, 60_000), // session/owed-gap.ts OWED_FOR_MS
  };
  p.throwIfAny();
  return upstream;
}

function readSpool(raw: Raw, env: Env): BridgeConfig['spool'] {
  const p = new ConfigProblems();
  const spool = section(raw, 'spool', 'spool');
  const out = {
    mode: p.take(
      () =>
        optEnum(
          env.BRIDGE_SPOOL_MODE ?? spool.mode,
          ['overflow', 'always'] as const,
          env.BRIDGE_SPOOL_MODE !== undefined ? 'BRIDGE_SPOOL_MODE' : 'spool.mode',
        ) ?? 'overflow',
      'overflow' as const,
    ),
    memoryMaxBytes: p.take(() => optBytes(spool.memory_max_bytes, 'spool.memory_max_bytes', 64 * 1024), undefined),
    memoryMaxAgeMs: p.take(() => optDurationMs(spool.memory_max_age, 'spool.memory_max_age', 1) ?? 10_000, 10_000),
    maxBytes: p.take(() => optBytes(spool.max_bytes, 'spool.max_bytes', 1024 * 1024) ?? 256 * 1024 * 1024, 0),
    commitMaxRecords: p.take(() => optInt(spool.commit_max_records, 'spool.commit_max_records', 1, 100_000) ?? 5000, 0),
    commitIntervalMs: p.take(() => optDurationMs(spool.commit_interval, 'spool.commit_interval', 1) ?? 200, 0),
  };
  p.throwIfAny();
  return out;
}

function readResource(
  raw: Raw,
  env: Env,
  store: BridgeConfig['store'],
  replica: { id: string; explicit: boolean },
): BridgeConfig['resource'] {
  const svc = section(raw, 'service', 'service');
  const fileAttributes = optStringMap(svc.resource_attributes, 'service.resource_attributes');
  const envAttributes = env.OTEL_RESOURCE_ATTRIBUTES
    ? parseKeyValueList(env.OTEL_RESOURCE_ATTRIBUTES, 'OTEL_RESOURCE_ATTRIBUTES')
    : {};
  const attributes = { ...fileAttributes, ...envAttributes };
  // The environment wins over the file, as everywhere else; within each, the dedicated name wins
  // over the one among the attributes (OTEL_SERVICE_NAME over OTEL_RESOURCE_ATTRIBUTES, as the
  // OpenTelemetry specification orders them).
  const serviceName =
    optString(env.OTEL_SERVICE_NAME, 'OTEL_SERVICE_NAME') ??
    envAttributes['service.name'] ??
    optString(svc.name, 'service.name') ??
    fileAttributes['service.name'] ??
    'browser-telemetry-bridge';
  // A named replica (or one of several sharing a store) is who exported a record.
  return {
    serviceName,
    attributes,
    ...(replica.explicit || store.kind === 'postgres' ? { instanceId: replica.id } : {}),
  };
}

/**
 * The read pacing's default: about four frames a read at 20 events/s a stream, at most 200 ms more
 * latency (the OpenTelemetry Collector's batch processor waits as long by default). The heavy mix's
 * bridge CPU an event: 47.9 unpaced, 40.1-40.3 at 100 ms, 34.5-37.4 at 200, 38.4 at 300 (p99 1 s).
 */
const DEFAULT_READ_PACING_MS = 200;
/** Longer would hold a stream's bytes past what its kernel buffer and the latency of a live view allow. */
const MAX_READ_PACING_MS = 1000;

/** `upstream.read_pacing` (BRIDGE_READ_PACING): a duration from 0 (off) to MAX_READ_PACING_MS. */
function readPacing(envValue: string | undefined, fileValue: unknown): number {
  const key = envValue !== undefined ? 'BRIDGE_READ_PACING' : 'upstream.read_pacing';
  const ms = optDurationMs(envValue ?? fileValue, key, 0) ?? DEFAULT_READ_PACING_MS;
  if (ms > MAX_READ_PACING_MS) throw new ConfigError(key, `must be at most ${MAX_READ_PACING_MS} ms (got ${ms} ms)`);
  return ms;
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

/** BRIDGE_MEMORY_LIMIT / memory_limit: a size, or "off"; unset means the container's limit, if any. */
function memoryLimit(envValue: string | undefined, fileValue: unknown): number | 'off' | undefined {
  const [v, key] =
    envValue !== undefined && envValue !== '' ? [envValue, 'BRIDGE_MEMORY_LIMIT'] : [fileValue, 'memory_limit'];
  if (v === 'off' || v === false) return 'off';
  return optBytes(v, key, 32 * 1024 * 1024);
}

/** A file that cannot be read, in words rather than an errno. */
function readProblem(path: string, err: unknown, what: string): string {
  if (err instanceof FileTooLargeError) return `${path} is larger than ${formatSize(err.maxBytes)}: not ${what}?`;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `${path} does not exist`;
  if (code === 'EISDIR') return `${path} is a directory, not a file`;
  if (code === 'EACCES' || code === 'EPERM') return `${path} cannot be read: permission denied`;
  return `cannot read ${path}: ${code ?? (err as Error).message}`;
}

/** The YAML parser's first line ("… at line 2, column 1:"), without the colon that led to its excerpt. */
function yamlProblem(err: unknown): string {
  return String((err as Error).message)
    .split('\n')[0]!
    .replace(/:\s*$/, '');
}
