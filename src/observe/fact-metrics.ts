// Facts → Prometheus series. The only writer of the bridge's counters: a component emits a fact
// (vocabulary/facts.ts) and this table says which series it moves. Facts with nothing to count
// (a recovery, a log-only decision) are null: every fact is decided here, or nothing compiles.
import { applyFact, type Fact, type FactTable } from '../vocabulary/facts.js';
import { categoryLabel, type BridgeMetrics } from './metrics.js';

const METRICS: FactTable<BridgeMetrics> = {
  events_received: (m, fact) => {
    m.eventsReceived.inc(fact.count);
  },
  duplicates: (m, fact) => {
    m.duplicates.inc(fact.count);
  },
  malformed_frame: (m) => {
    m.malformedFrames.inc();
  },
  epoch_started: (m) => {
    m.epochs.inc();
  },
  gap_recorded: (m, fact) => {
    m.gapRecords.inc();
    m.missingEvents.inc(fact.last - fact.first + 1);
  },
  tail_unknown: (m) => {
    m.gapRecords.inc();
    m.tailsUnknown.inc();
  },
  archive_repaired: (m, fact) => {
    m.archiveRepaired.inc(fact.repaired);
  },
  archive_probed: null,
  archive_unreadable: null,
  archive_repair_owed: null,
  mapping_failed: null,
  state_changed: null,
  reconnect_scheduled: (m, fact) => {
    m.reconnects.inc({ reason: fact.reason });
  },
  connected: null,
  session_ended: null,
  session_unknown: null,
  event_filtered: (m, fact) => {
    m.eventsFiltered.inc({ category: categoryLabel(fact.category) }, fact.count);
  },
  record_oversized: (m, fact) => {
    m.oversized.inc({ action: fact.action }, fact.count);
  },
  values_redacted: (m, fact) => {
    m.redacted.inc({ kind: fact.kind }, fact.count);
  },
  screenshot_written: (m, fact) => {
    m.screenshots.inc({ outcome: 'written' }, fact.count);
  },
  screenshot_failed: (m, fact) => {
    m.screenshots.inc({ outcome: 'write_failed' }, fact.count);
  },
  reads_paced: (m, fact) => {
    m.workerReads.inc(fact.reads);
    m.readPacingSeconds.inc(fact.sleptMs / 1000);
    m.readPacingWaits.inc(fact.sleeps);
  },
  commit_failed: (m) => {
    m.spoolCommitErrors.inc();
  },
  commit_recovered: null,
  delete_failed: null,
  volume_full: null,
  volume_room: null,
  writes_fenced: (m, fact) => {
    m.fencedWrites.inc(fact.sessions.length);
  },
  delivery_paused: (m) => {
    m.deliveryPaused.set(1);
  },
  delivery_resumed: (m) => {
    m.deliveryPaused.set(0);
  },
  export_attempted: (m, fact) => {
    m.exportDuration.observe({ outcome: fact.success ? 'success' : 'failure' }, fact.seconds);
    m.exportRequests.inc({ outcome: fact.outcome });
  },
  records_delivered: (m, fact) => {
    m.eventsDelivered.inc(fact.count);
  },
  records_rejected: (m, fact) => {
    m.eventsRejected.inc({ reason: fact.reason }, fact.count);
  },
  export_failed: null,
  export_recovered: (m) => {
    m.exportRefusing.set(0);
  },
  collector_refusing: (m) => {
    m.exportRefusing.set(1);
  },
  spool_unreadable: null,
  lease_renewed: (m) => {
    m.leaseRenewals.inc({ outcome: 'success' });
  },
  lease_renewal_failed: (m) => {
    m.leaseRenewals.inc({ outcome: 'failure' });
  },
  lease_expired: (m) => {
    m.leaseExpirations.inc();
  },
  sessions_claimed: (m, fact) => {
    m.handovers.inc({ kind: 'claimed' }, fact.sessions);
  },
  sessions_lost: (m, fact) => {
    m.handovers.inc({ kind: 'lost' }, fact.sessions.length);
  },
  sessions_handed_over: (m, fact) => {
    m.handovers.inc({ kind: 'handed_over' }, fact.sessions);
  },
  discovery_polled: (m, fact) => {
    m.discoveryPolls.inc({ outcome: fact.outcome });
    if (fact.outcome === 'ok') m.discoveryMatched.set(fact.matched);
  },
  session_exports_otlp: null,
  session_is_name: null,
  listed_session_refused: (m) => {
    m.listedSessionsRefused.inc();
  },
  session_pool_refused: (m) => {
    m.poolRefsRefused.inc();
  },
  discovery_list_shape: null,
  sessions_discovered: (m, fact) => {
    m.discoveredSessions.inc({ status: fact.deleted ? 'deleted' : 'active' }, fact.sessions.length);
  },
  paused_checking_lease: null,
  lease_checked_after_pause: null,
  claim_disowned: null,
  facts_dropped: null,
  session_refused: (m, fact) => {
    m.sessionsRefused.inc({ source: fact.source }, fact.sessions.length);
  },
  export_answer_unrecognized: (m) => {
    m.exportUnrecognized.inc();
  },
  spans_exported: (m, fact) => {
    m.spansExported.inc(fact.count);
  },
  spans_dropped: (m, fact) => {
    m.spansDropped.inc({ reason: fact.reason }, fact.count);
  },
  // The spans' fate is counted when they leave (spans_exported, spans_dropped); a failed try is a line.
  spans_export_failed: null,
  spans_export_recovered: null,
  traces_unsupported: (m) => {
    m.tracesUnsupported.set(1);
  },
  traces_supported: (m) => {
    m.tracesUnsupported.set(0);
  },
  config_reloaded: (m) => {
    m.configReloads.inc({ outcome: 'applied' });
  },
  config_rejected: (m) => {
    m.configReloads.inc({ outcome: 'rejected' });
  },
};

/** Moves the series `fact` counts in. */
export function countFact(m: BridgeMetrics, fact: Fact): void {
  applyFact(METRICS, m, fact);
}
