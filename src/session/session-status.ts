// One session's status (GET /v1/sessions, `top`): where it starts, and how each fact about the
// session moves it. The session pipeline, a worker-followed session and a session this replica does
// not follow all start from initialStatus(), and tallyFact() is the only place a count moves, so
// the status and the metrics (observe/fact-metrics.ts) read the same facts.
import { applyFact, type Fact, type FactTable } from '../vocabulary/facts.js';
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
    ...(row.spec.poolProblem !== undefined ? { lastError: row.spec.poolProblem } : {}),
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

/** A place in a session's stream, as (epoch, seq): seqs start again at 1 when the service restarts. */
export interface StreamPosition {
  epoch: number;
  seq: number;
}

/** Moves `p` to (epoch, seq) when that is further on; never back. */
export function advance(p: StreamPosition, epoch: number, seq: number): void {
  if (epoch > p.epoch) {
    p.epoch = epoch;
    p.seq = seq;
  } else if (epoch === p.epoch && seq > p.seq) p.seq = seq;
}

/**
 * How far `p` reached in `epoch`: 0 while it is still in an earlier one (a delivered seq of the old
 * epoch is no position in the new one, whose seqs start again).
 */
export function seqIn(p: StreamPosition, epoch: number): number {
  return p.epoch < epoch ? 0 : p.seq;
}

/** How each fact moves a session's status; null: the fact says nothing of a session's numbers. */
const TALLY: FactTable<SessionStatus> = {
  events_received: (s, fact) => {
    s.received += fact.count;
  },
  duplicates: (s, fact) => {
    s.duplicates += fact.count;
  },
  malformed_frame: (s) => {
    s.malformedFrames++;
  },
  epoch_started: (s, fact) => {
    s.epoch = fact.epoch;
  },
  // An owed gap ends as one of these (at most one is owed a session, its stream waiting meanwhile).
  gap_recorded: (s, fact) => {
    s.gaps++;
    s.missingEvents += fact.last - fact.first + 1;
    delete s.owedGap;
  },
  tail_unknown: (s) => {
    s.gaps++;
    delete s.owedGap;
  },
  archive_repaired: (s, fact) => {
    s.repaired += fact.repaired;
    delete s.owedGap;
  },
  archive_probed: null,
  // A gap recorded lost after the archive stayed unreadable for upstream.archive_retry: while it was
  // owed, owedGap said so (top shows it); after, the session's last error keeps what became of it.
  archive_unreadable: (s, fact) => {
    delete s.owedGap;
    const events = fact.last !== undefined ? `events ${fact.first}-${fact.last}` : `events from ${fact.first}`;
    s.lastError = `archive unreadable: ${events} recorded as a gap (${fact.detail})`;
  },
  archive_repair_owed: (s, fact) => {
    s.owedGap = {
      firstSeq: fact.first,
      ...(fact.last !== undefined ? { lastSeq: fact.last } : {}),
      detail: fact.detail,
      since: new Date(fact.at).toISOString(),
      until: new Date(fact.at + fact.forMs).toISOString(),
    };
  },
  mapping_failed: null,
  state_changed: (s, fact) => {
    s.state = fact.state;
    if (
      (fact.state === 'unauthorized' ||
        fact.state === 'forbidden' ||
        fact.state === 'backoff' ||
        fact.state === 'unknown') &&
      fact.detail
    )
      s.lastError = fact.detail;
    // An end is not an error: the reset and the 502 a stream gets as its session ends are not one.
    if (fact.state === 'ended') delete s.lastError;
    // A stop abandons an owed gap (the next start reads it again from the checkpoint before it).
    if (fact.state === 'stopped' || fact.state === 'ended') delete s.owedGap;
    if (fact.state !== 'streaming') delete s.connectedSince;
  },
  reconnect_scheduled: (s, fact) => {
    s.reconnects[fact.reason] = (s.reconnects[fact.reason] ?? 0) + 1;
  },
  connected: (s, fact) => {
    s.connectedSince = new Date(fact.at).toISOString();
  },
  session_ended: null,
  session_unknown: null,
  event_filtered: (s, fact) => {
    s.filtered += fact.count;
  },
  record_oversized: null,
  values_redacted: null,
  screenshot_written: null,
  screenshot_failed: null,
  reads_paced: null,
  commit_failed: null,
  commit_recovered: null,
  delete_failed: null,
  volume_full: null,
  volume_room: null,
  writes_fenced: null,
  delivery_paused: null,
  delivery_resumed: null,
  export_attempted: null,
  records_delivered: null,
  records_rejected: null,
  export_failed: null,
  export_recovered: null,
  collector_refusing: null,
  spool_unreadable: null,
  lease_renewed: null,
  lease_renewal_failed: null,
  lease_expired: null,
  sessions_claimed: null,
  sessions_lost: null,
  sessions_handed_over: null,
  discovery_polled: null,
  sessions_discovered: null,
  session_exports_otlp: null,
  session_is_name: null,
  session_pool_refused: null,
  listed_session_refused: null,
  discovery_list_shape: null,
  paused_checking_lease: null,
  lease_checked_after_pause: null,
  claim_disowned: null,
  facts_dropped: null,
  session_refused: null,
  config_reloaded: null,
  export_answer_unrecognized: null,
  spans_exported: null,
  spans_dropped: null,
  spans_export_failed: null,
  spans_export_recovered: null,
  traces_unsupported: null,
  traces_supported: null,
  config_rejected: null,
};

/** Moves `s` by one fact about its session; facts that say nothing of a session's numbers leave it alone. */
export function tallyFact(s: SessionStatus, fact: Fact): void {
  applyFact(TALLY, s, fact);
}
