// The facts the bridge reports about itself: one discriminated union, emitted once where a thing
// happens and turned by subscribers into everything that reports it: Prometheus series
// (observe/fact-metrics.ts), log lines (observe/fact-log.ts) and a session's status
// (session/session-status.ts). A component never counts into a metric or writes the same fact's log
// line by hand: it calls `emit`, and the three views cannot drift apart.
//
// Facts carry identifiers, counts and fixed words, never event data: no secret can reach a metric
// or a log line through them. Facts that are pure counts (`count`) may be summed by who relays them
// (ingest/fact-relay.ts), so their `session` is optional: totals need no session, a session's own
// numbers travel in its status.
import type { GapReason } from './gap-reason.js';
import type { ReconnectReason, SessionSource, SubscriberState } from './session-states.js';

/** What the size limit did to an oversized record (mapping/size-limit.ts, mapping/screenshots.ts). */
export type OversizeAction = 'strings_truncated' | 'body_cut' | 'attributes_cut' | 'screenshot_dropped';

/** What kind of value redaction masked. */
export type RedactionKind =
  | 'header'
  | 'url'
  | 'post_data'
  | 'response_body'
  | 'api_call_code'
  | 'typed_key'
  | 'source_metadata'
  | 'jwt'
  | 'auth_credential'
  | 'console_text';

/** Why the service's numbering was taken as a new epoch (stream/sequencer.ts). */
export type EpochReason = 'source_changed' | 'seq_backwards' | 'resume_ignored';

/** Why a record is refused for good (export/delivery.ts). */
export type RejectReason = 'partial_success' | 'invalid' | 'too_large' | 'corrupt';

/** How one poll of the service's session list ended (discovery/discovery-loop.ts). */
export const DISCOVERY_OUTCOMES = [
  'ok',
  'skipped',
  'rate_limited',
  'server_error',
  'no_route',
  'unauthorized',
  'failed',
] as const;
export type DiscoveryOutcome = (typeof DISCOVERY_OUTCOMES)[number];

