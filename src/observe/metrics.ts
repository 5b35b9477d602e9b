// The bridge's Prometheus metrics (prom-client), one registry per process. Counters move only
// through facts (fact-metrics.ts); gauges are read from their sources when scraped. Label sets are bounded
// by design: no per-session label (a thousand sessions would make a thousand series per metric);
// per-session numbers live in GET /v1/sessions. Every labelled series whose label values are known
// in advance exists from the start at zero: `rate()` and `increase()` over a series that appears
// with its first increment miss that increment, and an alert on a missing series never fires.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { CATEGORIES } from '../vocabulary/event-types.js';
import { DISCOVERY_OUTCOMES, type RedactionKind, type RejectReason } from '../vocabulary/facts.js';
import { RECONNECT_REASONS, SUBSCRIBER_STATES } from '../vocabulary/session-states.js';
import { BRIDGE_VERSION } from '../util/version.js';

const KNOWN_CATEGORIES = new Set(CATEGORIES);

/** Label values known in advance, each created at zero when the registry is. */
export const LABEL_VALUES = {
  category: [...CATEGORIES, 'other'],
  reconnectReason: RECONNECT_REASONS,
  sessionState: SUBSCRIBER_STATES,
  rejectedReason: ['partial_success', 'invalid', 'too_large', 'corrupt'] satisfies RejectReason[],
  /** `http_<status>` outcomes appear as the collector answers them; the status set is open. */
  exportOutcome: ['success', 'network', 'timeout', 'http_429', 'http_503', 'grpc_unavailable', 'grpc_resource_exhausted'],
  exportDurationOutcome: ['success', 'failure'],
  oversizedAction: ['strings_truncated', 'attributes_cut', 'body_cut', 'screenshot_dropped'],
  screenshotOutcome: ['written', 'write_failed'],
  redactionKind: ['header', 'url', 'post_data', 'response_body', 'api_call_code', 'typed_key', 'source_metadata'] satisfies RedactionKind[],
  reloadOutcome: ['applied', 'rejected'],
  leaseOutcome: ['success', 'failure'],
  handoverKind: ['claimed', 'handed_over', 'lost'],
  discoveryOutcome: DISCOVERY_OUTCOMES,
  discoveredStatus: ['active', 'deleted'],
} as const;

/** Category label value: the catalogue's categories, anything else folded into "other". */
export function categoryLabel(category: string): string {
  return KNOWN_CATEGORIES.has(category) ? category : 'other';
}

export interface GaugeSources {
  spool(): Promise<{ records: number; bytes: number; oldestTsMicros: number | null }>;
  sessionsByState(): Record<string, number>;
  pendingRecords(): number;
  /** Sessions this replica owns in the shared store; absent with the embedded store. */
  ownedSessions?(): number;
}

