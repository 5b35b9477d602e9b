// Repairs a gap item from the service's archive: the missing events it still has come back as event
// items in seq order; what it does not have stays a gap item, with the original reason, covering
// exactly the seqs still missing. An unknown tail (open range) read successfully is known: the
// archive's events after the last one seen are the tail, and when the session has ended, events of
// epochs the bridge never saw (the service restarted and the session ended before seq passed the
// bridge's Last-Event-ID) follow as new epochs.
//
// Events are matched by seq and by the epoch's telemetry_session_id when it is known; the archive is
// read from a little before the event time of the last event before the gap. That time bounds only
// where reading starts (ts is not ordered by seq, hence the generous margin); nothing is decided by it.
import type { ArchiveReader } from '../upstream/archive.js';
import type { Envelope } from '../upstream/envelope.js';
import { sourceIdOf, type GapItem, type StreamItem } from '../stream/sequenced-stream.js';

/** How far before the last seen event's time the archive is read (ts is not ordered by seq). */
const SINCE_MARGIN_MICROS = 10 * 60 * 1_000_000;

export interface RepairResult {
  items: StreamItem[];
  /** Events the archive supplied. */
  repaired: number;
  /** Why the archive could not help, when it could not (absent, or a failed read). */
  unavailable?: string;
  /** The archive exists but could not be read now: it may have the events later (owed-gap.ts). */
  readFailed?: true;
}

export async function repairGap(
  archive: ArchiveReader,
  sessionId: string,
  gap: GapItem,
  signal?: AbortSignal,
): Promise<RepairResult> {
  const sinceMicros = gap.nearTsMicros !== undefined ? Math.max(0, gap.nearTsMicros - SINCE_MARGIN_MICROS) : 0;
  // Everything from the seq before the gap on, in archive order: which epoch is ours is decided
  // after reading when the bridge does not know its source id (it restarted since it last saw one).
  const seen: Envelope[] = [];
  const want = gap.last === undefined ? Infinity : gap.last - gap.first + 1;
  let wanted = 0;
  const read = await archive.scan(
    sessionId,
    {
      sinceMicros,
      onPage: (page) => {
        for (const env of page) {
          const sid = sourceIdOf(env);
          const ours = gap.sourceId === undefined || sid === gap.sourceId;
          if (ours && env.seq >= gap.first && (gap.last === undefined || env.seq <= gap.last)) wanted++;
          if (env.seq >= gap.first - 1 || (gap.final && !ours)) seen.push(env);
        }
        // A closed range of a known epoch stops once complete; anything else reads to the end.
        return gap.final || gap.sourceId === undefined || wanted < want;
      },
    },
    signal,
  );
  if (read.kind === 'absent') return { items: [gap], repaired: 0, unavailable: 'no archive' };
  if (read.kind === 'failed') return { items: [gap], repaired: 0, unavailable: read.detail, readFailed: true };

  const sourceId = gap.sourceId ?? ownSourceId(seen, gap);
  if (sourceId === null)
    return {
      items: [gap],
      repaired: 0,
      unavailable: 'the archive holds several epochs and the bridge cannot tell which is this one',
    };
  const ours = (env: Envelope): boolean => sourceId === undefined || sourceIdOf(env) === sourceId;
  const found = new Map<number, Envelope>();
  // Later epochs, by source id in the order the archive shows them after our last event (final tails only).
  const later = new Map<string, Map<number, Envelope>>();
  let pastOurs = sourceId !== undefined && gap.first === 1;
  for (const env of seen) {
    const sid = sourceIdOf(env);
    if (ours(env)) {
      if (env.seq === gap.first - 1) pastOurs = true;
      if (env.seq >= gap.first && (gap.last === undefined || env.seq <= gap.last)) {
        found.set(env.seq, env);
        pastOurs = true;
      }
    } else if (gap.final && pastOurs && sid !== undefined && sourceId !== undefined) {
      let epoch = later.get(sid);
      if (!epoch) later.set(sid, (epoch = new Map<number, Envelope>()));
      epoch.set(env.seq, env);
    }
  }

  const template: GapItem = sourceId === undefined ? gap : { ...gap, sourceId };
  const items: StreamItem[] = [];
  const last = gap.last ?? (found.size > 0 ? seqBounds(found).max : gap.first - 1);
  fill(items, found, gap.first, last, template);
  let epoch = gap.epoch;
  let previous = { epoch: gap.epoch, lastSeq: last, ...(sourceId !== undefined ? { sourceId } : {}) };
  for (const [sid, events] of later) {
    epoch++;
    const { min, max: top } = seqBounds(events);
    items.push({ kind: 'epoch', epoch, seq: min, change: { why: 'source_changed', previous, acrossReconnect: true } });
    fill(items, events, 1, top, { ...gap, epoch, sourceId: sid, reason: 'service_restart' });
    previous = { epoch, lastSeq: top, sourceId: sid };
  }
  return { items, repaired: found.size + [...later.values()].reduce((n, m) => n + m.size, 0) };
}

/** Lowest and highest seq of a non-empty map, by a loop: spreading a long tail's seqs into Math.max overflows the stack. */
function seqBounds(events: Map<number, Envelope>): { min: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  for (const seq of events.keys()) {
    if (seq < min) min = seq;
    if (seq > max) max = seq;
  }
  return { min, max };
}

/**
 * The epoch a gap belongs to when the bridge does not know its source id: the one whose event at
 * the seq before the gap is archived. undefined: the archive's events carry no source id at all
 * (match by seq alone); null: several epochs (or none) fit, and guessing could attribute another
 * epoch's events to this one.
 */
function ownSourceId(seen: Envelope[], gap: GapItem): string | undefined | null {
  if (seen.every((e) => sourceIdOf(e) === undefined)) return undefined;
  const candidates = new Set<string>();
  for (const e of seen) {
    const sid = sourceIdOf(e);
    if (sid !== undefined && e.seq === gap.first - 1) candidates.add(sid);
  }
  if (candidates.size === 0 && gap.first === 1) {
    // Nothing seen of this session yet: one epoch in the archive can only be this one.
    for (const e of seen) {
      const sid = sourceIdOf(e);
      if (sid !== undefined) candidates.add(sid);
    }
  }
  return candidates.size === 1 ? [...candidates][0] : null;
}

/** Events first..last in seq order, with gap items (the template's reason) for the runs not found. */
function fill(items: StreamItem[], found: Map<number, Envelope>, first: number, last: number, template: GapItem): void {
  let missingFrom = 0;
  const seqs = [...found.keys()].sort((a, b) => a - b);
  let at = first;
  const gapTo = (to: number): void => {
    const g: GapItem = { kind: 'gap', first: missingFrom, last: to, reason: template.reason, epoch: template.epoch };
    if (template.sourceId !== undefined) g.sourceId = template.sourceId;
    items.push(g);
  };
  for (const seq of seqs) {
    if (seq < first || seq > last) continue;
    if (seq > at) {
      missingFrom = at;
      gapTo(seq - 1);
    }
    const env = found.get(seq) as Envelope;
    items.push({ kind: 'event', envelope: env, sourceId: sourceIdOf(env) });
    at = seq + 1;
  }
  if (at <= last) {
    missingFrom = at;
    gapTo(last);
  }
}