export type Fact =
  // --- one session's stream (session/session-pipeline.ts) ---
  | { f: 'events_received'; session?: string; count: number }
  | { f: 'duplicates'; session?: string; count: number }
  | { f: 'malformed_frame'; session: string; frameId: string | undefined; bytes: number; reason: string }
  | {
      f: 'epoch_started';
      session: string;
      epoch: number;
      seq: number;
      why: EpochReason;
      previousEpoch: number;
      previousLastSeq: number;
    }
  | { f: 'gap_recorded'; session: string; first: number; last: number; reason: GapReason }
  | { f: 'tail_unknown'; session: string; epoch: number; afterSeq: number }
  | {
      f: 'archive_repaired';
      session: string;
      first: number;
      last: number | undefined;
      reason: GapReason;
      repaired: number;
    }
  /** A 404 from the archive, told apart: the service has no archive route, or no such session. */
  | { f: 'archive_probed'; session: string; verdict: 'no_route' | 'no_session' | 'undecided'; detail: string }
  | { f: 'archive_unreadable'; session: string; first: number; last: number | undefined; detail: string }
  /** The archive could not be read for a gap: it is read again for `forMs` before the loss is recorded. */
  | {
      f: 'archive_repair_owed';
      session: string;
      first: number;
      last: number | undefined;
      detail: string;
      forMs: number;
      /** When the first read failed (wall clock, ms): the gap is recorded as lost at `at + forMs` unless read. */
      at: number;
    }
  | { f: 'mapping_failed'; session: string; seq: number; type: string; error: string }
  | { f: 'state_changed'; session: string; state: SubscriberState; detail?: string; at: number }
  | {
      f: 'reconnect_scheduled';
      session: string;
      reason: ReconnectReason;
      delayMs: number;
      attempt: number;
      detail?: string;
    }
  | { f: 'connected'; session: string; at: number }
  | { f: 'session_ended'; session: string; lastSeq: number; epoch: number; detail: string }
  /** The service does not know the session at all (never existed, a mistyped id): an error, not an end. */
  | { f: 'session_unknown'; session: string; detail: string }
  // --- the mapper (mapping/mapper.ts; a filtered event is the session's fact: the mapper returns null) ---
  | { f: 'event_filtered'; session?: string; type: string; category: string; count: number }
  | { f: 'record_oversized'; type: string; action: OversizeAction; count: number }
  | { f: 'values_redacted'; type: string; kind: RedactionKind; count: number }
  | { f: 'screenshot_written'; count: number }
  | { f: 'screenshot_failed'; count: number }
  // --- an ingest worker's reads (util/read-pacing.ts), once per report while it paces ---
  | { f: 'reads_paced'; reads: number; sleeps: number; sleptMs: number }
  // --- the spool (daemon/bridge.ts wires the store's callbacks) ---
  /** `checkpointsOnly`: only moved checkpoints failed to be written (overflow mode): reading goes on. */
  | { f: 'commit_failed'; error: string; code: string | undefined; streak: number; checkpointsOnly?: boolean }
  | { f: 'commit_recovered' }
  | { f: 'delete_failed'; error: string; code: string | undefined; streak: number }
  /**
   * Reading waits for room on the state directory's volume, and delivering what is spooled would not
   * free enough of it (store/spool-room.ts `volumeFull`); `times`: how often so far.
   */
  | { f: 'volume_full'; freeBytes: number; reserveBytes: number; times: number }
  /** Reading goes on after a `volume_full`; `times` is that pause's. */
  | { f: 'volume_room'; times: number }
  | { f: 'writes_fenced'; sessions: readonly string[] }
  /**
   * Shared store, overflow mode: an acknowledged checkpoint move has waited `waitedMs` for its write
   * (store/overflow-writer.ts), so delivery takes nothing more from memory until a write goes through.
   */
  | { f: 'delivery_paused'; waitedMs: number }
  /** The pause is over (a checkpoint write went through, the sessions were given up, or the spool closed). */
  /** `why`: a checkpoint write went through; the spool closed for the stop's drain; the sessions waited for were given up. */
  | { f: 'delivery_resumed'; pausedMs: number; why: 'written' | 'closing' | 'given_up' }
  // --- delivery (export/delivery.ts) ---
  | { f: 'export_attempted'; outcome: string; success: boolean; seconds: number }
  | { f: 'records_delivered'; count: number }
  | {
      f: 'records_rejected';
      reason: RejectReason;
      count: number;
      endpoint: string;
      error: string;
      segments?: readonly string[];
      /**
       * How many times this has happened so far, 1 the first time: for a partial success, the answers
       * carrying this message (1 again when the message changes: a collector that rejects a few
       * records in every answer must not write a line per request); for a record dropped after
       * proof, the drops of this reason (a collector whose size limit is below a kind of record
       * drops one at every such record).
       */
      times?: number;
    }
  | {
      f: 'export_failed';
      endpoint: string;
      status: number | undefined;
      grpcCode: number | undefined;
      records: number;
      attempt: number;
      delayMs: number;
      error: string;
    }
  | { f: 'export_recovered'; endpoint: string; records: number }
  /**
   * A 2xx whose body is neither empty nor an OTLP response (an HTML page from a catch-all route at a
   * wrong path): counted as delivered, as the collector said, but said loudly (export/otlp-transport.ts).
   * `count`: such answers so far from this endpoint.
   */
  | {
      f: 'export_answer_unrecognized';
      endpoint: string;
      status: number;
      contentType: string;
      bytes: number;
      count: number;
    }
  /** Every record of a request was refused (400/413) and nothing proves it is about the records: all stay spooled. */
  | {
      f: 'collector_refusing';
      endpoint: string;
      status: number | undefined;
      records: number;
      round: number;
      delayMs: number;
      error: string;
    }
  | { f: 'spool_unreadable'; error: string }
  // --- the cluster (cluster/ownership.ts) ---
  | { f: 'lease_renewed'; recovered: boolean }
  | { f: 'lease_renewal_failed'; error: string; first: boolean }
  | { f: 'lease_expired'; sessions: number }
  | { f: 'sessions_claimed'; sessions: number; backlogRecords: number; replica: string }
  | { f: 'sessions_lost'; sessions: readonly string[]; why: string }
  | { f: 'sessions_handed_over'; sessions: number }
  // --- discovery (discovery/discovery-loop.ts): `skipped` is a poll another replica made this interval ---
  | {
      f: 'discovery_polled';
      outcome: DiscoveryOutcome;
      matched: number;
      pages: number;
      seconds: number;
      status?: number;
      delayMs?: number;
      detail?: string;
      streak: number;
    }
  | { f: 'sessions_discovered'; sessions: readonly string[]; deleted: boolean }
  /** The list is not what discovery assumes (a refused status, an order other than newest first); said once. */
  | { f: 'discovery_list_shape'; shape: 'status_refused' | 'not_newest_first'; detail: string }
  /** A followed session exports its telemetry itself (telemetry.export.otlp): duplicates at the backend. */
  | { f: 'session_exports_otlp'; session: string; destination: string | undefined; sameCollector: boolean }
  /** A configured session is a name, not an id: its position is kept under the name (said once at start). */
  | { f: 'session_is_name'; session: string; id: string }
  /** The service's list shows a session whose id no request can carry: never followed (said once per id). */
  | { f: 'listed_session_refused'; problem: string }
  /** The service's list names a pool for a discovered session that cannot be requested: never looked up (said once). */
  | { f: 'session_pool_refused'; session: string; problem: string }
  /** The monotonic clock showed a pause: the lease is checked before anything more is sent. */
  | { f: 'paused_checking_lease'; pausedMs: number }
  /** That check is done: what this replica still owns (what it lost was said before, sessions_lost). */
  | { f: 'lease_checked_after_pause'; pausedMs: number; stillOwned: number }
  /** Claimed records of sessions lost meanwhile: not sent, left to the new owner (export/delivery.ts). */
  | { f: 'claim_disowned'; records: number; sessions: readonly string[] }
  // --- a relay that had to drop facts (ingest/fact-relay.ts): never a record, only reports of them ---
  | { f: 'facts_dropped'; count: number; where: string }
  // --- the control API (server/http-server.ts) ---
  /**
   * Sessions not followed because max_sessions are: a PUT refused (429, `remote` set), or sessions
   * of the configuration, discovery or a cluster claim recorded and waiting for room.
   */
  | {
      f: 'session_refused';
      sessions: readonly string[];
      source: SessionSource;
      followed: number;
      limit: number;
      remote?: string;
    }
  // --- the daemon (daemon/reload.ts) ---
  | {
      f: 'config_reloaded';
      reason: string;
      added: readonly string[];
      removed: readonly string[];
      updated: readonly string[];
      mappingChanged: boolean;
      startChanged: boolean;
      restartRequired: readonly string[];
    }
  | { f: 'config_rejected'; reason: string; key: string; error: string }
  // --- spans (export/span-export.ts, docs/traces.md) ---
  | { f: 'spans_exported'; count: number }
  /**
   * `times`: the drops of this reason so far (a full queue drops at every offer: said now and then,
   * not each time); `error`: what the collector said of a refused batch, or for `overflow` why the
   * queue is full (the last failed request). `overflow` only (export/overflow-notice.ts): `dropped`
   * over the bound in all, `since` the last line said, `queueMaxBytes` the bound, and `quiet` when
   * no line is due.
   */
  | {
      f: 'spans_dropped';
      count: number;
      reason: SpanDropReason;
      times?: number;
      error?: string;
      dropped?: number;
      since?: number;
      queueMaxBytes?: number;
      quiet?: true;
    }
  /** The traces endpoint failed a request (down, 5xx, 401…): the spans wait and go again after `delayMs`. */
  | {
      f: 'spans_export_failed';
      endpoint: string;
      status?: number;
      grpcCode?: number;
      spans: number;
      attempt: number;
      delayMs: number;
      error: string;
    }
  | { f: 'spans_export_recovered'; endpoint: string }
  /** The collector has no traces pipeline (HTTP 404, gRPC UNIMPLEMENTED): said once, asked again later. */
  | { f: 'traces_unsupported'; endpoint: string; status?: number; grpcCode?: number; retryInMs: number }
  | { f: 'traces_supported'; endpoint: string };

