// What the sessions appended since the last commit: per session, the encoded records (becoming one
// segment) and the checkpoint they move. Taken whole by a commit; put back in front of what was
// appended meanwhile when that commit fails, so each session's records keep their seq order.
//
// A segment's payload is the session's records as one buffer. Records that lie one after the other
// in one buffer (an ingest worker's batch: a read's events of one session are encoded side by side)
// become one view over that run, not a copy: on the main thread every byte allocated outside V8's
// heap counts towards its old generation's limit, so copying each record once more made the main
// thread collect garbage several times a second. The view keeps the worker's batch alive until its
// last segment is delivered or spilled; a batch's records are sealed together, so its segments
// leave together too (at most about one seal's bytes outlive their own records). Records from
// several places are joined into a buffer of their own.
import type { CheckpointUpdate, SpanStateWriter } from './store.js';
import type { NewSegment } from '../wire/segment-framing.js';

interface Pending {
  sessionId: string;
  parts: Buffer[];
  /** True while `parts` lie one after the other in one buffer: the payload is a view over them. */
  run: boolean;
  records: number;
  bytes: number;
  firstSeq: number;
  lastSeq: number;
  /** The epoch of `lastSeq` (`epoch` is the checkpoint's, which may be a later record's). */
  lastEpoch: number;
  oldestTsMicros: number;
  checkpoint: number;
  epoch: number;
  sourceId: string | undefined;
  /** Captures the session's span state as it stands after its last append (traces on). */
  spans: SpanStateSource | undefined;
  /**
   * The last position of this batch whose state an ingest worker captured, when appends marked
   * UNCAPTURED followed it: the checkpoint may move there even though it may not move to the end.
   */
  captured: CapturedPoint | undefined;
}

/** A position a checkpoint may move to (its span state was captured there). */
interface CapturedPoint {
  checkpoint: number;
  epoch: number;
  sourceId: string | undefined;
  spans: SpanStateSource;
}

/**
 * Called when a batch is sealed: the span state at that point, serialized later when it is written;
 * undefined when no state was captured at that point (the checkpoint may not move there).
 */
export type SpanStateSource = () => SpanStateWriter | undefined;

/**
 * The source of appends known to end at a position with no state (an ingest worker captured none
 * in their batch): the checkpoint may not move there. Told apart from a source that is asked at the
 * seal (a tap on this thread) so that a captured position before it in the same seal is kept.
 */
export const UNCAPTURED: SpanStateSource = () => undefined;

/** Where `p` may move its checkpoint to: its end when the state there is not known to be missing. */
function capturedEnd(p: Pending): CapturedPoint | undefined {
  if (p.spans === undefined || p.spans === UNCAPTURED) return p.captured;
  return { checkpoint: p.checkpoint, epoch: p.epoch, sourceId: p.sourceId, spans: p.spans };
}

/**
 * One append to the spool: an encoded record of a session, or with `record` null only its checkpoint
 * moving (a filtered event, a `start: latest` baseline). Every layer that appends (the spool, its
 * writer, these pending segments, a worker's outbox) takes this one shape. It is read during the
 * call and never kept: a session fills one object and passes it for every event, so the per-event
 * path allocates nothing for it.
 */
export interface RecordToAppend {
  sessionId: string;
  seq: number;
  epoch: number;
  tsMicros: number;
  record: Buffer | null;
  /** The event's own source id; undefined leaves the session's last one in place. */
  sourceId?: string | undefined;
  /** Captures the session's span state when its batch is sealed, to be written with it (traces on). */
  spans?: SpanStateSource | undefined;
}

/** One commit's worth: what to write, and what to put back if writing fails. */
export interface PendingBatch {
  segments: NewSegment[];
  checkpoints: CheckpointUpdate[];
  records: number;
  bytes: number;
  taken: Map<string, Pending>;
}

export class PendingSegments {
  private bySession = new Map<string, Pending>();
  records = 0;
  bytes = 0;

  get sessions(): number {
    return this.bySession.size;
  }

  append(a: RecordToAppend): void {
    const { sessionId, seq, epoch, tsMicros, record, sourceId, spans } = a;
    let p = this.bySession.get(sessionId);
    if (!p) {
      p = {
        sessionId,
        parts: [],
        run: true,
        records: 0,
        bytes: 0,
        firstSeq: seq,
        lastSeq: seq,
        lastEpoch: epoch,
        oldestTsMicros: tsMicros,
        checkpoint: seq,
        epoch,
        sourceId,
        spans,
        captured: undefined,
      };
      this.bySession.set(sessionId, p);
    } else if (spans !== undefined) {
      // Before the end moves: a worker's captured position followed by uncaptured appends stays known.
      p.captured = spans === UNCAPTURED ? capturedEnd(p) : undefined;
    }
    p.checkpoint = seq;
    p.epoch = epoch;
    if (sourceId !== undefined) p.sourceId = sourceId;
    if (spans !== undefined) p.spans = spans;
    if (!record) return;
    if (p.records === 0) {
      p.firstSeq = seq;
      p.oldestTsMicros = tsMicros;
    } else if (tsMicros < p.oldestTsMicros) p.oldestTsMicros = tsMicros;
    p.lastSeq = seq;
    p.lastEpoch = epoch;
    if (p.run && p.parts.length > 0 && !adjacent(p.parts[p.parts.length - 1]!, record)) p.run = false;
    p.parts.push(record);
    p.records++;
    p.bytes += record.length;
    this.records++;
    this.bytes += record.length;
  }

