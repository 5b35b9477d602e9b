// The configuration file's keys, declared once: what each key holds and what it means. Everything
// that lists keys reads them from here: the parsers' unknown-key checks (readers.ts onlyKeys), the
// walk that reports every unknown or misplaced key of a file at once (config-shape.ts), the JSON
// Schema editors complete and check against (json-schema.ts → config/bridge.schema.json, kept equal
// by a test) and the test that the example file shows every key.
//
// The declaration says the shape (section, list, scalar kind); the parsers say the rules a schema
// cannot (a key file that must exist, a URL scheme, limits that depend on another key).

/** What a leaf holds. `duration`: milliseconds or "45s"; `size`: bytes or "256MiB". */
export type Scalar = 'string' | 'url' | 'boolean' | 'integer' | 'duration' | 'size';

export type KeyNode =
  | { kind: 'section'; doc: string; keys: Readonly<Record<string, KeyNode>> }
  | { kind: 'scalar'; doc: string; type: Scalar; values?: readonly string[]; min?: number; max?: number }
  | { kind: 'list'; doc: string; items: KeyNode }
  /** A mapping of names the user chooses (headers, attributes, tags) to scalars. */
  | { kind: 'map'; doc: string }
  /** One of several shapes (a session: an id or a mapping). */
  | { kind: 'either'; doc: string; options: readonly KeyNode[] };

export interface SectionNode<K extends Record<string, KeyNode>> {
  kind: 'section';
  doc: string;
  keys: K;
}

const section = <K extends Record<string, KeyNode>>(doc: string, keys: K): SectionNode<K> => ({
  kind: 'section',
  doc,
  keys,
});
const scalar = (type: Scalar, doc: string, more: { values?: readonly string[]; min?: number; max?: number } = {}) =>
  ({ kind: 'scalar', doc, type, ...more }) as const;
const oneOf = (values: readonly string[], doc: string) => scalar('string', doc, { values });
const names = (doc: string): KeyNode => ({ kind: 'list', doc, items: scalar('string', 'a name') });
const map = (doc: string): KeyNode => ({ kind: 'map', doc });
const either = (doc: string, ...options: KeyNode[]): KeyNode => ({ kind: 'either', doc, options });

const START = ['oldest', 'latest'] as const;

const sessionEntry = section('A session to follow, with its pool, start position and attributes.', {
  id: scalar('string', 'The session id.'),
  pool: scalar('string', 'Pool id or name: browser.pool.* attributes and telemetry warnings.'),
  start: either(
    'Where the session starts without a checkpoint: oldest, latest, or a seq to resume after.',
    oneOf(START, 'oldest or latest'),
    scalar('integer', 'a seq to resume after', { min: 0 }),
  ),
  attributes: map('Attributes added to every record of the session.'),
});

