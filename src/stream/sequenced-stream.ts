// Frames of one session's stream → sequenced items: the events to keep, in seq order, with the
// gaps, duplicates, malformed frames and epoch changes between them named as items of their own.
// This is the seam between the stream and the rest of the pipeline: what comes out needs no more
// parsing and no more sequence decisions, only repair (archive), mapping and spooling.
//
// Malformed frames (not JSON, not an envelope, or an `id:` that disagrees with the envelope's seq)
// are counted and remembered by their `id:` when it is beyond the last accepted seq: the gap that
// later covers them says `malformed` for exactly those seqs. A frame too large to read is the one
// after the last accepted (frames come in seq order): it is reported and passed, or the service
// would replay it on every reconnect. When the session ends, malformed frames after the last good
// one become a gap, and an end that was not seen (no clean close before the 404) becomes an
// open-ended `tail_unknown` gap for the archive to fill or the record to admit.
import type { GapReason } from '../vocabulary/gap-reason.js';
import { parseEnvelope, type Envelope } from '../upstream/envelope.js';
import type { Frame } from './frame-decoder.js';
import { Sequencer, type EpochChange, type SequencerState } from './sequencer.js';

export type StreamItem =
  /** sourceId: the event's own telemetry_session_id (an event repaired from an earlier epoch has that epoch's). */
  | { kind: 'event'; envelope: Envelope; sourceId: string | undefined }
  | GapItem
  | { kind: 'epoch'; epoch: number; seq: number; change: EpochChange }
  | { kind: 'duplicate'; seq: number }
  | { kind: 'malformed'; frameId: string | undefined; bytes: number; reason: string };

/** Missing seqs first..last of `epoch` (last undefined: everything after first - 1, an unknown tail). */
export interface GapItem {
  kind: 'gap';
  first: number;
  last: number | undefined;
  reason: GapReason;
  epoch: number;
  /** telemetry_session_id of that epoch, when known: the archive is read for it only. */
  sourceId?: string;
  /** Event time of the last event before the gap, Unix microseconds, when known: where an archive read may start. */
  nearTsMicros?: number;
  /** The session ended: epochs the bridge never saw may follow this one in the archive. */
  final?: boolean;
}

/** Remembered malformed ids at most; beyond, only the highest is kept (memory stays bounded). */
const MAX_MALFORMED_IDS = 4096;

const SOURCE_ID_KEY = 'telemetry_session_id';

/** How far past the last accepted seq an envelope may place itself (see push). */
const MAX_SEQ_JUMP = 2 ** 32;

