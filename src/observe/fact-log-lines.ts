// The per-fact table of log lines: for each fact, the level and the words an operator reads, or
// null where the metrics carry it. Exhaustive by its type: a new fact does not compile until it
// has decided here or in the part of the table kept apart (fact-log-cluster-lines.ts: replicas,
// discovery and which sessions are followed).
import type { Logger } from 'pino';
import type { FactTable } from '../vocabulary/facts.js';
import { CLUSTER_LOG_LINES } from './fact-log-cluster-lines.js';
import { commitFailureCause, EPOCH_MESSAGES, ROUTINE_RECONNECTS, sayAgain } from './fact-log-words.js';

/** The line each fact writes; null: the metrics carry it, no line. */
export const LOG_LINES: FactTable<Logger> = {
  events_received: null,
  duplicates: null,
  malformed_frame: (log, fact) => {
    // The payload is never logged: it may carry exactly the secrets redaction exists for.
    log.warn(
      { session: fact.session, frameId: fact.frameId, bytes: fact.bytes, reason: fact.reason },
      'malformed frame skipped; it will be reported in a gap record unless the archive has the event',
    );
  },
  epoch_started: (log, fact) => {
    log.warn(
      {
        session: fact.session,
        epoch: fact.epoch,
        seq: fact.seq,
        why: fact.why,
        previousEpoch: fact.previousEpoch,
        previousLastSeq: fact.previousLastSeq,
      },
      EPOCH_MESSAGES[fact.why],
    );
  },
  gap_recorded: (log, fact) => {
    log.warn(
      {
        session: fact.session,
        firstSeq: fact.first,
        lastSeq: fact.last,
        count: fact.last - fact.first + 1,
        reason: fact.reason,
      },
      'telemetry gap: events were lost upstream or could not be decoded',
    );
  },
  tail_unknown: (log, fact) => {
    log.warn(
      { session: fact.session, epoch: fact.epoch, afterSeq: fact.afterSeq },
      'the session (or service epoch) ended unseen and its tail cannot be read: reported as unknown',
    );
  },
  archive_repaired: (log, fact) => {
    log.info(
      {
        session: fact.session,
        firstSeq: fact.first,
        lastSeq: fact.last,
        reason: fact.reason,
        repaired: fact.repaired,
      },
      'missing events read from the service archive',
    );
  },
  archive_probed: (log, fact) => {
    if (fact.verdict === 'no_route')
      log.warn(
        { session: fact.session, detail: fact.detail },
        'the service has no telemetry archive: gaps are reported, not repaired; asked again in a while',
      );
    else if (fact.verdict === 'no_session')
      log.warn(
        { session: fact.session, detail: fact.detail },
        'the archive does not know this session: its gaps are reported; other sessions are still repaired',
      );
    else
      log.info(
        { session: fact.session, detail: fact.detail },
        'the archive answered 404 and the service could not be asked which 404 it is; trying again at the next gap',
      );
  },
  archive_unreadable: (log, fact) => {
    log.warn(
      { session: fact.session, firstSeq: fact.first, lastSeq: fact.last, detail: fact.detail },
      'the archive could not be read; the loss is reported instead',
    );
  },
  archive_repair_owed: (log, fact) => {
    log.warn(
      { session: fact.session, firstSeq: fact.first, lastSeq: fact.last, detail: fact.detail, forMs: fact.forMs },
      'the archive could not be read; the gap is owed: the session waits and the archive is read again before a loss is reported',
    );
  },
  mapping_failed: (log, fact) => {
    log.error(
      { session: fact.session, seq: fact.seq, type: fact.type, error: fact.error },
      'cannot map event; reported as a gap',
    );
  },
  state_changed: null,
  reconnect_scheduled: (log, fact) => {
    // The real service ends a session by resetting the connection, answering 502 for a moment,
    // then 404: two reconnects after a working stream are how sessions end, not a problem. A
    // failure that persists past them is worth a warning; a refused key is an error at once.
    const level =
      fact.reason === 'unauthorized' || fact.reason === 'forbidden'
        ? 'error'
        : fact.reason === 'closed'
          ? 'debug'
          : fact.attempt <= ROUTINE_RECONNECTS
            ? 'info'
            : 'warn';
    log[level](
      {
        session: fact.session,
        reason: fact.reason,
        delayMs: fact.delayMs,
        attempt: fact.attempt,
        detail: fact.detail,
      },
      'stream reconnect scheduled',
    );
  },
  connected: null,
  session_ended: (log, fact) => {
    log.info({ session: fact.session, lastSeq: fact.lastSeq, epoch: fact.epoch, detail: fact.detail }, 'session ended');
  },
  session_unknown: (log, fact) => {
    log.warn(
      { session: fact.session, detail: fact.detail },
      'the service does not know this session (never existed: a mistyped id?); it is not followed',
    );
  },
  event_filtered: null,
  record_oversized: null,
  values_redacted: null,
  screenshot_written: null,
  screenshot_failed: null,
  reads_paced: null,
  commit_failed: (log, fact) => {
    const why = commitFailureCause(fact.code);
    if (sayAgain(fact.streak))
      log.error(
        { error: fact.error, code: fact.code, streak: fact.streak },
        fact.checkpointsOnly
          ? `cannot write the checkpoints (${why}); delivery goes on from memory and the write is retried`
          : `cannot write the spool (${why}); reading is paused and the write is retried`,
      );
  },
  commit_recovered: (log) => {
    log.info('spool writes succeed again');
  },
  delete_failed: (log, fact) => {
    if (sayAgain(fact.streak))
      log.error(
        { error: fact.error, code: fact.code, streak: fact.streak },
        `cannot delete delivered records from the spool (${commitFailureCause(fact.code)}); delivery goes on and the delete is retried`,
      );
  },
  writes_fenced: (log, fact) => {
    log.warn(
      { sessions: fact.sessions.length, sample: fact.sessions.slice(0, 5) },
      'the shared store refused a write for sessions this replica no longer holds (another replica took them, or its lease ran out): what it read of them is dropped, and their owner reads it again from the stored checkpoint',
    );
  },
  // Nothing else moves while it lasts (writes succeed, the spool is empty): /readyz says it too.
  volume_full: (log, fact) => {
    if (sayAgain(fact.times))
      log.warn(
        { freeBytes: fact.freeBytes, reserveBytes: fact.reserveBytes, times: fact.times },
        "reading paused: the state directory's volume has no room beyond what the spool keeps free for SQLite, and delivering would not free it; free space on it or give it a larger volume",
      );
  },
  // Said for the pauses that were said (the first and every 50th): a volume hovering at its
  // reserve pauses and resumes again and again, and a resume without its pause reads as noise.
  volume_room: (log, fact) => {
    if (sayAgain(fact.times))
      log.info({ times: fact.times }, "room on the state directory's volume again: reading resumes");
  },
  // Once per pause, at its start and at its end, with how long: the spool's own retries say why.
  delivery_paused: (log, fact) => {
    log.warn(
      { waitedMs: fact.waitedMs },
      'checkpoints are not being written: delivery from memory pauses until a write goes through (what another replica would send again stays bounded)',
    );
  },
  delivery_resumed: (log, fact) => {
    if (fact.why === 'written')
      log.info({ pausedMs: fact.pausedMs }, 'checkpoints are written again: delivery from memory resumes');
    else if (fact.why === 'closing')
      log.info(
        { pausedMs: fact.pausedMs },
        "delivery from memory resumes for the stop's drain (checkpoints are written at its end)",
      );
    else
      log.info(
        { pausedMs: fact.pausedMs },
        'delivery from memory no longer waits: the sessions whose checkpoints could not be written were given up (their next owner resumes them from their stored checkpoints)',
      );
  },
  export_attempted: null,
  records_delivered: null,
  records_rejected: (log, fact) => {
    // Each one is counted (bridge_events_rejected_total); a collector that rejects some records in
    // every answer is said the first time, every 50th time, and when its message changes.
    if (fact.reason === 'partial_success') {
      if (sayAgain(fact.times ?? 1))
        log.error(
          { endpoint: fact.endpoint, rejected: fact.count, error: fact.error, times: fact.times },
          'collector rejected records in a partial-success answer',
        );
    } else
      // Every drop is counted and written, but at error level only the first of its reason and
      // every 50th: a collector whose size limit is below a kind of record drops each one of them.
      log[sayAgain(fact.times ?? 1) ? 'error' : 'debug'](
        {
          endpoint: fact.endpoint,
          segments: fact.segments,
          reason: fact.reason,
          count: fact.count,
          error: fact.error,
          times: fact.times,
        },
        'collector refused a record it accepts neighbours of; it is dropped and counted as rejected',
      );
  },
  export_failed: (log, fact) => {
    if (fact.attempt % 20 === 1)
      log.warn(
        {
          endpoint: fact.endpoint,
          status: fact.status,
          grpcCode: fact.grpcCode,
          records: fact.records,
          attempt: fact.attempt,
          delayMs: fact.delayMs,
          error: fact.error,
        },
        'export failed; the batch stays spooled and is retried',
      );
  },
  export_recovered: (log, fact) => {
    log.info({ endpoint: fact.endpoint, records: fact.records }, 'collector accepts exports again');
  },
  collector_refusing: (log, fact) => {
    if (sayAgain(fact.round) || fact.round % 20 === 0)
      log.error(
        {
          endpoint: fact.endpoint,
          status: fact.status,
          records: fact.records,
          round: fact.round,
          delayMs: fact.delayMs,
          error: fact.error,
        },
        "the collector refuses every record it is sent: check the exporter's endpoint, headers, compression and tenant; nothing is dropped, delivery backs off and resumes by itself",
      );
  },
  spool_unreadable: (log, fact) => {
    log.error({ error: fact.error }, 'cannot read the spool; retrying');
  },
  ...CLUSTER_LOG_LINES,
  export_answer_unrecognized: (log, fact) => {
    if (sayAgain(fact.count))
      log.warn(
        {
          endpoint: fact.endpoint,
          status: fact.status,
          contentType: fact.contentType,
          bytes: fact.bytes,
          count: fact.count,
        },
        'the collector answered 2xx with a body that is not an OTLP response (an HTML page? is the endpoint path right?); the records count as delivered, as it said, but may be stored nowhere',
      );
  },
  spans_exported: null,
  spans_dropped: (log, fact) => {
    if (fact.reason === 'overflow') {
      // The span queue decides (export/overflow-notice.ts): the first drop, then once a minute at most.
      if (fact.quiet !== true)
        log.warn(
          { dropped: fact.dropped, since: fact.since, queueMaxBytes: fact.queueMaxBytes, error: fact.error },
          'the span queue is full (traces.queue_max_bytes) while the collector does not take spans: the oldest spans are dropped; records are not affected',
        );
      return;
    }
    if (sayAgain(fact.times ?? 1))
      log.warn({ count: fact.count, reason: fact.reason, times: fact.times, error: fact.error }, 'spans not delivered');
  },
  spans_export_failed: (log, fact) => {
    if (fact.attempt % 20 === 1)
      log.warn(
        {
          endpoint: fact.endpoint,
          status: fact.status,
          grpcCode: fact.grpcCode,
          spans: fact.spans,
          attempt: fact.attempt,
          delayMs: fact.delayMs,
          error: fact.error,
        },
        'span export failed; the spans wait in their queue and are sent again',
      );
  },
  spans_export_recovered: (log, fact) => {
    log.info({ endpoint: fact.endpoint }, 'the collector accepts spans again');
  },
  traces_unsupported: (log, fact) => {
    log.warn(
      { endpoint: fact.endpoint, status: fact.status, grpcCode: fact.grpcCode, retryInMs: fact.retryInMs },
      'the collector has no traces pipeline: spans wait and are offered again later; records are delivered as usual',
    );
  },
  traces_supported: (log, fact) => {
    log.info({ endpoint: fact.endpoint }, 'the collector accepts spans');
  },
  config_reloaded: (log, fact) => {
    const { reason, added, removed, updated, mappingChanged, startChanged } = fact;
    const changed = added.length + removed.length + updated.length > 0 || mappingChanged || startChanged;
    log.info(
      { reason, added, removed, updated, mappingChanged, startChanged },
      changed ? 'configuration reloaded' : 'configuration reloaded: nothing to change',
    );
    if (fact.restartRequired.length > 0)
      log.warn(
        { keys: fact.restartRequired },
        'changed settings require a restart to take effect; running on with the previous values',
      );
  },
  config_rejected: (log, fact) => {
    log.error(
      { reason: fact.reason, key: fact.key, error: fact.error },
      'new configuration is invalid and was ignored; running on with the previous one',
    );
  },
};
