// The per-session replay buffer (docs/service-api.md "Limits": bounded, the oldest events are
// evicted; "Stream telemetry events" rule 3): the last `capacity` frames of the current service
// epoch, a view on the session's frame log (frame-log.ts). Seqs inside one epoch are contiguous and
// every seq is one entry of the log, so the frame of seq s is the log entry at a fixed distance from
// the epoch's first: lookup is O(1), and nothing is kept per frame here.
//
// A frame that broke on the wire (SimSession.injectMalformed: the service archived a proper event,
// the stream carried garbage) is the one exception: its wire bytes are kept beside the log, by seq,
// until the epoch ends or a later tear finds it evicted.
import type { FrameLog } from './frame-log.js';
import { httpChunk } from './http-chunk.js';

export class ReplayBuffer {
  /** Log index of the current epoch's first frame. */
  private epochStart: number;
  /** Seq of the frame at epochStart. */
  private seqBase = 1;
  private readonly onWire = new Map<number, Buffer>();

  constructor(
    private readonly log: FrameLog,
    readonly capacity: number,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('bufferSize must be a positive integer');
    if (capacity > log.retain) throw new RangeError('the frame log must retain at least the replay buffer');
    this.epochStart = log.end;
  }

  /** Seq of the oldest retained frame; lastSeq + 1 when empty. */
  get oldestSeq(): number {
    return this.seqBase + this.oldestIndex() - this.epochStart;
  }

  get lastSeq(): number {
    return this.seqBase + this.log.end - this.epochStart - 1;
  }

  get size(): number {
    return this.log.end - this.oldestIndex();
  }

  /** The frame of `seq` (a view of the log's bytes), or undefined when evicted or not yet assigned. */
  get(seq: number): Buffer | undefined {
    const i = this.epochStart + seq - this.seqBase;
    if (i < this.oldestIndex() || i >= this.log.end) return undefined;
    if (this.onWire.size > 0) {
      const torn = this.onWire.get(seq);
      if (torn !== undefined) return torn;
    }
    return this.log.frame(i);
  }

  /**
   * Frames of seqs from … to (inclusive, all retained) as views, taken while their total is below
   * `maxBytes`; returns the last seq taken.
   */
  spans(from: number, to: number, maxBytes: number, out: Buffer[]): number {
    return this.views(from, to, maxBytes, out, false);
  }

  /** The same frames as complete HTTP/1.1 chunks, a run of them adjacent in the log as one view (FrameLog.chunks). */
  chunks(from: number, to: number, maxBytes: number, out: Buffer[]): number {
    return this.views(from, to, maxBytes, out, true);
  }

  private views(from: number, to: number, maxBytes: number, out: Buffer[], framed: boolean): number {
    const base = this.epochStart - this.seqBase;
    if (this.onWire.size === 0) {
      const end = base + to + 1;
      return (
        (framed ? this.log.chunks(base + from, end, maxBytes, out) : this.log.spans(base + from, end, maxBytes, out)) -
        1 -
        base
      );
    }
    // Rare (a test hook): frame by frame, a replaced frame in a chunk of its own.
    let bytes = 0;
    let seq = from;
    for (; seq <= to && bytes < maxBytes; seq++) {
      const torn = this.onWire.get(seq);
      if (torn !== undefined) out.push(framed ? httpChunk([torn], torn.length) : torn);
      else if (framed) this.log.chunks(base + seq, base + seq + 1, Infinity, out);
      else this.log.spans(base + seq, base + seq + 1, Infinity, out);
      bytes += torn?.length ?? this.log.byteLength(base + seq);
    }
    return seq - 1;
  }

  /** The stream carries `frame` for `seq` (already in the log) instead of the log's bytes. */
  replaceOnWire(seq: number, frame: Buffer): void {
    const oldest = this.oldestSeq;
    for (const s of this.onWire.keys()) if (s < oldest) this.onWire.delete(s);
    this.onWire.set(seq, frame);
  }

  /** Forgets the epoch; the next frame pushed to the log is seq `nextSeq` (a service restart starts again at 1). */
  reset(nextSeq = 1): void {
    this.epochStart = this.log.end;
    this.seqBase = nextSeq;
    this.onWire.clear();
  }

  private oldestIndex(): number {
    return Math.max(this.epochStart, this.log.end - this.capacity, this.log.first);
  }
}