export function createMetrics(opts: { defaultMetrics?: boolean; spoolCapacityBytes?: number } = {}) {
  const registry = new Registry();
  // Process and runtime metrics under their standard names (process_cpu_seconds_total,
  // process_resident_memory_bytes, nodejs_eventloop_lag_seconds, …): the ones dashboards and alert
  // rules expect. A prefix would only double up ("bridge_process_process_…").
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const r = [registry];
  let sources: GaugeSources | undefined;

  const m = {
    registry,
    eventsReceived: new Counter({ name: 'bridge_events_received_total', help: 'Telemetry events decoded from the streams (duplicates excluded).', registers: r }),
    eventsDelivered: new Counter({ name: 'bridge_events_delivered_total', help: 'Log records acknowledged by the collector (gap records included).', registers: r }),
    eventsFiltered: new Counter({ name: 'bridge_events_filtered_total', help: 'Events dropped by the configured filters before the spool.', labelNames: ['category'], registers: r }),
    eventsRejected: new Counter({ name: 'bridge_events_rejected_total', help: 'Records the collector rejected (partial success, or refused alone as invalid).', labelNames: ['reason'], registers: r }),
    exportRefusing: new Gauge({ name: 'bridge_export_refusing', help: '1 while the collector refuses every record it is sent (400/413 for all): nothing is dropped, delivery backs off; 0 otherwise.', registers: r }),
    duplicates: new Counter({ name: 'bridge_events_duplicate_total', help: 'Frames dropped because their seq was already handled (replays after reconnect).', registers: r }),
    gapRecords: new Counter({ name: 'bridge_gap_records_total', help: 'browser.telemetry_gap records emitted.', registers: r }),
    missingEvents: new Counter({ name: 'bridge_missing_events_total', help: 'Events covered by gap records (lost upstream or undecodable).', registers: r }),
    malformedFrames: new Counter({ name: 'bridge_malformed_frames_total', help: 'Frames that were not a valid envelope.', registers: r }),
    tailsUnknown: new Counter({ name: 'bridge_tails_unknown_total', help: 'Sessions (or service epochs) that ended unseen with a tail neither the stream nor the archive could supply.', registers: r }),
    archiveRepaired: new Counter({ name: 'bridge_archive_repaired_events_total', help: 'Events missing from the stream that were read from the service archive instead.', registers: r }),
    epochs: new Counter({ name: 'bridge_service_epochs_total', help: 'Times a stream restarted its sequence (service restart).', registers: r }),
    reconnects: new Counter({ name: 'bridge_reconnects_total', help: 'Stream reconnects by reason.', labelNames: ['reason'], registers: r }),
    exportRequests: new Counter({ name: 'bridge_export_requests_total', help: 'OTLP export requests by outcome.', labelNames: ['outcome'], registers: r }),
    exportDuration: new Histogram({
      name: 'bridge_export_duration_seconds', help: 'OTLP export request latency.', labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: r,
    }),
    sessionsRefused: new Counter({ name: 'bridge_sessions_refused_total', help: 'PUT /v1/sessions/{id} of a new session refused because max_sessions sessions are followed.', registers: r }),
    configReloads: new Counter({ name: 'bridge_config_reloads_total', help: 'Configuration reloads (SIGHUP or file change) by outcome: applied, or rejected as invalid.', labelNames: ['outcome'], registers: r }),
    spoolCommitErrors: new Counter({ name: 'bridge_spool_commit_errors_total', help: 'Failed spool transactions (disk full, I/O error); retried.', registers: r }),
    oversized: new Counter({ name: 'bridge_records_oversized_total', help: 'Records above the maximum record size, by action taken.', labelNames: ['action'], registers: r }),
    screenshots: new Counter({ name: 'bridge_screenshots_total', help: 'monitor_screenshot events by policy outcome.', labelNames: ['outcome'], registers: r }),
    redacted: new Counter({ name: 'bridge_records_redacted_total', help: 'Events in which redaction masked values, by kind (header, url, post_data, response_body, api_call_code, typed_key, source_metadata).', labelNames: ['kind'], registers: r }),
    spoolRecords: new Gauge({ name: 'bridge_spool_records', help: 'Records waiting in the spool.', registers: r, async collect() { if (sources) this.set((await sources.spool()).records + sources.pendingRecords()); } }),
    spoolBytes: new Gauge({ name: 'bridge_spool_bytes', help: 'Bytes of records waiting in the spool.', registers: r, async collect() { if (sources) this.set((await sources.spool()).bytes); } }),
    oldestAge: new Gauge({
      name: 'bridge_oldest_undelivered_age_seconds', help: 'Age (by event time) of the oldest undelivered record; 0 when none.', registers: r,
      async collect() {
        if (!sources) return;
        const ts = (await sources.spool()).oldestTsMicros;
        this.set(ts === null ? 0 : Math.max(0, Date.now() / 1000 - ts / 1e6));
      },
    }),
    sessions: new Gauge({
      name: 'bridge_sessions', help: 'Followed sessions by state.', labelNames: ['state'], registers: r,
      collect() {
        if (!sources) return;
        const counts = sources.sessionsByState();
        for (const state of new Set([...LABEL_VALUES.sessionState, ...Object.keys(counts)])) this.set({ state }, counts[state] ?? 0);
      },
    }),
    ownedSessions: new Gauge({ name: 'bridge_owned_sessions', help: 'Sessions this replica owns in the shared store (0 with the embedded store).', registers: r, collect() { if (sources?.ownedSessions) this.set(sources.ownedSessions()); } }),
    leaseRenewals: new Counter({ name: 'bridge_lease_renewals_total', help: 'Renewals of this replica\'s lease in the shared store, by outcome.', labelNames: ['outcome'], registers: r }),
    leaseExpirations: new Counter({ name: 'bridge_lease_expirations_total', help: 'Times the lease was not renewed within its safety margin and every session was given up.', registers: r }),
    handovers: new Counter({ name: 'bridge_session_handovers_total', help: 'Changes of ownership seen by this replica: claimed, handed_over (to the preferred replica), lost (taken by another).', labelNames: ['kind'], registers: r }),
    fencedWrites: new Counter({ name: 'bridge_fenced_writes_total', help: 'Spool commits refused because another replica owns the session now (writes of a replica that lost its lease).', registers: r }),
    discoveryPolls: new Counter({ name: 'bridge_discovery_polls_total', help: 'Polls of the service\'s session list by outcome (skipped: another replica polled this interval; no_route: the service has no list).', labelNames: ['outcome'], registers: r }),
    discoveredSessions: new Counter({ name: 'bridge_discovered_sessions_total', help: 'Sessions discovery started following, by the status they were listed with (deleted: recovered after the bridge was down).', labelNames: ['status'], registers: r }),
    discoveryMatched: new Gauge({ name: 'bridge_discovery_matched_sessions', help: 'Live sessions the discovery selector matched at this replica\'s last successful poll.', registers: r }),
    buildInfo: new Gauge({ name: 'bridge_build_info', help: 'Always 1; the labels say which bridge and which Node.js runtime are running.', labelNames: ['version', 'node'], registers: r }),
    spoolCapacity: new Gauge({ name: 'bridge_spool_capacity_bytes', help: 'spool.max_bytes: reading stops when bridge_spool_bytes reaches it (back-pressure).', registers: r }),
    setSources(s: GaugeSources): void {
      sources = s;
    },
    setSpoolCapacity(bytes: number): void {
      m.spoolCapacity.set(bytes);
    },
  };
  m.exportRefusing.set(0);
  m.buildInfo.set({ version: BRIDGE_VERSION, node: process.versions.node }, 1);
  if (opts.spoolCapacityBytes !== undefined) m.setSpoolCapacity(opts.spoolCapacityBytes);
  const zero = <L extends string>(c: Counter<L>, label: L, values: readonly string[]): void => {
    for (const v of values) c.inc({ [label]: v } as Record<L, string>, 0);
  };
  zero(m.eventsFiltered, 'category', LABEL_VALUES.category);
  zero(m.eventsRejected, 'reason', LABEL_VALUES.rejectedReason);
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
  for (const outcome of LABEL_VALUES.exportDurationOutcome) m.exportDuration.zero({ outcome });
  for (const state of LABEL_VALUES.sessionState) m.sessions.set({ state }, 0);
  return m;
}

export type BridgeMetrics = ReturnType<typeof createMetrics>;