  /** Takes everything for a commit; the counts stay until committed() or restore(). */
  take(): PendingBatch {
    const taken = this.bySession;
    this.bySession = new Map();
    const segments: NewSegment[] = [];
    const checkpoints: CheckpointUpdate[] = [];
    let records = 0;
    let bytes = 0;
    for (const p of taken.values()) {
      const c: CheckpointUpdate = { sessionId: p.sessionId, checkpoint: p.checkpoint, epoch: p.epoch };
      if (p.sourceId !== undefined) c.sourceId = p.sourceId;
      // Sealed after the session's last append: its span state is exactly the one at this checkpoint,
      // when one was captured there.
      if (p.spans !== undefined) {
        const state = p.spans();
        if (state !== undefined) c.spans = state;
        else {
          c.uncaptured = true;
          // The checkpoint may still move to the last captured position of the batch, before this one.
          const at = p.captured;
          const earlier = at?.spans();
          if (at && earlier !== undefined) {
            const e: CheckpointUpdate = { sessionId: p.sessionId, checkpoint: at.checkpoint, epoch: at.epoch };
            if (at.sourceId !== undefined) e.sourceId = at.sourceId;
            e.spans = earlier;
            c.capturedBefore = e;
          }
        }
      }
      checkpoints.push(c);
      if (p.records === 0) continue;
      records += p.records;
      bytes += p.bytes;
      segments.push({
        sessionId: p.sessionId,
        payload: p.run ? runView(p.parts, p.bytes) : Buffer.concat(p.parts, p.bytes),
        records: p.records,
        firstSeq: p.firstSeq,
        lastSeq: p.lastSeq,
        ...(p.lastEpoch !== 0 ? { epoch: p.lastEpoch } : {}),
        oldestTsMicros: p.oldestTsMicros,
      });
    }
    return { segments, checkpoints, records, bytes, taken };
  }

  /** The batch is durable: it no longer counts as pending. */
  committed(batch: PendingBatch): void {
    this.records -= batch.records;
    this.bytes -= batch.bytes;
  }

  /** The batch failed: its records go back in front of what was appended since, keeping seq order. */
  restore(batch: PendingBatch): void {
    for (const [id, old] of batch.taken) {
      const newer = this.bySession.get(id);
      if (!newer) {
        this.bySession.set(id, old);
        continue;
      }
      if (old.records > 0) {
        newer.firstSeq = old.firstSeq;
        if (newer.records === 0) {
          newer.lastSeq = old.lastSeq;
          newer.lastEpoch = old.lastEpoch;
          newer.oldestTsMicros = old.oldestTsMicros;
        } else newer.oldestTsMicros = Math.min(old.oldestTsMicros, newer.oldestTsMicros);
      }
      newer.run =
        old.run &&
        newer.run &&
        (old.parts.length === 0 || newer.parts.length === 0 || adjacent(old.parts.at(-1)!, newer.parts[0]!));
      newer.parts = old.parts.concat(newer.parts);
      newer.sourceId ??= old.sourceId;
      // The newer appends' captured point, else the end (or captured point) of the failed batch.
      if ((newer.spans === undefined || newer.spans === UNCAPTURED) && newer.captured === undefined)
        newer.captured = capturedEnd(old);
      newer.spans ??= old.spans;
      newer.records += old.records;
      newer.bytes += old.bytes;
    }
  }

  /** Drops what is pending for sessions given up (their new owner reads them again from the checkpoint). */
  drop(sessionIds: ReadonlySet<string>): void {
    for (const id of sessionIds) {
      const p = this.bySession.get(id);
      if (!p) continue;
      this.bySession.delete(id);
      this.records -= p.records;
      this.bytes -= p.bytes;
    }
  }
}

/** True when `b` starts in the same buffer right where `a` ends. */
function adjacent(a: Buffer, b: Buffer): boolean {
  return a.buffer === b.buffer && a.byteOffset + a.byteLength === b.byteOffset;
}

/** The records of a run (adjacent()) as one view, without copying them. */
function runView(parts: readonly Buffer[], bytes: number): Buffer {
  const first = parts[0]!;
  return parts.length === 1 ? first : Buffer.from(first.buffer, first.byteOffset, bytes);
}
