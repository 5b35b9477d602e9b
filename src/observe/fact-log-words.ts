// The words and the repetition rules that several log lines share: why an epoch began, what a
// failed poll of the session list means, why a spool write failed, and how often a failure that
// repeats is said again.
import type { Logger } from 'pino';
import type { DiscoveryOutcome, EpochReason, FactOf } from '../vocabulary/facts.js';

export const EPOCH_MESSAGES: Record<EpochReason, string> = {
  source_changed: 'the service restarted (telemetry_session_id changed): continuing in a new epoch',
  seq_backwards:
    'stream sequence went backwards on a live connection: the service restarted; continuing in a new epoch',
  resume_ignored:
    'the service answered a resume with events at or below Last-Event-ID: it restarted and numbers from 1 again; continuing in a new epoch',
};

/** Reconnects in a row logged at info: the service's own end of a session takes two. */
export const ROUTINE_RECONNECTS = 2;

const POLL_MESSAGES: Record<Exclude<DiscoveryOutcome, 'ok' | 'skipped'>, string> = {
  no_route:
    'the service has no session list (GET /browsers answered 404): discovery is off until it has one; configured and PUT sessions are followed as before',
  rate_limited: 'the service rate-limits the session list; discovery waits as asked',
  server_error: 'the session list failed with a server error; discovery retries with backoff',
  unauthorized: 'the API key may not list sessions (401/403); discovery retries slowly',
  failed: 'cannot poll the session list; discovery retries with backoff',
};

/** A failed poll is said on the first of a streak and every 50th; the first success after one says so. */
export function logPoll(log: Logger, fact: FactOf<'discovery_polled'>): void {
  if (fact.outcome === 'skipped') return;
  if (fact.outcome === 'ok') {
    if (fact.streak > 0)
      log.info({ matched: fact.matched, failedPolls: fact.streak }, 'the session list answers again');
    return;
  }
  if (!sayAgain(fact.streak)) return;
  const level = fact.outcome === 'no_route' || fact.outcome === 'unauthorized' ? 'error' : 'warn';
  log[level](
    { status: fact.status, delayMs: fact.delayMs, detail: fact.detail, streak: fact.streak },
    POLL_MESSAGES[fact.outcome],
  );
}

/** Every 50th failure in a row is said again (and the first). */
export const sayAgain = (streak: number): boolean => streak === 1 || streak % 50 === 0;

/**
 * Why a commit or a delete failed, as far as its code tells: SQLite says SQLITE_FULL for a full volume
 * (ENOSPC), SQLITE_IOERR_* or SQLITE_READONLY_* for a write refused otherwise (a volume remounted
 * read-only, a failing disk, a file made unwritable), SQLITE_BUSY_* or SQLITE_LOCKED_* for a lock:
 * the bridge holds none against itself, so another program does (a sqlite3 shell inside a
 * transaction, a backup). A deleted database is store/state-file-check.ts's. "disk full?" for the
 * others sent operators looking for space they had. Errors without a code are timeouts (a shared
 * store that does not answer); the shared store's own codes are read below.
 */
export function commitFailureCause(code: string | undefined): string {
  if (code === 'STATE_FILE_GONE') return 'the state database is gone';
  if (code?.startsWith('SQLITE_BUSY') || code?.startsWith('SQLITE_LOCKED'))
    return 'another program holds the state database locked: a sqlite3 shell or a backup inside a transaction?';
  if (code?.startsWith('SQLITE_IOERR') || code?.startsWith('SQLITE_READONLY'))
    return 'the state database is read-only or its volume fails';
  // Its journal could not be opened: out of file descriptors (EMFILE) far more often than out of space.
  if (code?.startsWith('SQLITE_CANTOPEN')) return 'a file of the state database cannot be opened (open-file limit?)';
  if (code === undefined || code.startsWith('SQLITE_'))
    return code === undefined ? 'the store failed or did not answer' : 'disk full?';
  // The shared store (PostgreSQL): a socket error of node's, or an SQLSTATE. "disk full?" sent
  // operators of a cluster looking at their own volumes while the database was down.
  if (/^E[A-Z]+$/.test(code)) return 'the shared store cannot be reached';
  if (code === '53100') return "the database server's disk is full";
  if (code.startsWith('08')) return 'the shared store cannot be reached';
  if (code.startsWith('57P')) return 'the database server is shutting down or restarting';
  if (code.startsWith('53')) return 'the database server is out of resources (memory, connections)';
  return `the shared store refused the write (SQLSTATE ${code})`;
}
