// The validated configuration the rest of the bridge reads. Built once at start by load-config.ts
// from the YAML file and the environment (docs/design.md "The operator contract").
import type { MappingOptions } from './mapping-section.js';
import type { AttributeValue } from '../vocabulary/log-record.js';
import type { TlsFiles } from './tls.js';
import type { StoreConfig } from './store-config.js';

export type { StoreConfig } from './store-config.js';

export type StartPosition = 'oldest' | 'latest';
export type OtlpProtocol = 'http/protobuf' | 'http/json' | 'grpc';

/** Which OTLP signal an exporter carries: log records (/v1/logs) or spans (/v1/traces). */
export type OtlpSignal = 'logs' | 'traces';

/** One session to follow. */
export interface SessionSpec {
  id: string;
  /** Pool id or name, for enrichment and telemetry-off warnings. */
  pool?: string;
  /**
   * Why the pool the service's list named is not looked up (upstream/browser-list.ts): the
   * session's error in its status from the start.
   */
  poolProblem?: string;
  /** Where a session without a checkpoint starts; defaults to the global `start`. */
  start?: StartPosition | number;
  /** Extra attributes added to every record of the session. */
  attributes: Record<string, AttributeValue>;
}

export interface UpstreamConfig {
  url: string;
  apiKey?: string;
  apiKeyFile?: string;
  /** No bytes (not even a keepalive) for this long means a dead connection (docs/service-api.md "Stream telemetry events" rule 2). */
  idleTimeoutMs: number;
  connectTimeoutMs: number;
  /**
   * While an ingest worker reads many small chunks, it reads its streams at most once per this
   * interval (util/read-pacing.ts); 0: every stream is read as its bytes arrive.
   */
  readPacingMs: number;
  backoff: BackoffConfig;
  /** Pools are looked up again this often. */
  poolRefreshMs: number;
  /** A private CA for the service's certificate. */
  tls: TlsFiles;
  /** auto: repair gaps and unseen tails from the service's archive when it has one; off: never read it. */
  archive: 'auto' | 'off';
  /** How long a gap whose archive read failed is read again before it is recorded as lost (0: at once). */
  archiveRetryMs: number;
}

/** The `discovery:` section (config/discovery-section.ts). */
export interface DiscoveryConfig {
  enabled: boolean;
  /** Every pair must match (the service ANDs them); empty: no tag condition. */
  tags: Record<string, string>;
  /** The service's substring match on session id, name, profile, proxy id or pool name. */
  query?: string;
  /** The service's region filter (`us-east`, `eu-west`); absent: every region. */
  region?: string;
  /** Time between two polls of the list (per cluster with the shared store). */
  intervalMs: number;
  /** Where a discovered session starts: its oldest retained event, so its start is not missed. */
  start: StartPosition;
  /** A project id sent as X-Kernel-Project-Id, as the SDKs select one; absent: the key's default. */
  project?: string;
}

export interface BackoffConfig {
  initialMs: number;
  maxMs: number;
  /** Long wait after 401/403: retrying fast cannot fix a bad key or a missing permission. */
  authMs: number;
}

/**
 * overflow: records wait in memory and the spool takes only what the collector cannot take now;
 * always: every record is on disk before its checkpoint moves (a service without an archive).
 */
export type SpoolMode = 'overflow' | 'always';

export interface SpoolConfig {
  mode: SpoolMode;
  /** Overflow mode: records held in memory past these bytes (undefined: derived from the budget) … */
  memoryMaxBytes: number | undefined;
  /** … or waiting longer than this spill to the spool. */
  memoryMaxAgeMs: number;
  /** Upper bound of spooled record bytes; the subscribers stop reading at it (back-pressure). */
  maxBytes: number;
  /** A spool transaction commits after this many records or this many ms, whichever comes first. */
  commitMaxRecords: number;
  commitIntervalMs: number;
}

export interface ExporterConfig {
  /**
   * OTLP/HTTP: the full URL of the logs endpoint (…/v1/logs). OTLP/gRPC: the collector's address as
   * http://host:port (plaintext) or https://host:port (TLS), the scheme already resolved
   * (otlp-endpoint.ts).
   */
  url: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  compression: 'gzip' | 'none';
  timeoutMs: number;
  batchMaxRecords: number;
  /** Request body bytes (before compression) at most; a single larger record goes alone. */
  batchMaxBytes: number;
  /** Requests in flight at once. */
  concurrency: number;
  backoff: { initialMs: number; maxMs: number };
  /** A private CA and/or a client certificate for the collector. */
  tls: TlsFiles;
}

export interface BridgeConfig {
  configPath?: string;
  upstream: UpstreamConfig;
  sessions: SessionSpec[];
  start: StartPosition;
  stateDir: string;
  /** SQLite in stateDir (default), or the shared PostgreSQL store. */
  store: StoreConfig;
  /** This process's name among replicas sharing a store (BRIDGE_REPLICA_ID). */
  replicaId: string;
  spool: SpoolConfig;
  /** HTTP surface (health, metrics, control); null disables it. */
  listen: { host: string; port: number } | null;
  controlToken?: string;
  /** Host names besides loopback and `localhost` the HTTP surface answers to (DNS-rebinding guard). */
  controlAllowedHosts: string[];
  /** Sessions followed at most; a PUT of one more answers 429. */
  maxSessions: number;
  exporter: ExporterConfig;
  /**
   * Spans beside the records (docs/traces.md): `traces.enabled` / BRIDGE_TRACES, and their exporter,
   * the logs exporter's settings with the OTEL_EXPORTER_OTLP_TRACES_* variables and /v1/traces.
   */
  traces: {
    enabled: boolean;
    exporter: ExporterConfig;
    /** `traces.state_interval`: a session's open span state is captured once per this interval, on its phase's lines (session/span-tap.ts). */
    stateIntervalMs: number;
    /** `traces.unsupported_retry`: how long spans wait before a collector without a traces pipeline is asked again. */
    unsupportedRetryMs: number;
    /** `traces.queue_max_bytes`: bytes of spans waiting in memory at most; the oldest are dropped beyond it. */
    queueMaxBytes: number;
  };
  resource: { serviceName: string; attributes: Record<string, string>; instanceId?: string };
  shutdownGraceMs: number;
  /** Ingest worker threads (reading, mapping, encoding); 0 does everything on the main thread. */
  workers: number | 'auto';
  /** The memory budget: bytes, 'off', or undefined for the container's limit (if any). */
  memoryLimitBytes: number | 'off' | undefined;
  mapping: MappingOptions;
  /** Following the service's sessions by a selector instead of by name. */
  discovery: DiscoveryConfig;
}
