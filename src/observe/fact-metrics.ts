// Facts → Prometheus series. The only writer of the bridge's counters: a component emits a fact
// (vocabulary/facts.ts) and this switch says which series it moves. Facts with nothing to count
// (a recovery, a log-only decision) fall through.
import type { Fact } from '../vocabulary/facts.js';
import { categoryLabel, type BridgeMetrics } from './metrics.js';

export function countFact(m: BridgeMetrics, fact: Fact): void {
  switch (fact.f) {
    case 'events_received':
      m.eventsReceived.inc(fact.count);
      break;
    case 'duplicates':
      m.duplicates.inc(fact.count);
      break;
    case 'malformed_frame':
      m.malformedFrames.inc();
      break;
    case 'epoch_started':
      m.epochs.inc();
      break;
    case 'gap_recorded':
      m.gapRecords.inc();
      m.missingEvents.inc(fact.last - fact.first + 1);
      break;
    case 'tail_unknown':
      m.gapRecords.inc();
      m.tailsUnknown.inc();
      break;
    case 'archive_repaired':
      m.archiveRepaired.inc(fact.repaired);
      break;
    case 'reconnect_scheduled':
      m.reconnects.inc({ reason: fact.reason });
      break;
    case 'event_filtered':
      m.eventsFiltered.inc({ category: categoryLabel(fact.category) }, fact.count);
      break;
    case 'record_oversized':
      m.oversized.inc({ action: fact.action }, fact.count);
      break;
    case 'values_redacted':
      m.redacted.inc({ kind: fact.kind }, fact.count);
      break;
    case 'screenshot_written':
      m.screenshots.inc({ outcome: 'written' }, fact.count);
      break;
    case 'screenshot_failed':
      m.screenshots.inc({ outcome: 'write_failed' }, fact.count);
      break;
    case 'commit_failed':
      m.spoolCommitErrors.inc();
      break;
    case 'writes_fenced':
      m.fencedWrites.inc(fact.sessions.length);
      break;
    case 'export_attempted':
      m.exportDuration.observe({ outcome: fact.success ? 'success' : 'failure' }, fact.seconds);
      m.exportRequests.inc({ outcome: fact.outcome });
      break;
    case 'export_answer_unrecognized':
      m.exportUnrecognized.inc();
      break;
    case 'records_delivered':
      m.eventsDelivered.inc(fact.count);
      break;
    case 'records_rejected':
      m.eventsRejected.inc({ reason: fact.reason }, fact.count);
      break;
    case 'collector_refusing':
      m.exportRefusing.set(1);
      break;
    case 'export_recovered':
      m.exportRefusing.set(0);
      break;
    case 'lease_renewed':
      m.leaseRenewals.inc({ outcome: 'success' });
      break;
    case 'lease_renewal_failed':
      m.leaseRenewals.inc({ outcome: 'failure' });
      break;
    case 'lease_expired':
      m.leaseExpirations.inc();
      break;
    case 'sessions_claimed':
      m.handovers.inc({ kind: 'claimed' }, fact.sessions);
      break;
    case 'sessions_lost':
      m.handovers.inc({ kind: 'lost' }, fact.sessions.length);
      break;
    case 'sessions_handed_over':
      m.handovers.inc({ kind: 'handed_over' }, fact.sessions);
      break;
    case 'discovery_polled':
      m.discoveryPolls.inc({ outcome: fact.outcome });
      if (fact.outcome === 'ok') m.discoveryMatched.set(fact.matched);
      break;
    case 'sessions_discovered':
      m.discoveredSessions.inc({ status: fact.deleted ? 'deleted' : 'active' }, fact.sessions.length);
      break;
    case 'session_refused':
      m.sessionsRefused.inc({ source: fact.source }, fact.sessions.length);
      break;
    case 'config_reloaded':
      m.configReloads.inc({ outcome: 'applied' });
      break;
    case 'config_rejected':
      m.configReloads.inc({ outcome: 'rejected' });
      break;
    case 'spans_exported':
      m.spansExported.inc(fact.count);
      break;
    case 'spans_dropped':
      m.spansDropped.inc({ reason: fact.reason }, fact.count);
      break;
    case 'traces_unsupported':
      m.tracesUnsupported.set(1);
      break;
    case 'traces_supported':
      m.tracesUnsupported.set(0);
      break;
    default:
      break;
  }
}
