// Periodic status of a running daemon: one structured log line (every 60 s off a terminal, so log
// pipelines get a heartbeat; every 5 s on a terminal, where a person is watching).
import type { Logger } from 'pino';
import type { Bridge } from '../pipeline/bridge.js';

export interface StatusSummary {
  sessions: Record<string, number>;
  received: number;
  delivered: number;
  gaps: number;
  malformed: number;
  spoolRecords: number;
  spoolBytes: number;
  exportFailing: boolean;
}

export function summarize(bridge: Bridge): StatusSummary {
  const sessions: Record<string, number> = {};
  let received = 0;
  let gaps = 0;
  let malformed = 0;
  for (const s of bridge.supervisor.status()) {
    sessions[s.state] = (sessions[s.state] ?? 0) + 1;
    received += s.received;
    gaps += s.gaps;
    malformed += s.malformedFrames;
  }
  const spool = bridge.spool.spooled;
  return {
    sessions, received, gaps, malformed,
    delivered: bridge.delivery.deliveredTotal,
    spoolRecords: spool.records + bridge.spool.pendingCount,
    spoolBytes: spool.bytes,
    exportFailing: bridge.delivery.exportFailing,
  };
}

export function startStatusReporter(bridge: Bridge, log: Logger, intervalMs = process.stderr.isTTY ? 5000 : 60_000): { stop(): void } {
  let last = -1;
  const t = setInterval(() => {
    const s = summarize(bridge);
    // On a terminal, stay quiet while nothing moves.
    if (process.stderr.isTTY && s.received === last) return;
    last = s.received;
    log.info({ status: s }, `sessions ${Object.entries(s.sessions).map(([k, v]) => `${k}=${v}`).join(' ') || 'none'} · received ${s.received} · delivered ${s.delivered} · spool ${s.spoolRecords}${s.exportFailing ? ' · EXPORT FAILING' : ''}`);
  }, intervalMs);
  t.unref();
  return { stop: () => clearInterval(t) };
}
