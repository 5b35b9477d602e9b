// Periodic status of a running daemon. Off a terminal: one structured log line every 60 s (a
// heartbeat for log pipelines, with every number as a field). On a terminal, where a person is
// watching: one compact line every 5 s while something moves, nothing while it does not.
import type { Logger } from 'pino';
import type { Bridge } from '../daemon/bridge.js';

export interface StatusSummary {
  sessions: Record<string, number>;
  received: number;
  delivered: number;
  gaps: number;
  /** Sessions waiting on a gap the archive cannot be read for now (owed, not yet lost); absent: none. */
  owedGaps?: number;
  malformed: number;
  spoolRecords: number;
  spoolBytes: number;
  exportFailing: boolean;
  /** The collector refuses every record (status and its message), when it does. */
  exportRefusing?: string;
  /** Why the spans' export fails, when it does (traces.enabled): the words delivery's lastError uses. */
  tracesFailing?: string;
}

export function summarize(bridge: Bridge): StatusSummary {
  const sessions: Record<string, number> = {};
  let gaps = 0;
  let malformed = 0;
  let owedGaps = 0;
  for (const s of bridge.supervisor.status()) {
    if (s.owedGap) owedGaps++;
    sessions[s.state] = (sessions[s.state] ?? 0) + 1;
    gaps += s.gaps;
    malformed += s.malformedFrames;
  }
  const spool = bridge.spool.spooled;
  return {
    sessions,
    // The process's counter, as `delivered` is, not the sum of the sessions' statuses: an ingest
    // worker's statuses are up to a second old, its counts reach the counter ahead of its records.
    received: bridge.metrics.eventsReceived.get() ?? 0,
    gaps,
    ...(owedGaps > 0 ? { owedGaps } : {}),
    malformed,
    delivered: bridge.delivery.deliveredTotal,
    spoolRecords: spool.records + bridge.spool.pendingCount,
    spoolBytes: spool.bytes,
    exportFailing: bridge.delivery.exportFailing,
    ...(bridge.delivery.refusing
      ? { exportRefusing: bridge.delivery.lastError ?? bridge.delivery.refusing.message }
      : {}),
    ...(bridge.spans?.lastError !== undefined ? { tracesFailing: bridge.spans.lastError } : {}),
  };
}

/** The status as one short line: "2 streaming · received 1200 (+40/s) · delivered 1180 · spool 20". */
export function formatStatusLine(s: StatusSummary, previous: StatusSummary | undefined, seconds: number): string {
  const states =
    Object.entries(s.sessions)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ') || 'no sessions';
  const rate = previous && seconds > 0 ? ` (+${Math.round((s.received - previous.received) / seconds)}/s)` : '';
  const parts = [states, `received ${s.received}${rate}`, `delivered ${s.delivered}`, `spool ${s.spoolRecords}`];
  if (s.gaps > 0) parts.push(`gaps ${s.gaps}`);
  if (s.owedGaps) parts.push(`gaps owed ${s.owedGaps} (archive unreadable; see top)`);
  if (s.malformed > 0) parts.push(`malformed ${s.malformed}`);
  if (s.exportRefusing) parts.push(`EXPORT REFUSED: ${s.exportRefusing}`);
  else if (s.exportFailing) parts.push('EXPORT FAILING');
  if (s.tracesFailing) parts.push(`TRACES FAILING: ${s.tracesFailing}`);
  return parts.join(' · ');
}

export interface ReporterOptions {
  /** A person is watching stderr (compact lines, only on change). Default: stderr is a TTY. */
  tty?: boolean;
  intervalMs?: number;
}

export function startStatusReporter(
  read: () => StatusSummary,
  log: Logger,
  opts: ReporterOptions = {},
): { stop(): void } {
  const tty = opts.tty ?? Boolean(process.stderr.isTTY);
  const intervalMs = opts.intervalMs ?? (tty ? 5000 : 60_000);
  let previous: StatusSummary | undefined;
  const t = setInterval(() => {
    const s = read();
    const line = formatStatusLine(s, previous, intervalMs / 1000);
    if (tty) {
      // Quiet while nothing moves; no object, so a pretty printer keeps it to one line.
      if (
        !previous ||
        s.received !== previous.received ||
        s.delivered !== previous.delivered ||
        // A session held by an owed gap moves nothing: that it started or stopped waiting is news.
        s.owedGaps !== previous.owedGaps ||
        s.exportFailing !== previous.exportFailing
      )
        log.info(line);
    } else {
      log.info({ status: s }, line);
    }
    previous = s;
  }, intervalMs);
  t.unref();
  return { stop: () => clearInterval(t) };
}
