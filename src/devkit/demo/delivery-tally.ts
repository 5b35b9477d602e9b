// Counts, from what a receiver decoded, how completely each session was delivered: unique seqs,
// duplicates (same log.record.uid), events covered by gap records, and seqs that are simply missing.
// Used by `demo` to prove delivery, and by the integration tests.
import type { ReceivedLogRecord } from '../receiver/server.js';

export interface SessionTally {
  sessionId: string;
  unique: number;
  duplicates: number;
  gapRecords: number;
  gapEvents: number;
  /** Gap records that admit an unknown tail (no last seq): the session ended unseen. */
  tailsUnknown: number;
  /** Seqs in 1..lastSeq neither delivered nor covered by a gap record. */
  missing: number;
  missingSample: number[];
}

export function tallyDelivery(
  records: readonly ReceivedLogRecord[],
  sessionIds: string[],
  lastSeq: (id: string) => number,
): SessionTally[] {
  return sessionIds.map((id) => {
    const seen = new Set<number>();
    let duplicates = 0;
    let gapRecords = 0;
    let gapEvents = 0;
    let tailsUnknown = 0;
    const covered = new Set<number>();
    const gapUids = new Set<string>();
    for (const r of records) {
      if (r.attributes['browser.session.id'] !== id) continue;
      if (r.eventName === 'browser.telemetry_gap') {
        const uid = String(r.attributes['log.record.uid']);
        if (gapUids.has(uid)) continue;
        gapUids.add(uid);
        gapRecords++;
        if (r.attributes['browser.telemetry.gap.last_seq'] === undefined) {
          tailsUnknown++;
          continue;
        }
        const first = Number(r.attributes['browser.telemetry.gap.first_seq']);
        const last = Number(r.attributes['browser.telemetry.gap.last_seq']);
        gapEvents += last - first + 1;
        for (let s = first; s <= last; s++) covered.add(s);
        continue;
      }
      const seq = Number(r.attributes['browser.telemetry.seq']);
      if (seen.has(seq)) duplicates++;
      else seen.add(seq);
    }
    const missingSample: number[] = [];
    let missing = 0;
    const last = lastSeq(id);
    for (let s = 1; s <= last; s++) {
      if (!seen.has(s) && !covered.has(s)) {
        missing++;
        if (missingSample.length < 10) missingSample.push(s);
      }
    }
    return {
      sessionId: id,
      unique: seen.size,
      duplicates,
      gapRecords,
      gapEvents,
      tailsUnknown,
      missing,
      missingSample,
    };
  });
}

/**
 * Why `demo` failed, in the order a person should look: the daemon's exit (undefined: it had not
 * finished and was stopped), then which events are missing.
 */
export function describeFailure(
  tallies: SessionTally[],
  exitCode: number | null | undefined,
  elapsed: number,
  stalledS: number,
): string {
  const missing = tallies.reduce((n, t) => n + t.missing, 0);
  const why =
    exitCode === undefined
      ? `the daemon had not finished after ${elapsed.toFixed(0)} s and delivered nothing new for ${stalledS.toFixed(0)} s (stopped with SIGTERM)`
      : exitCode !== 0
        ? `the daemon exited with code ${exitCode} (its log lines are above)`
        : 'the daemon exited 0 but the receiver lacks events';
  const where = tallies
    .filter((t) => t.missing > 0)
    .map(
      (t) =>
        `${t.sessionId} lacks ${t.missing} (seq ${t.missingSample.join(', ')}${t.missing > t.missingSample.length ? ', …' : ''})`,
    );
  return `✗ delivery incomplete: ${why}${missing > 0 ? `; ${missing} event(s) missing: ${where.join('; ')}` : ''}`;
}
