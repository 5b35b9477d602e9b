// The demo's daemon writes its log to a pipe, so it writes pino's JSON lines; printed as they come
// they were raw JSON in the middle of the demo's table. The demo reads them and prints each as one
// short line a person reads (level, message, the session it is about). Pure, for a table-driven test.

/** pino's numeric levels (pino's defaults). */
const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/**
 * One line of the daemon's stderr as the demo prints it; a line that is not a pino record is kept as
 * it is. With `seen`, a line about a frame (a malformed one, by `frameId`) already printed for that
 * session gives undefined: a resume from a checkpoint before it, or the restarted daemon, reads the
 * same frame again, and three warnings would read as three broken frames.
 */
export function formatDaemonLine(line: string, seen?: Set<string>): string | undefined {
  let rec: unknown;
  try {
    rec = JSON.parse(line);
  } catch {
    return `daemon: ${line}`;
  }
  if (typeof rec !== 'object' || rec === null || typeof (rec as { msg?: unknown }).msg !== 'string')
    return `daemon: ${line}`;
  const r = rec as { level?: unknown; msg: string; session?: unknown; error?: unknown; frameId?: unknown };
  const level = typeof r.level === 'number' ? (LEVELS[r.level] ?? String(r.level)) : 'log';
  const about = typeof r.session === 'string' ? ` [${r.session}]` : '';
  const error = typeof r.error === 'string' ? `: ${r.error}` : '';
  const frame = typeof r.frameId === 'string' ? ` (frame ${r.frameId})` : '';
  if (frame !== '' && seen) {
    const key = `${String(r.session)}\n${String(r.frameId)}\n${r.msg}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
  }
  return `daemon ${level}${about}: ${r.msg}${frame}${error}`;
}
