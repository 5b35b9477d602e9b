// The bridge's Prometheus metrics (prom-registry.ts), one registry per process. Counters move only
// through facts (fact-metrics.ts); gauges are read from their sources when scraped. Label sets are
// bounded by design: no per-session label (a thousand sessions would make a thousand series per
// metric); per-session numbers live in GET /v1/sessions. Every labelled series whose label values are known
// in advance exists from the start at zero: `rate()` and `increase()` over a series that appears
// with its first increment miss that increment, and an alert on a missing series never fires.
import { Registry, type Counter } from './prom-registry.js';
import { registerProcessMetrics } from './process-metrics.js';
import { CATEGORIES } from '../vocabulary/event-types.js';
import { DISCOVERY_OUTCOMES, type RedactionKind, type RejectReason, type SpanDropReason } from '../vocabulary/facts.js';
import { RECONNECT_REASONS, SUBSCRIBER_STATES } from '../vocabulary/session-states.js';
import { BRIDGE_VERSION } from '../util/version.js';

const KNOWN_CATEGORIES = new Set(CATEGORIES);

/** Label values known in advance, each created at zero when the registry is. */
export const LABEL_VALUES = {
  category: [...CATEGORIES, 'other'],
  reconnectReason: RECONNECT_REASONS,
  sessionState: SUBSCRIBER_STATES,
  rejectedReason: ['partial_success', 'invalid', 'too_large', 'corrupt'] satisfies RejectReason[],
  spanDropReason: ['refused', 'rejected', 'overflow', 'shutdown'] satisfies SpanDropReason[],
  /** `http_<status>` outcomes appear as the collector answers them; the status set is open. */
  exportOutcome: [
    'success',
    'network',
    'timeout',
    'http_429',
    'http_503',
    'grpc_unavailable',
    'grpc_resource_exhausted',
  ],
  exportDurationOutcome: ['success', 'failure'],
  oversizedAction: ['strings_truncated', 'attributes_cut', 'body_cut', 'screenshot_dropped'],
  screenshotOutcome: ['written', 'write_failed'],
  redactionKind: [
    'header',
    'url',
    'post_data',
    'response_body',
    'api_call_code',
    'typed_key',
    'source_metadata',
    'jwt',
    'auth_credential',
    'console_text',
  ] satisfies RedactionKind[],
  reloadOutcome: ['applied', 'rejected'],
  leaseOutcome: ['success', 'failure'],
  handoverKind: ['claimed', 'handed_over', 'lost'],
  discoveryOutcome: DISCOVERY_OUTCOMES,
  discoveredStatus: ['active', 'deleted'],
  sessionSource: ['config', 'api', 'discovery'],
  heldStage: ['pending', 'ready', 'sending'],
} as const;

/** Category label value: the catalogue's categories, anything else folded into "other". */
export function categoryLabel(category: string): string {
  return KNOWN_CATEGORIES.has(category) ? category : 'other';
}

export interface GaugeSources {
  /** `stale`: the store did not answer in time, and its part of the figures is the last it gave. */
  spool(): Promise<{ records: number; bytes: number; oldestTsMicros: number | null; stale?: boolean }>;
  sessionsByState(): Record<string, number>;
  /** Sessions waiting on an owed gap (session/owed-gap.ts); absent: none counted. */
  sessionsOwingGaps?(): number;
  pendingRecords(): number;
  /** Sessions this replica owns in the shared store; absent with the embedded store. */
  ownedSessions?(): number;
  /** Bytes of records held in memory, by stage (what the memory budget counts besides RSS). */
  heldBytes?(): { pending: number; ready: number; sending: number };
  /** What reading stops at now: spool.max_bytes, or less when the volume's free space says so. */
  spoolLimitBytes?(): number;
}

