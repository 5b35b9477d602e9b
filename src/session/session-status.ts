// One session's status (GET /v1/sessions, `top`): where it starts, and how each fact about the
// session moves it. The session pipeline, a worker-followed session and a session this replica does
// not follow all start from initialStatus(), and tallyFact() is the only place a count moves, so
// the status and the metrics (observe/fact-metrics.ts) read the same facts.
import type { Fact } from '../vocabulary/facts.js';
import type { SessionStatus } from '../vocabulary/session-states.js';
import type { SessionRow } from '../store/store.js';

export type { SessionStatus } from '../vocabulary/session-states.js';

/**
 * The status before anything happened in this run. `lastDeliveredSeq` starts at the checkpoint: what
 * earlier runs spooled is delivered first, before anything this run reads.
 */
export function initialStatus(row: SessionRow): SessionStatus {
  return {
    id: row.spec.id,
    source: row.source,
    ...(row.spec.pool ? { pool: row.spec.pool } : {}),
    state: 'idle',
    lastReceivedSeq: row.checkpoint,
    lastDeliveredSeq: row.checkpoint,
    epoch: row.epoch,
    received: 0,
    filtered: 0,
    duplicates: 0,
    gaps: 0,
    missingEvents: 0,
    malformedFrames: 0,
    repaired: 0,
    reconnects: {},
  };
}

/** Moves `s` by one fact about its session; facts that say nothing of a session's numbers leave it alone. */
export function tallyFact(s: SessionStatus, fact: Fact): void {
  switch (fact.f) {
    case 'events_received':
      s.received += fact.count;
      break;
    case 'duplicates':
      s.duplicates += fact.count;
      break;
    case 'event_filtered':
      s.filtered += fact.count;
      break;
    case 'malformed_frame':
      s.malformedFrames++;
      break;
    case 'epoch_started':
      s.epoch = fact.epoch;
      break;
    case 'gap_recorded':
      s.gaps++;
      s.missingEvents += fact.last - fact.first + 1;
      break;
    case 'tail_unknown':
      s.gaps++;
      break;
    case 'archive_repaired':
      s.repaired += fact.repaired;
      break;
    case 'reconnect_scheduled':
      s.reconnects[fact.reason] = (s.reconnects[fact.reason] ?? 0) + 1;
      break;
    case 'connected':
      s.connectedSince = new Date(fact.at).toISOString();
      break;
    case 'state_changed':
      s.state = fact.state;
      if (
        (fact.state === 'unauthorized' ||
          fact.state === 'forbidden' ||
          fact.state === 'backoff' ||
          fact.state === 'unknown') &&
        fact.detail
      )
        s.lastError = fact.detail;
      if (fact.state !== 'streaming') delete s.connectedSince;
      break;
    default:
      break;
  }
}
