// A session's frames, oldest first, as the bytes they are sent as, in a few large slabs: the store
// that the replay buffer (replay-buffer.ts) and the archive (archive.ts) both read. Every frame used
// to be a Buffer of its own, so a simulator of a thousand sessions kept millions of small objects in
// the old generation and every full collection marked them all; here a session holds a handful of
// slabs and a few typed arrays, whatever the number of frames.
//
// Entries have absolute indices: the first frame ever pushed is 0, and an index never changes or
// comes back, so a position kept elsewhere (an archive cursor, a replay buffer's epoch start) stays
// valid while older frames are dropped. Invariants:
//   - first ≤ end; entries first … end-1 are retained, end - first ≤ retain.
//   - Entry i lives in the columns at slot i & mask (capacity mask + 1 ≥ end - first, a power of two
//     that doubles when full): its slab number, its offset and length in that slab, its ts (Unix µs)
//     and its category (a code of this log's category table).
//   - A slab is appended to whenever the frame fits behind its fill mark; a frame that does not fit
//     opens a new slab (of SLAB_MAX_BYTES, or of its own size when larger; the first slabs of a
//     session are smaller, so a quiet session costs kilobytes). Slabs are only
//     written behind the fill mark: bytes handed out are never overwritten.
//   - Pushing beyond `retain` drops the oldest entry; a slab is released (to the GC) once no retained
//     entry lies in it. A frame handed out is a view (subarray) made when asked, so a socket still
//     writing it keeps its slab's memory alive, and nothing else does.
//   - Each frame is stored inside the framing of the HTTP/1.1 chunk it travels in (http-chunk.ts):
//     its size line before it, CRLF after it, so a frame sent on its own (the live rate's usual
//     write) goes to the socket as the stored bytes, without a copy (chunks()); the frame alone
//     (frame(), spans(): the archive, a batch of several frames, the faults) is the view inside.
// Nothing is ever read back from the bytes to answer a question: ts and category are kept at push.

import { chunkHeadLength, writeChunkHead } from './http-chunk.js';

const SLAB_MIN_BYTES = 16 * 1024;
// Not larger: V8 counts every ArrayBuffer as external memory, and external memory allocated since
// the last full collection starts the next one. A thousand sessions each filling a large slab made
// the heavy mix's simulator run more full collections (29-35 with 256 KiB or 1 MiB slabs against
// 20-25 with 64 KiB, in 20 s), each one cheaper than before but more of them.
const SLAB_MAX_BYTES = 64 * 1024;
const MIN_SLOTS = 16;

export class FrameLog {
  private readonly slabs: Buffer[] = [];
  /** Slab number of slabs[0]. */
  private firstSlab = 0;
  /** Bytes used in the last slab. */
  private fill = 0;
  private nextSlabBytes = SLAB_MIN_BYTES;
  private mask = MIN_SLOTS - 1;
  private slabOf = new Uint32Array(MIN_SLOTS);
  private offsetOf = new Uint32Array(MIN_SLOTS);
  private lengthOf = new Uint32Array(MIN_SLOTS);
  private tsOf = new Float64Array(MIN_SLOTS);
  private categoryOf = new Uint16Array(MIN_SLOTS);
  private readonly categoryCodes = new Map<string, number>();
  private firstIndex = 0;
  private endIndex = 0;

  /** Keeps the last `retain` frames. */
  constructor(readonly retain: number) {
    if (!Number.isInteger(retain) || retain < 1) throw new RangeError('retain must be a positive integer');
  }

  /** Index of the oldest retained frame; equals end when empty. */
  get first(): number {
    return this.firstIndex;
  }

  /** Index the next pushed frame takes. */
  get end(): number {
    return this.endIndex;
  }

  /** Slabs held (for tests). */
  get slabCount(): number {
    return this.slabs.length;
  }

  /** Appends a copy of `frame`; returns its index. */
  push(frame: Uint8Array, ts: number, category: string): number {
    const at = this.append(frame.length, ts, category);
    (this.slabs[this.slabs.length - 1] as Buffer).set(frame, at);
    return this.endIndex - 1;
  }

  /** Appends the UTF-8 bytes of `text`; returns its index. */
  pushText(text: string, ts: number, category: string): number {
    const size = Buffer.byteLength(text);
    const at = this.append(size, ts, category);
    (this.slabs[this.slabs.length - 1] as Buffer).write(text, at, size, 'utf8');
    return this.endIndex - 1;
  }