/** Why spans were not delivered: refused for their content, rejected in a partial success, over the queue's bound, still queued at shutdown. */
export type SpanDropReason = 'refused' | 'rejected' | 'overflow' | 'shutdown';

/** The name of a fact, and the fact of that name. */
export type FactName = Fact['f'];
export type FactOf<N extends FactName> = Extract<Fact, { f: N }>;

/**
 * One decision per fact for a sink (metrics, log lines, a session's status): a handler, or null for
 * "nothing to do here". A mapped type rather than a switch with a default branch, so a new fact does
 * not compile until every sink has decided what it means to it.
 */
export type FactTable<Ctx> = { readonly [K in FactName]: ((ctx: Ctx, fact: FactOf<K>) => void) | null };

/** Runs the table's handler for `fact`, if it has one. */
export function applyFact<Ctx>(table: FactTable<Ctx>, ctx: Ctx, fact: Fact): void {
  // The table pairs each name with the handler of that fact; TypeScript cannot correlate the two
  // through an indexed access, hence the one widening here.
  const handler = table[fact.f] as ((ctx: Ctx, fact: Fact) => void) | null;
  handler?.(ctx, fact);
}

/** Where a component sends its facts. */
export type Emit = (fact: Fact) => void;

/** Drops every fact (tests, and commands that report nothing). */
export const ignoreFacts: Emit = () => {};