export function createMetrics(opts: { defaultMetrics?: boolean; spoolCapacityBytes?: number } = {}) {
  const registry = new Registry();
  // Process and runtime metrics under their standard names (process_cpu_seconds_total,
  // process_resident_memory_bytes, nodejs_eventloop_lag_seconds, …): the ones dashboards and alert
  // rules expect. A prefix would only double up ("bridge_process_process_…").
  if (opts.defaultMetrics !== false) registerProcessMetrics(registry);
  let sources: GaugeSources | undefined;
  // The shared store may be the very thing that is unreachable (and the scrape is how an operator
  // sees it): its figures then keep their last value, and every other series is still served.
  const spoolFigures = (): Promise<Awaited<ReturnType<GaugeSources['spool']>> | undefined> =>
    sources ? sources.spool().catch(() => undefined) : Promise.resolve(undefined);

  const m = {
    registry,
    eventsReceived: registry.counter({
      name: 'bridge_events_received_total',
      help: 'Telemetry events decoded from the streams (duplicates excluded).',
    }),
    eventsDelivered: registry.counter({
      name: 'bridge_events_delivered_total',
      help: 'Log records acknowledged by the collector (gap records included).',
    }),
    eventsFiltered: registry.counter({
      name: 'bridge_events_filtered_total',
      help: 'Events dropped by the configured filters before the spool.',
      labelNames: ['category'],
    }),
    eventsRejected: registry.counter({
      name: 'bridge_events_rejected_total',
      help: 'Records the collector refused and that were dropped, by reason: partial_success, invalid (400 alone), too_large (413 alone), corrupt (an unreadable spool row).',
      labelNames: ['reason'],
    }),
    spansExported: registry.counter({
      name: 'bridge_spans_exported_total',
      help: 'Spans acknowledged by the collector (traces.enabled).',
    }),
    spansDropped: registry.counter({
      name: 'bridge_spans_dropped_total',
      help: 'Spans not delivered: refused, rejected, over the span queue bound, or queued at shutdown.',
      labelNames: ['reason'],
    }),
    tracesUnsupported: registry.gauge({
      name: 'bridge_traces_unsupported',
      help: '1 while the collector answers that it has no traces pipeline (404 / UNIMPLEMENTED); records are not affected.',
    }),
    deliveryPaused: registry.gauge({
      name: 'bridge_delivery_paused',
      help: '1 while delivery from memory waits for checkpoint writes (shared store, writes failing or hanging): what a successor would send again stays bounded; 0 otherwise.',
    }),
    exportRefusing: registry.gauge({
      name: 'bridge_export_refusing',
      help: '1 while the collector refuses every record it is sent (400/413 for all): nothing is dropped, delivery backs off; 0 otherwise.',
    }),
    duplicates: registry.counter({
      name: 'bridge_events_duplicate_total',
      help: 'Frames dropped because their seq was already handled (replays after reconnect).',
    }),
    gapRecords: registry.counter({ name: 'bridge_gap_records_total', help: 'browser.telemetry_gap records emitted.' }),
    missingEvents: registry.counter({
      name: 'bridge_missing_events_total',
      help: 'Events covered by gap records (lost upstream or undecodable).',
    }),
    malformedFrames: registry.counter({
      name: 'bridge_malformed_frames_total',
      help: 'Frames that were not a valid envelope.',
    }),
    tailsUnknown: registry.counter({
      name: 'bridge_tails_unknown_total',
      help: 'Sessions (or service epochs) that ended unseen with a tail neither the stream nor the archive could supply.',
    }),
    archiveRepaired: registry.counter({
      name: 'bridge_archive_repaired_events_total',
      help: 'Events missing from the stream that were read from the service archive instead.',
    }),
    epochs: registry.counter({
      name: 'bridge_service_epochs_total',
      help: 'Times a stream restarted its sequence (service restart).',
    }),
    reconnects: registry.counter({
      name: 'bridge_reconnects_total',
      help: 'Stream reconnects by reason.',
      labelNames: ['reason'],
    }),
    exportRequests: registry.counter({
      name: 'bridge_export_requests_total',
      help: 'OTLP export requests by outcome.',
      labelNames: ['outcome'],
    }),
    exportUnrecognized: registry.counter({
      name: 'bridge_export_unrecognized_answers_total',
      help: 'Export requests answered 2xx with a body that is neither empty nor an OTLP response (a wrong endpoint path?).',
    }),
    exportDuration: registry.histogram({
      name: 'bridge_export_duration_seconds',
      help: 'OTLP export request latency.',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    }),
    sessionsRefused: registry.counter({
      name: 'bridge_sessions_refused_total',
      help: 'Sessions not followed because max_sessions sessions are: a PUT refused (source=api), or configured, discovered or claimed sessions left waiting for room.',
      labelNames: ['source'],
    }),
    configReloads: registry.counter({
      name: 'bridge_config_reloads_total',
      help: 'Configuration reloads (SIGHUP or file change) by outcome: applied, or rejected as invalid.',
      labelNames: ['outcome'],
    }),
    spoolCommitErrors: registry.counter({
      name: 'bridge_spool_commit_errors_total',
      help: 'Failed spool transactions (disk full, I/O error); retried.',
    }),
    oversized: registry.counter({
      name: 'bridge_records_oversized_total',
      help: 'Records above the maximum record size, by action taken.',
      labelNames: ['action'],
    }),
    screenshots: registry.counter({
      name: 'bridge_screenshots_total',
      help: 'monitor_screenshot events by policy outcome.',
      labelNames: ['outcome'],
    }),
    workerReads: registry.counter({
      name: 'bridge_worker_stream_reads_total',
      help: "Socket reads of the ingest workers' streams (upstream.read_pacing on); events received over reads is the frames a read carries.",
    }),
    readPacingSeconds: registry.counter({
      name: 'bridge_worker_read_pacing_seconds_total',
      help: 'Time the ingest workers waited for frames to gather before reading again (upstream.read_pacing).',
    }),
    readPacingWaits: registry.counter({
      name: 'bridge_worker_read_pacing_waits_total',
      help: 'Times the ingest workers waited for frames to gather (upstream.read_pacing); seconds over waits is the average wait.',
    }),
    redacted: registry.counter({
      name: 'bridge_records_redacted_total',
      help: 'Events in which redaction masked values, by kind (header, url, post_data, response_body, api_call_code, typed_key, source_metadata, jwt, console_text, auth_credential).',
      labelNames: ['kind'],
    }),
    spoolRecords: registry.gauge({
      name: 'bridge_spool_records',
      help: 'Records waiting for delivery: in the spool, and read but not yet committed to it.',
      async collect() {
        const s = await spoolFigures();
        if (s) this.set(s.records + sources!.pendingRecords());
      },
    }),
    spoolBytes: registry.gauge({
      name: 'bridge_spool_bytes',
      help: 'Bytes of records waiting in the spool.',
      async collect() {
        const s = await spoolFigures();
        if (s) this.set(s.bytes);
      },
    }),
    spoolStale: registry.gauge({
      name: 'bridge_spool_figures_stale',
      help: '1 while the store does not answer for the spool figures within a second (a database paused or cut off): bridge_oldest_undelivered_age_seconds is then the last the store gave; 0 otherwise.',
      async collect() {
        if (!sources) return;
        const s = await spoolFigures();
        this.set(s === undefined || s.stale === true ? 1 : 0);
      },
    }),
    oldestAge: registry.gauge({
      name: 'bridge_oldest_undelivered_age_seconds',
      help: 'Age (by event time) of the oldest undelivered record; 0 when none.',
      async collect() {
        const s = await spoolFigures();
        if (s) this.set(s.oldestTsMicros === null ? 0 : Math.max(0, Date.now() / 1000 - s.oldestTsMicros / 1e6));
      },
    }),
    sessions: registry.gauge({
      name: 'bridge_sessions',
      help: 'Sessions by state: the followed ones and those that ended or were removed during this run, as GET /v1/sessions lists them.',
      labelNames: ['state'],
      collect() {
        if (!sources) return;
        const counts = sources.sessionsByState();
        for (const state of new Set([...LABEL_VALUES.sessionState, ...Object.keys(counts)]))
          this.set({ state }, counts[state] ?? 0);
      },
    }),
    owedGaps: registry.gauge({
      name: 'bridge_archive_owed_gaps',
      help: 'Sessions waiting on a gap the archive could not be read for: owed, read again for upstream.archive_retry before it is recorded as lost (GET /v1/sessions owedGap).',
      collect() {
        this.set(sources?.sessionsOwingGaps?.() ?? 0);
      },
    }),
    heldBytes: registry.gauge({
      name: 'bridge_memory_held_bytes',
      help: 'Bytes of records held in memory, by stage: pending (read, not yet committed), ready (committed, waiting for delivery in memory), sending (in export requests).',
      labelNames: ['stage'],
      collect() {
        const h = sources?.heldBytes?.() ?? { pending: 0, ready: 0, sending: 0 };
        for (const stage of LABEL_VALUES.heldStage) this.set({ stage }, h[stage]);
      },
    }),
    ownedSessions: registry.gauge({
      name: 'bridge_owned_sessions',
      help: 'Sessions this replica owns in the shared store (0 with the embedded store).',
      collect() {
        if (sources?.ownedSessions) this.set(sources.ownedSessions());
      },
    }),
    leaseRenewals: registry.counter({
      name: 'bridge_lease_renewals_total',
      help: "Renewals of this replica's lease in the shared store, by outcome.",
      labelNames: ['outcome'],
    }),
    leaseExpirations: registry.counter({
      name: 'bridge_lease_expirations_total',
      help: 'Times the lease was not renewed within its safety margin and every session was given up.',
    }),
    handovers: registry.counter({
      name: 'bridge_session_handovers_total',
      help: 'Changes of ownership seen by this replica: claimed, handed_over (to the preferred replica), lost (taken by another).',
      labelNames: ['kind'],
    }),
    fencedWrites: registry.counter({
      name: 'bridge_fenced_writes_total',
      help: 'Spool commits refused because another replica owns the session now (writes of a replica that lost its lease).',
    }),
    discoveryPolls: registry.counter({
      name: 'bridge_discovery_polls_total',
      help: "Polls of the service's session list by outcome (skipped: another replica polled this interval; no_route: the service has no list).",
      labelNames: ['outcome'],
    }),
    discoveredSessions: registry.counter({
      name: 'bridge_discovered_sessions_total',
      help: 'Sessions discovery started following, by the status they were listed with (deleted: recovered after the bridge was down).',
      labelNames: ['status'],
    }),
    listedSessionsRefused: registry.counter({
      name: 'bridge_discovery_sessions_refused_total',
      help: "Sessions of the service's list whose id no request can carry (dots only, characters beyond letters, digits and ._~-, over 128 characters): never followed, each said once.",
    }),
    poolRefsRefused: registry.counter({
      name: 'bridge_discovery_pool_refs_refused_total',
      help: "Discovered sessions whose pool, as the service's list names it, cannot be requested (dots only, / \\ ? #, control characters, over 256 characters): followed without pool attributes, the reason in the session's lastError.",
    }),
    discoveryMatched: registry.gauge({
      name: 'bridge_discovery_matched_sessions',
      help: "Live sessions the discovery selector matched at this replica's last read of the whole live list (at start and every five minutes).",
    }),
    buildInfo: registry.gauge({
      name: 'bridge_build_info',
      help: 'Always 1; the labels say which bridge and which Node.js runtime are running.',
      labelNames: ['version', 'node'],
    }),
    spoolCapacity: registry.gauge({
      name: 'bridge_spool_capacity_bytes',
      help: "What reading stops at when bridge_spool_bytes reaches it (back-pressure): spool.max_bytes, or less while the state directory's volume has less room.",
      collect() {
        // The volume's limit, not only the configured one: a spool stopped by a full volume at a
        // fraction of max_bytes is as full as one at max_bytes, and the ratio alerts must say so.
        const limit = sources?.spoolLimitBytes?.();
        if (limit !== undefined) this.set(limit);
      },
    }),
    setSources(s: GaugeSources): void {
      sources = s;
    },
    setSpoolCapacity(bytes: number): void {
      m.spoolCapacity.set(bytes);
    },
  };
  m.exportRefusing.set(0);
  m.deliveryPaused.set(0);
  m.spoolStale.set(0);
  m.tracesUnsupported.set(0);
  m.buildInfo.set({ version: BRIDGE_VERSION, node: process.versions.node }, 1);
  if (opts.spoolCapacityBytes !== undefined) m.setSpoolCapacity(opts.spoolCapacityBytes);
  const zero = <L extends string>(c: Counter<L>, label: L, values: readonly string[]): void => {
    for (const v of values) c.inc({ [label]: v } as Record<L, string>, 0);
  };
  zero(m.eventsFiltered, 'category', LABEL_VALUES.category);
  zero(m.eventsRejected, 'reason', LABEL_VALUES.rejectedReason);
  zero(m.spansDropped, 'reason', LABEL_VALUES.spanDropReason);
  zero(m.reconnects, 'reason', LABEL_VALUES.reconnectReason);
  zero(m.exportRequests, 'outcome', LABEL_VALUES.exportOutcome);
  zero(m.oversized, 'action', LABEL_VALUES.oversizedAction);
  zero(m.screenshots, 'outcome', LABEL_VALUES.screenshotOutcome);
  zero(m.redacted, 'kind', LABEL_VALUES.redactionKind);
  zero(m.configReloads, 'outcome', LABEL_VALUES.reloadOutcome);
  zero(m.leaseRenewals, 'outcome', LABEL_VALUES.leaseOutcome);
  zero(m.handovers, 'kind', LABEL_VALUES.handoverKind);
  zero(m.discoveryPolls, 'outcome', LABEL_VALUES.discoveryOutcome);
  zero(m.discoveredSessions, 'status', LABEL_VALUES.discoveredStatus);
  zero(m.sessionsRefused, 'source', LABEL_VALUES.sessionSource);
  for (const outcome of LABEL_VALUES.exportDurationOutcome) m.exportDuration.zero({ outcome });
  for (const state of LABEL_VALUES.sessionState) m.sessions.set({ state }, 0);
  return m;
}

export type BridgeMetrics = ReturnType<typeof createMetrics>;