  /**
   * Appends an entry of `size` bytes and returns its offset in `writeSlab`, where the caller writes
   * exactly those bytes before anything reads the entry (the bulk path builds a frame in place,
   * without a Buffer of its own).
   */
  append(size: number, ts: number, category: string): number {
    // A chunk of size 0 would end the response: a frame is never empty.
    if (!(size >= 1)) throw new RangeError('a frame has at least one byte');
    const room = chunkHeadLength(size) + size + 2;
    if (this.slabs.length === 0 || this.fill + room > (this.slabs[this.slabs.length - 1] as Buffer).length) {
      this.slabs.push(Buffer.allocUnsafeSlow(Math.max(room, this.nextSlabBytes)));
      this.fill = 0;
      this.nextSlabBytes = Math.min(SLAB_MAX_BYTES, this.nextSlabBytes * 2);
    }
    if (this.endIndex - this.firstIndex > this.mask) this.grow();
    const slab = this.slabs[this.slabs.length - 1] as Buffer;
    const at = this.fill + writeChunkHead(slab, this.fill, size);
    slab[at + size] = 13;
    slab[at + size + 1] = 10;
    const slot = this.endIndex & this.mask;
    this.slabOf[slot] = this.firstSlab + this.slabs.length - 1;
    this.offsetOf[slot] = at;
    this.lengthOf[slot] = size;
    this.tsOf[slot] = ts;
    this.categoryOf[slot] = this.codeFor(category);
    this.fill += room;
    this.endIndex++;
    if (this.endIndex - this.firstIndex > this.retain) this.dropOldest();
    return at;
  }

  /** The slab the last append() returned an offset into. */
  get writeSlab(): Buffer {
    return this.slabs[this.slabs.length - 1] as Buffer;
  }

  /** The bytes of retained entry `i` (a view; the caller checks first ≤ i < end). */
  frame(i: number): Buffer {
    const slot = i & this.mask;
    const offset = this.offsetOf[slot] as number;
    const slab = this.slabs[(this.slabOf[slot] as number) - this.firstSlab] as Buffer;
    return slab.subarray(offset, offset + (this.lengthOf[slot] as number));
  }

  /** Byte length of retained entry `i`. */
  byteLength(i: number): number {
    return this.lengthOf[i & this.mask] as number;
  }

  /**
   * Entries from … to-1 as views of their frames, taken while the total is below `maxBytes` (so at
   * least one, and the last may pass it); returns the index after the last entry taken. `out`
   * receives the views.
   */
  spans(from: number, to: number, maxBytes: number, out: Buffer[]): number {
    return this.views(from, to, maxBytes, out, false);
  }

  /**
   * The same entries as complete HTTP chunks, one chunk each, a run of them that lies back to back
   * in one slab as one view; the budget counts frame bytes.
   */
  chunks(from: number, to: number, maxBytes: number, out: Buffer[]): number {
    return this.views(from, to, maxBytes, out, true);
  }

  private views(from: number, to: number, maxBytes: number, out: Buffer[], framed: boolean): number {
    let i = from;
    let total = 0;
    let slabNo = -1;
    let start = 0;
    let stop = 0;
    for (; i < to && total < maxBytes; i++) {
      const slot = i & this.mask;
      const s = this.slabOf[slot] as number;
      const length = this.lengthOf[slot] as number;
      let offset = this.offsetOf[slot] as number;
      let end = offset + length;
      if (framed) {
        offset -= chunkHeadLength(length);
        end += 2;
      }
      if (s === slabNo && offset === stop) stop = end;
      else {
        if (slabNo >= 0) out.push((this.slabs[slabNo - this.firstSlab] as Buffer).subarray(start, stop));
        slabNo = s;
        start = offset;
        stop = end;
      }
      total += length;
    }
    if (slabNo >= 0) out.push((this.slabs[slabNo - this.firstSlab] as Buffer).subarray(start, stop));
    return i;
  }

  /** ts (Unix µs) of retained entry `i`, as given at push. */
  ts(i: number): number {
    return this.tsOf[i & this.mask] as number;
  }

  /** Category code of retained entry `i` (compare with codeOf). */
  category(i: number): number {
    return this.categoryOf[i & this.mask] as number;
  }

  /** The code entries of `category` carry, or -1 when no entry ever had it. */
  codeOf(category: string): number {
    return this.categoryCodes.get(category) ?? -1;
  }

  private codeFor(category: string): number {
    let code = this.categoryCodes.get(category);
    if (code === undefined) {
      code = this.categoryCodes.size;
      if (code > 0xffff) throw new RangeError('more than 65,536 distinct categories in one session');
      this.categoryCodes.set(category, code);
    }
    return code;
  }

  private dropOldest(): void {
    this.firstIndex++;
    const keep = this.slabOf[this.firstIndex & this.mask] as number;
    // The oldest retained entry's slab is the first one still needed: every slab before it is free.
    if (keep > this.firstSlab) {
      this.slabs.splice(0, keep - this.firstSlab);
      this.firstSlab = keep;
    }
  }

  /**
   * Doubles the columns. Entry i moves from slot i & mask to i & newMask, which is the same slot or
   * that slot plus the old size: the old columns copied into both halves put every entry in place
   * (the slots of no entry hold whatever, as before).
   */
  private grow(): void {
    const size = (this.mask + 1) * 2;
    this.slabOf = doubled(this.slabOf, new Uint32Array(size));
    this.offsetOf = doubled(this.offsetOf, new Uint32Array(size));
    this.lengthOf = doubled(this.lengthOf, new Uint32Array(size));
    this.tsOf = doubled(this.tsOf, new Float64Array(size));
    this.categoryOf = doubled(this.categoryOf, new Uint16Array(size));
    this.mask = size - 1;
  }
}

function doubled<T extends Uint16Array | Uint32Array | Float64Array>(old: T, into: T): T {
  into.set(old, 0);
  into.set(old, old.length);
  return into;
}
