// What `tail` showed, said once when a signal stops it (Ctrl-C, SIGTERM): a person who scrolled
// past thousands of lines, or whose filters showed nothing, learns how much went by and what was
// missing, as `run` says what it delivers when it stops. An end of the session needs no summary:
// the stream itself said everything as it came. Pure: the counts and the elapsed time come in.

/** Counted while tail runs; every field only grows. */
export interface TailTally {
  /** Events printed (after the filters). */
  shown: number;
  /** Events received that --types / --categories left out. */
  filtered: number;
  /** Gap notes printed (missing sequence numbers, frames over the limit). */
  gaps: number;
  /** Events those gaps stand for. */
  missed: number;
  /** Undecodable frames skipped (each once, however often a resume reads it again). */
  malformed: number;
  /** Connections after the first. */
  reconnects: number;
}

export const emptyTally = (): TailTally => ({
  shown: 0,
  filtered: 0,
  gaps: 0,
  missed: 0,
  malformed: 0,
  reconnects: 0,
});

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** "12.3 s", "4 min 05 s", "2 h 03 min": how long tail ran. */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  // Below 59.95 s: one decimal would round anything above it up to "60.0 s".
  if (s < 59.95) return `${s.toFixed(1)} s`;
  const whole = Math.round(s);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`;
  return `${Math.floor(whole / 3600)} h ${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')} min`;
}

/** The line printed on a signal (a note, without its marker): what was shown, what was missing, for how long. */
export function tailSummary(t: TailTally, signal: string, elapsedMs: number): string {
  const parts = [
    `${plural(t.shown, 'event')} shown`,
    ...(t.filtered > 0 ? [`${t.filtered} left out by the filters`] : []),
    t.gaps === 0 ? 'no gaps' : `${plural(t.gaps, 'gap')} (${plural(t.missed, 'event')} not received)`,
    ...(t.malformed > 0 ? [`${plural(t.malformed, 'undecodable frame')} skipped`] : []),
    ...(t.reconnects > 0 ? [plural(t.reconnects, 'reconnect')] : []),
  ];
  return `stopped by ${signal} after ${formatElapsed(elapsedMs)}: ${parts.join(', ')}`;
}
