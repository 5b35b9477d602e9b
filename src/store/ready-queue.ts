// Committed segments waiting in memory for delivery, in id order: the common path hands them over
// without reading the store back. Bounded by bytes; the spool falls back to reading the store when
// a commit would not fit (then everything not yet taken is read back from there, so the queue empties).
import type { Segment } from '../wire/segment-framing.js';

export class ReadyQueue {
  private items: Segment[] = [];
  private head = 0;
  bytes = 0;

  get empty(): boolean {
    return this.head >= this.items.length;
  }

  /** Id of the newest segment waiting, 0 when none. */
  get lastId(): number {
    return this.empty ? 0 : this.items[this.items.length - 1]!.id;
  }

  /** The oldest segment waiting, if any. */
  first(): Segment | undefined {
    return this.items[this.head];
  }

  /** Takes the oldest segments while they fit `maxBytes` (possibly none). */
  takeBytes(maxBytes: number): Segment[] {
    const out: Segment[] = [];
    let bytes = 0;
    while (this.head < this.items.length) {
      const s = this.items[this.head]!;
      if (bytes + s.payload.length > maxBytes) break;
      out.push(s);
      bytes += s.payload.length;
      this.bytes -= s.payload.length;
      this.items[this.head++] = undefined as unknown as Segment;
    }
    return out;
  }

  /** Takes the segments waiting up to and including `last` in commit order (the queue is in that order). */
  takeThrough(last: Segment): Segment[] {
    const bound = order(last);
    const out: Segment[] = [];
    while (this.head < this.items.length && order(this.items[this.head]!) <= bound) {
      const s = this.items[this.head]!;
      out.push(s);
      this.bytes -= s.payload.length;
      this.items[this.head++] = undefined as unknown as Segment;
    }
    return out;
  }

  /** Takes every segment waiting, oldest first. */
  takeAll(): Segment[] {
    const out = this.items.slice(this.head);
    this.clear();
    return out;
  }

  /**
   * Puts segments back where they belong (a spill that failed, a batch given back at shutdown or
   * handed back for the store): in the order they were committed or sealed, among those waiting. A
   * batch is put back ahead of everything taken after it: two batches in flight handed back newer
   * first must still leave the queue, and the store, older first.
   */
  unshift(segments: readonly Segment[]): void {
    if (segments.length === 0) return;
    const rest = this.items.slice(this.head);
    const back = [...segments].sort((a, b) => order(a) - order(b));
    const merged: Segment[] = [];
    let i = 0;
    let j = 0;
    while (i < back.length || j < rest.length) {
      if (j >= rest.length || (i < back.length && order(back[i]!) < order(rest[j]!))) merged.push(back[i++]!);
      else merged.push(rest[j++]!);
    }
    this.items = merged;
    this.head = 0;
    for (const s of segments) this.bytes += s.payload.length;
  }

  push(segment: Segment): void {
    this.items.push(segment);
    this.bytes += segment.payload.length;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
    this.bytes = 0;
  }

  /** Takes the oldest segments: at least one, then as many as fit `maxRecords` and `maxBytes`. */
  take(maxRecords: number, maxBytes: number): Segment[] {
    const out: Segment[] = [];
    let records = 0;
    let bytes = 0;
    while (this.head < this.items.length) {
      const s = this.items[this.head]!;
      if (out.length > 0 && (records + s.records > maxRecords || bytes + s.payload.length > maxBytes)) break;
      out.push(s);
      records += s.records;
      bytes += s.payload.length;
      this.bytes -= s.payload.length;
      this.items[this.head++] = undefined as unknown as Segment;
    }
    // Compact now and then, not on every take: the array only grows at its end.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return out;
  }

  /** Removes the segments of these sessions; returns them. */
  drop(sessionIds: ReadonlySet<string>): Segment[] {
    const kept: Segment[] = [];
    const dropped: Segment[] = [];
    for (let i = this.head; i < this.items.length; i++) {
      const s = this.items[i]!;
      if (sessionIds.has(s.sessionId)) {
        dropped.push(s);
        this.bytes -= s.payload.length;
      } else kept.push(s);
    }
    this.items = kept;
    this.head = 0;
    return dropped;
  }
}

/**
 * Where a segment stands in commit order: store ids grow with each commit; memory segments (overflow
 * mode, ids < 0) are numbered -1, -2, … as they are sealed. A queue holds one kind or the other.
 */
function order(s: Segment): number {
  return s.id < 0 ? -s.id : s.id;
}
