// The log lines of the facts about which sessions this bridge follows: leases and claims between
// replicas, discovery, and sessions refused or admitted. A part of the table in fact-log-lines.ts,
// which spreads it into the whole; the whole is what the type holds to being exhaustive.
import type { Logger } from 'pino';
import { sessionExportWarning } from '../upstream/session-export.js';
import { sessionNameWarning } from '../upstream/session-ref.js';
import type { FactTable } from '../vocabulary/facts.js';
import { logPoll } from './fact-log-words.js';

export const CLUSTER_LOG_LINES = {
  lease_renewed: (log, fact) => {
    if (fact.recovered) log.info('lease renewed again');
  },
  lease_renewal_failed: (log, fact) => {
    if (fact.first)
      log.warn(
        { error: fact.error },
        'cannot renew the lease in the shared store; sessions are given up if it does not recover in time',
      );
  },
  lease_expired: (log, fact) => {
    log.warn(
      { sessions: fact.sessions },
      'lease not renewed within its safety margin: stopped reading every session until it is',
    );
  },
  sessions_claimed: (log, fact) => {
    log.info(
      { sessions: fact.sessions, backlogRecords: fact.backlogRecords, replica: fact.replica },
      'claimed sessions',
    );
  },
  sessions_lost: (log, fact) => {
    log.warn(
      { sessions: fact.sessions.length, sample: fact.sessions.slice(0, 5) },
      `stopped following sessions: ${fact.why}`,
    );
  },
  sessions_handed_over: (log, fact) => {
    log.info({ sessions: fact.sessions }, 'handed sessions over to their preferred replica');
  },
  discovery_polled: (log, fact) => {
    logPoll(log, fact);
  },
  sessions_discovered: (log, fact) => {
    log.info(
      { sessions: fact.sessions.length, sample: fact.sessions.slice(0, 5) },
      fact.deleted
        ? 'discovered sessions deleted while no bridge was polling: reading them from the archive'
        : 'discovered new sessions: following them',
    );
  },
  // Said when the pause is seen, before the ownership pass: what the pass finds lost or taken back
  // is logged after it, and a line about the pause after those read as if nothing had changed.
  paused_checking_lease: (log, fact) => {
    log.warn(
      { pausedMs: Math.round(fact.pausedMs) },
      'the process was paused (GC, SIGSTOP, a frozen VM): checking the lease before sending anything more',
    );
  },
  lease_checked_after_pause: (log, fact) => {
    log.info(
      { pausedMs: Math.round(fact.pausedMs), stillOwned: fact.stillOwned },
      'the lease was checked after the pause: sending goes on for the sessions this replica still owns',
    );
  },
  claim_disowned: (log, fact) => {
    log.warn(
      { records: fact.records, sessions: fact.sessions.slice(0, 5) },
      'records of sessions another replica took over while this one was paused are not sent; the new owner delivers them',
    );
  },
  discovery_list_shape: (log, fact) => {
    log.warn({ shape: fact.shape }, fact.detail);
  },
  session_is_name: (log, fact) =>
    log.warn({ session: fact.session, id: fact.id }, sessionNameWarning(fact.session, fact.id)),
  listed_session_refused: (log, fact) => log.warn(`discovery: ${fact.problem}`),
  session_pool_refused: (log, fact) =>
    log.warn({ session: fact.session }, `discovered session ${fact.session}: ${fact.problem}`),
  session_exports_otlp: (log, fact) => {
    const exp = { enabled: true, ...(fact.destination !== undefined ? { destination: fact.destination } : {}) };
    log.warn(
      { session: fact.session, destination: fact.destination, sameCollector: fact.sameCollector },
      sessionExportWarning(exp, fact.sameCollector),
    );
  },
  facts_dropped: (log, fact) => {
    log.warn(
      { facts: fact.count, where: fact.where },
      'reports of the bridge itself were dropped (metrics may undercount); no telemetry record was lost',
    );
  },
  session_refused: (log, fact) => {
    if (fact.remote !== undefined) {
      log.warn(
        { session: fact.sessions[0], followed: fact.followed, maxSessions: fact.limit, remote: fact.remote },
        'control API: a new session was refused: max_sessions are followed',
      );
      return;
    }
    log.warn(
      {
        sessions: fact.sessions.slice(0, 10),
        count: fact.sessions.length,
        source: fact.source,
        followed: fact.followed,
        maxSessions: fact.limit,
      },
      'sessions not followed for now: max_sessions are followed; they are recorded and followed (from their checkpoint, or the archive once ended) as others end',
    );
  },
} satisfies Partial<FactTable<Logger>>;
