// The bridge's Prometheus metrics (prom-client), one registry per process. Label sets are bounded
// by design: no per-session label (a thousand sessions would make a thousand series per metric);
// per-session numbers live in GET /v1/sessions.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

const KNOWN_CATEGORIES = new Set(['captcha', 'connection', 'console', 'control', 'interaction', 'monitor', 'network', 'page', 'platform', 'screenshot', 'system']);

/** Category label value: the catalogue's categories, anything else folded into "other". */
export function categoryLabel(category: string): string {
  return KNOWN_CATEGORIES.has(category) ? category : 'other';
}

export interface GaugeSources {
  spool(): Promise<{ records: number; bytes: number; oldestTsMicros: number | null }>;
  sessionsByState(): Record<string, number>;
  pendingRecords(): number;
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}) {
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
    duplicates: new Counter({ name: 'bridge_events_duplicate_total', help: 'Frames dropped because their seq was already handled (replays after reconnect).', registers: r }),
    gapRecords: new Counter({ name: 'bridge_gap_records_total', help: 'browser.telemetry_gap records emitted.', registers: r }),
    missingEvents: new Counter({ name: 'bridge_missing_events_total', help: 'Events covered by gap records (lost upstream or undecodable).', registers: r }),
    malformedFrames: new Counter({ name: 'bridge_malformed_frames_total', help: 'Frames that were not a valid envelope.', registers: r }),
    epochs: new Counter({ name: 'bridge_service_epochs_total', help: 'Times a stream restarted its sequence (service restart).', registers: r }),
    reconnects: new Counter({ name: 'bridge_reconnects_total', help: 'Stream reconnects by reason.', labelNames: ['reason'], registers: r }),
    exportRequests: new Counter({ name: 'bridge_export_requests_total', help: 'OTLP export requests by outcome.', labelNames: ['outcome'], registers: r }),
    exportDuration: new Histogram({
      name: 'bridge_export_duration_seconds', help: 'OTLP export request latency.', labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: r,
    }),
    configReloads: new Counter({ name: 'bridge_config_reloads_total', help: 'Configuration reloads (SIGHUP or file change) by outcome: applied, or rejected as invalid.', labelNames: ['outcome'], registers: r }),
    spoolCommitErrors: new Counter({ name: 'bridge_spool_commit_errors_total', help: 'Failed spool transactions (disk full, I/O error); retried.', registers: r }),
    oversized: new Counter({ name: 'bridge_records_oversized_total', help: 'Records above the maximum record size, by action taken.', labelNames: ['action'], registers: r }),
    screenshots: new Counter({ name: 'bridge_screenshots_total', help: 'monitor_screenshot events by policy outcome.', labelNames: ['outcome'], registers: r }),
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
        this.reset();
        for (const [state, n] of Object.entries(sources.sessionsByState())) this.set({ state }, n);
      },
    }),
    setSources(s: GaugeSources): void {
      sources = s;
    },
  };
  return m;
}

export type BridgeMetrics = ReturnType<typeof createMetrics>;