/** The whole file. */
export const CONFIG_FILE = section('browser-telemetry-bridge configuration.', {
  upstream: section('The browser session service.', {
    url: scalar('url', 'Base URL of the service (env BROWSER_API_URL).'),
    api_key: scalar('string', 'The API key itself (env BROWSER_API_KEY); prefer api_key_file.'),
    api_key_file: scalar('string', 'A file holding the API key, re-read on 401 (env BROWSER_API_KEY_FILE).'),
    idle_timeout: scalar('duration', 'No bytes for this long means a dead connection (default 45s).'),
    connect_timeout: scalar('duration', 'TCP + TLS + response headers of one stream request (default 10s).'),
    read_pacing: scalar(
      'duration',
      'A busy ingest worker reads its streams at most once per this interval, so a read takes several frames (default 200ms; 0: as bytes arrive; env BRIDGE_READ_PACING).',
    ),
    backoff: section('Waits between reconnects.', {
      initial: scalar('duration', 'First wait after a failed or closed stream (default 500ms).'),
      max: scalar('duration', 'Longest wait between reconnects (default 30s).'),
      auth: scalar('duration', 'Wait after 401/403, each session between half of it and all of it (default 1m).'),
    }),
    pool_refresh: scalar('duration', 'How often pools are looked up again (default 5m).'),
    ca_file: scalar('string', "PEM file of a private CA for the service's certificate (env BROWSER_API_CA_FILE)."),
    archive: oneOf(['auto', 'off'], "auto: repair gaps from the service's archive; off: never read it."),
    archive_retry: scalar(
      'duration',
      'A gap whose archive read fails is read again for this long, its session waiting, before it is recorded as lost (default 1m; 0: at once).',
    ),
  }),
  sessions: {
    kind: 'list',
    doc: 'Sessions to follow: ids or mappings (env BRIDGE_SESSIONS appends ids).',
    items: either('A session id, or a mapping with one.', scalar('string', 'A session id.'), sessionEntry),
  },
  discovery: section('Follow every session the service lists that matches a selector.', {
    enabled: scalar('boolean', 'Switches discovery on (env BRIDGE_DISCOVER).'),
    tags: map('Tags every followed session must carry (env BRIDGE_DISCOVER_TAGS).'),
    query: scalar('string', "The service's substring match (env BRIDGE_DISCOVER_QUERY)."),
    region: scalar(
      'string',
      "Only sessions of this region, the service's own filter: us-east or eu-west (env BRIDGE_DISCOVER_REGION).",
    ),
    interval: scalar('duration', 'Time between two polls of the list (default 10s; env BRIDGE_DISCOVER_INTERVAL).'),
    start: oneOf(START, 'Where a discovered session starts (default oldest).'),
    project: scalar('string', 'A project id sent as X-Kernel-Project-Id.'),
  }),
  start: oneOf(START, 'Where a session without a checkpoint starts (default oldest; env BRIDGE_START).'),
  state: section('Local state.', {
    dir: scalar('string', 'The state directory (default ./state; env BRIDGE_STATE_DIR).'),
  }),
  store: section('The shared PostgreSQL store; absent: SQLite in the state directory.', {
    url: scalar('string', 'A postgres:// URL (env BRIDGE_STORE_URL).'),
    password_file: scalar('string', 'A file holding the password (env BRIDGE_STORE_PASSWORD_FILE).'),
    lease: scalar('duration', "A replica's lease without renewal (default 10s; env BRIDGE_STORE_LEASE)."),
  }),
  spool: section('Where records wait: memory first, the store as overflow (or always the store).', {
    mode: oneOf(
      ['overflow', 'always'],
      'overflow (default): records wait in memory and spill to the store when the collector falls behind; always: every record is on disk before its checkpoint moves (env BRIDGE_SPOOL_MODE).',
    ),
    memory_max_bytes: scalar(
      'size',
      'overflow: bytes records may hold in memory before they spill (default 64MiB or budget/8).',
    ),
    memory_max_age: scalar('duration', 'overflow: a record waiting longer than this spills (default 10s).'),
    max_bytes: scalar('size', 'Upper bound of spooled bytes; reading stops at it (default 256MiB).'),
    commit_max_records: scalar('integer', 'A spool transaction commits after this many records.', {
      min: 1,
      max: 100_000,
    }),
    commit_interval: scalar('duration', '... or after this long (default 200ms).'),
  }),
  listen: either(
    'host:port of the HTTP surface (default 127.0.0.1:9464), or off (env BRIDGE_LISTEN).',
    scalar('string', 'host:port, or off'),
    scalar('boolean', 'false: no HTTP surface'),
  ),
  control_token: scalar('string', 'Bearer token of the control API (env BRIDGE_CONTROL_TOKEN).'),
  control_allowed_hosts: names('Host names besides loopback the HTTP surface answers to.'),
  max_sessions: scalar('integer', 'Sessions followed at most (default 1000; env BRIDGE_MAX_SESSIONS).', {
    min: 1,
    max: 1_000_000,
  }),
  exporter: section('The OTLP collector (the OTEL_EXPORTER_OTLP_* variables override it).', {
    endpoint: scalar('string', 'Collector URL (OTLP/HTTP) or address (gRPC).'),
    protocol: oneOf(['http/protobuf', 'http/json', 'grpc'], 'OTLP protocol (default http/protobuf).'),
    headers: map('Headers sent with every request.'),
    compression: oneOf(['gzip', 'none'], 'Request compression (default none).'),
    timeout: scalar('duration', 'Timeout of one export request (default 10s).'),
    batch_max_records: scalar('integer', 'Records per request at most (default 1000).', { min: 1, max: 50_000 }),
    batch_max_bytes: scalar('size', 'Request body bytes at most.'),
    concurrency: scalar('integer', 'Requests in flight at once (default 4).', { min: 1, max: 64 }),
    backoff: section('Waits between export retries.', {
      initial: scalar('duration', 'First wait (default 250ms).'),
      max: scalar('duration', 'Longest wait (default 30s).'),
    }),
    tls: section('A private CA and/or a client certificate for the collector.', {
      ca_file: scalar('string', 'PEM file of the CA.'),
      cert_file: scalar('string', 'PEM file of the client certificate.'),
      key_file: scalar('string', 'PEM file of the client key.'),
    }),
    insecure: scalar('boolean', 'gRPC without a scheme: plaintext instead of TLS.'),
  }),
  traces: section('Spans: one trace per navigation, sent to the same collector (docs/traces.md).', {
    enabled: scalar('boolean', 'Builds and sends spans (env BRIDGE_TRACES; default false).'),
    state_interval: scalar(
      'duration',
      "A session's open spans are saved with its checkpoint once per this interval, the sessions in five phases spread over it (a large state less often, up to 60s): a kill -9 reads that much more again (default 5s; 0: every batch).",
    ),
    unsupported_retry: scalar(
      'duration',
      'How long spans wait before the collector is asked again when it has no traces pipeline (404, gRPC UNIMPLEMENTED); default 5m, at least 1s.',
    ),
    queue_max_bytes: scalar(
      'size',
      'Bytes of spans waiting in memory at most; beyond it the oldest are dropped and counted (default 16MiB, at least 64KiB).',
    ),
  }),
  service: section('The resource of every record.', {
    name: scalar('string', 'service.name (default browser-telemetry-bridge; env OTEL_SERVICE_NAME).'),
    resource_attributes: map('More resource attributes (env OTEL_RESOURCE_ATTRIBUTES).'),
  }),
  shutdown: section('Clean shutdown.', {
    grace: scalar('duration', 'Time to flush the spool on SIGTERM (default 10s).'),
  }),
  memory_limit: either(
    "The memory budget (default: the container's limit; env BRIDGE_MEMORY_LIMIT).",
    scalar('size', 'bytes'),
    oneOf(['off'], 'no budget'),
    scalar('boolean', 'false: no budget'),
  ),
  workers: either(
    'Ingest worker threads (default auto; env BRIDGE_WORKERS).',
    oneOf(['auto'], 'one per core beyond the first'),
    scalar('integer', 'a count; 0: none', { min: 0, max: 64 }),
  ),
  mapping: section('Event → record: redaction, screenshots, size, body format, filters.', {
    redaction: section('Masking of secrets in records.', {
      enabled: scalar('boolean', 'Master switch (default true).'),
      headers: names('Header names whose values are masked (replaces the default list).'),
      additional_headers: names('Header names masked besides the default list.'),
      query_params: names('Query parameter names whose values are masked (replaces the default list).'),
      additional_query_params: names('Query parameter names masked besides the default list.'),
      url_userinfo: scalar('boolean', 'Mask user:password@ in URLs (default true).'),
      drop_post_data: scalar('boolean', 'Mask network_request.post_data (default false).'),
      drop_response_body: scalar('boolean', 'Mask network_response.body (default false).'),
      drop_api_call_code: scalar('boolean', 'Mask api_call.code (default false).'),
      mask_typed_keys: scalar('boolean', 'Mask typed characters (default true).'),
      mask_body_secrets: scalar(
        'boolean',
        'Mask secret-named keys inside bodies (JSON, forms, HTML fields) and JSON printed to the console, and values typed into secret fields in api_call.code (default true).',
      ),
      mask_jwts: scalar('boolean', 'Mask JSON Web Tokens wherever they appear (default true).'),
    }),
    screenshots: section('What happens to screenshot PNGs.', {
      policy: oneOf(['inline', 'drop', 'directory'], 'inline (default), drop, or directory.'),
      directory: scalar('string', 'Where the directory policy writes PNGs.'),
      max_record_bytes: scalar('size', 'Size limit of a record carrying a PNG inline (default 240KiB).'),
    }),
    max_record_bytes: scalar('size', "Upper bound of one record's encoded size (default 64KiB)."),
    body_format: oneOf(['map', 'json'], 'The body as an OTLP map (default) or a JSON string.'),
    filters: section('Which events become records.', {
      include_categories: names('Only these categories.'),
      exclude_categories: names('Not these categories.'),
      include_types: names('Only these event types.'),
      exclude_types: names('Not these event types.'),
      allow_unknown_types: scalar('boolean', 'Accept include_types that name no known type.'),
    }),
  }),
});

/** The key names a section accepts, in declaration order. */
export function keysOf(node: SectionNode<Record<string, KeyNode>>): readonly string[] {
  return Object.keys(node.keys);
}

/** The session entry's section: the control API's PUT body reads the same keys. */
export const SESSION_ENTRY = sessionEntry;