/** The epoch's source id carried by an event, if any (metadata values are strings in the real service). */
export function sourceIdOf(env: Envelope): string | undefined {
  const v = env.event.source.metadata?.[SOURCE_ID_KEY];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export class SequencedStream {
  private readonly seq: Sequencer;
  /** Seqs of undecodable frames beyond the last accepted one. */
  private malformedIds = new Set<number>();
  private malformedMax = 0;
  /** Whether anything of this session was ever positioned (a checkpoint or an event). */
  private followed: boolean;
  private lastTsMicros: number | undefined;
  /** The last connection ended with a clean close after which nothing can have been missed. */
  private cleanlyClosed = false;

  constructor(state: SequencerState, start: 'oldest' | 'latest' | number) {
    this.seq = new Sequencer(state, start);
    this.followed = state.lastSeq > 0 || state.epoch > 0;
  }

  get lastSeq(): number {
    return this.seq.lastSeq;
  }
  get epoch(): number {
    return this.seq.epoch;
  }
  get sourceId(): string | undefined {
    return this.seq.sourceId;
  }
  get unpositioned(): boolean {
    return this.seq.unpositioned;
  }

  /** `latest`: the current end of the stream became known before the first event. */
  setBaseline(seq: number, sourceId?: string): void {
    this.seq.setBaseline(seq, sourceId);
    if (seq > 0) this.followed = true;
  }

  /** A connection started streaming. */
  newConnection(): void {
    this.seq.newConnection();
    this.cleanlyClosed = false;
  }

  /** The connection ended: `clean` when the service closed it properly (not a reset, idle or abort). */
  connectionEnded(clean: boolean): void {
    this.cleanlyClosed = clean;
  }

  push(frame: Frame, out: StreamItem[]): void {
    const parsed = parseEnvelope(frame.data);
    if (!parsed.ok) return this.malformed(frame, parsed.reason, out);
    const env = parsed.envelope;
    // id: equals seq (docs/service-api.md "Stream telemetry events" rule 1); when it does not, neither can be trusted to place the frame.
    if (frame.id !== undefined && frame.id !== String(env.seq))
      return this.malformed(frame, 'id: disagrees with the envelope seq', out);
    // The service counts one VM's events from 1: a seq more than 2^32 past the last one (136 years
    // at a thousand events a second) is no place in this stream. Taken, it reported every seq up to
    // it as evicted (9 quadrillion missing events for a seq of 2^53 - 1) and the next true event as
    // a service restart; refused, it costs one malformed frame.
    if (env.seq - this.seq.lastSeq > MAX_SEQ_JUMP) return this.malformed(frame, 'seq jumps implausibly far', out);
    const sourceId = sourceIdOf(env);
    const d = this.seq.decide(env.seq, sourceId);
    if (d.kind === 'duplicate') {
      out.push({ kind: 'duplicate', seq: env.seq });
      return;
    }
    if (d.newEpoch) {
      const prev = d.newEpoch.previous;
      // What the old epoch sent after the bridge's last event went down with the connection.
      if (d.newEpoch.acrossReconnect && !this.cleanlyClosed && (prev.lastSeq > 0 || prev.epoch > 0)) {
        out.push(this.gapItem(prev.lastSeq + 1, undefined, 'tail_unknown', prev.epoch, prev.sourceId));
      }
      this.malformedIds.clear();
      this.malformedMax = 0;
      out.push({ kind: 'epoch', epoch: this.seq.epoch, seq: env.seq, change: d.newEpoch });
    }
    if (d.gapFirst !== undefined && d.gapLast !== undefined) {
      const reason: GapReason = d.newEpoch ? 'service_restart' : this.followed ? 'evicted' : 'evicted_before_follow';
      this.splitGap(d.gapFirst, d.gapLast, reason, sourceId, out);
    }
    // Ids increase along the stream, so an undecodable frame whose id is above a seq that came
    // after it lied about its place: it placed nothing, and must not make the end of the session
    // report everything up to its id (a hostile 9007199254740000) as lost.
    if (this.malformedMax > env.seq) this.forgetMalformedAbove(env.seq);
    this.followed = true;
    this.lastTsMicros = env.event.ts;
    out.push({ kind: 'event', envelope: env, sourceId });
  }

  private forgetMalformedAbove(seq: number): void {
    for (const id of this.malformedIds) if (id > seq) this.malformedIds.delete(id);
    this.malformedMax = 0;
    for (const id of this.malformedIds) if (id > this.malformedMax) this.malformedMax = id;
  }

  /**
   * A frame exceeded the size limit and the connection was dropped. Its id is unknown; frames come
   * in seq order, so it is the one after the last accepted: report it and move past it. (Should it
   * really carry a later seq, the next attempt skips one more, until it is passed.)
   */
  frameTooLarge(out: StreamItem[]): void {
    const seq = this.seq.lastSeq + 1;
    out.push(this.gapItem(seq, seq, 'frame_too_large', this.seq.epoch, this.seq.sourceId));
    this.seq.lastSeq = seq;
    this.malformedIds.delete(seq);
    if (this.malformedMax <= seq) this.malformedMax = 0;
    this.followed = true;
  }

  /** The service said the session is gone (404/410): what is still owed becomes gap items. */
  sessionEnded(out: StreamItem[]): void {
    const last = this.seq.lastSeq;
    const upTo = this.malformedMax;
    if (upTo > last) {
      this.splitGap(last + 1, upTo, 'malformed', this.seq.sourceId, out);
      this.seq.lastSeq = upTo;
    }
    if (!this.cleanlyClosed)
      out.push({
        ...this.gapItem(this.seq.lastSeq + 1, undefined, 'tail_unknown', this.seq.epoch, this.seq.sourceId),
        final: true,
      });
  }

  private malformed(frame: Frame, reason: string, out: StreamItem[]): void {
    const id = frame.id !== undefined && /^\d+$/.test(frame.id) ? Number(frame.id) : undefined;
    if (id !== undefined && Number.isSafeInteger(id) && id > this.seq.lastSeq) {
      // Read again (a reconnect resumed before it, as it must until a later frame passes it): the
      // same frame, a duplicate, not one more malformed frame for the counters and the log.
      if (this.malformedIds.has(id)) {
        out.push({ kind: 'duplicate', seq: id });
        return;
      }
      if (this.malformedIds.size < MAX_MALFORMED_IDS) this.malformedIds.add(id);
      if (id > this.malformedMax) this.malformedMax = id;
    }
    out.push({ kind: 'malformed', frameId: frame.id, bytes: frame.data.length, reason });
  }

  /** Splits first..last into runs of seqs that were malformed frames and runs that were simply missing. */
  private splitGap(
    first: number,
    last: number,
    reason: GapReason,
    sourceId: string | undefined,
    out: StreamItem[],
  ): void {
    const epoch = this.seq.epoch;
    if (this.malformedIds.size === 0) {
      out.push(this.gapItem(first, last, reason, epoch, sourceId));
    } else {
      // Walks the malformed ids inside the range, not every seq: an eviction gap may be huge.
      const ids = [...this.malformedIds].filter((id) => id >= first && id <= last).sort((a, b) => a - b);
      let at = first;
      for (let i = 0; i < ids.length;) {
        const runStart = ids[i] as number;
        let runEnd = runStart;
        while (i + 1 < ids.length && ids[i + 1] === runEnd + 1) runEnd = ids[++i] as number;
        i++;
        if (runStart > at) out.push(this.gapItem(at, runStart - 1, reason, epoch, sourceId));
        out.push(this.gapItem(runStart, runEnd, 'malformed', epoch, sourceId));
        at = runEnd + 1;
      }
      if (at <= last) out.push(this.gapItem(at, last, reason, epoch, sourceId));
      for (const id of ids) this.malformedIds.delete(id);
    }
    if (this.malformedMax <= last) this.malformedMax = 0;
  }

  private gapItem(
    first: number,
    last: number | undefined,
    reason: GapReason,
    epoch: number,
    sourceId?: string,
  ): GapItem {
    const item: GapItem = { kind: 'gap', first, last, reason, epoch };
    if (sourceId !== undefined) item.sourceId = sourceId;
    // History evicted before the bridge followed is older than anything it saw: no lower bound.
    if (this.lastTsMicros !== undefined && reason !== 'evicted_before_follow') item.nearTsMicros = this.lastTsMicros;
    return item;
  }
}
