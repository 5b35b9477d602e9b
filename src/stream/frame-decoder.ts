// Bytes of one SSE response → frames, parsed on the bytes themselves.
//
// Why bytes: in the live regime (1,000 sessions × 20 events/s, mostly one ~1.1 KB frame per socket
// read) turning bytes into frames cost about 10 % of the ingest thread: a streaming TextDecoder
// decoded every chunk to text (~2.2 s of 40 s busy in a profile), then eventsource-parser scanned
// that text again for line ends and fields (~1.8 s), and a screenshot frame (up to ~1 MB over many
// chunks) was decoded piece by piece and then joined, one more copy. Here line ends are found with
// Buffer's native indexOf (LF = 10, CR = 13), field names are compared as bytes, and only a frame's
// `data` value (and its `id`) becomes a string, once, straight from the bytes: no text per chunk.
// bench/frame-decoder-micro.ts, old → new per frame (Node 20, 2 cores): one ~1.1 KB ASCII event per
// chunk 912 → 530 ns; the simulator's mix one per chunk 674 → 584 ns; 10 events per chunk 714 →
// 445 ns; a 970 KB frame in 64 KiB chunks 1.08 → 0.81 ms. A ~1.2 KB frame of mostly non-ASCII text
// got slower, 1,220 → 1,938 ns: see "Text" below.
//
// The event stream interpretation of the EventSource spec, as far as this service needs it: a
// leading UTF-8 BOM is stripped once (its bytes may arrive in separate chunks); CRLF, LF and CR alone
// end a line; `data:` lines are joined with "\n"; one space after the colon is dropped; an `id:`
// containing NUL is ignored; `event:`, `retry:` and unknown fields are ignored; a comment line
// (`:` first, the service's keepalives) is counted; a blank line dispatches the frame when it had
// a data line; a frame cut off by the end of the stream (no blank line) is not dispatched. As
// before (eventsource-parser did this), the id belongs to its frame: a frame without an `id:` line
// has none, the previous frame's id does not carry over.
//
// Text: splitting lines on ASCII bytes and decoding each value on its own gives the text that
// decoding the whole stream would, invalid UTF-8 included (U+FFFD replacement never swallows an
// ASCII byte), and no character can straddle a chunk boundary any more. Values are decoded with
// Buffer#toString('utf8'): V8 copies an ASCII value at about 0.15 ns/byte (146 ns for 1 KB); asking
// isAscii() first to use latin1 cost more than it saved (170 ns). Text that is not ASCII is where V8
// is slow: ICU (what TextDecoder used) decodes it 8-25 % faster, but routing such values to a
// TextDecoder after an isAscii() check made the simulator's mix of events (a fifth of them with some
// non-ASCII text) slower overall, 555 → 670-750 ns per frame: the check is paid on every frame.
//
// A CR ends a line whatever follows it; only whether an LF right after it belongs to it (CRLF) is
// open when the CR is a chunk's last byte, so that LF is skipped if the next chunk starts with one.
// The frame such a CR completes is handed out at once: waiting for the next chunk could mean
// waiting for the next keepalive (15 s) on a quiet stream.
//
// What stays between two chunks is copied out of the chunk: the unfinished line's bytes, and the
// data values of the unfinished frame, those of one chunk joined into one Buffer (a Buffer costs
// ~120 bytes of heap beyond its bytes: 8 MiB of 5-byte lines held 337 MiB as a Buffer each, 2 MiB
// joined), and the frame limit counts each Buffer's overhead too. Nothing may keep a chunk alive until the next one: with a
// thousand sessions each one held for tens of milliseconds outlives a young-generation collection
// and fills the old generation (test/unit/stream/retention.test.ts). A frame's strings are made by
// Buffer#toString, which copies, so they do not keep the chunk either; the caller's `out` array is
// only ever a parameter, never kept. A line longer than one chunk (a screenshot) is kept as its
// pieces and concatenated once, when its end arrives: no quadratic copying.
import { Buffer } from 'node:buffer';

export interface Frame {
  /** The `id:` field; it equals the envelope's seq (docs/service-api.md "Stream telemetry events" rule 1). */
  id: string | undefined;
  data: string;
}

export interface FrameDecoder {
  /** Decodes a chunk; complete frames are appended to `out`. */
  feed(chunk: Uint8Array, out: Frame[]): void;
  /**
   * The stream ended: an unfinished frame is dropped (every complete one, a final CR's included, was
   * already handed out by feed). `out` stays for decoders that hold frames back.
   */
  end(out: Frame[]): void;
  /** Comments seen so far (keepalives). */
  readonly comments: number;
}

/**
 * Frames larger than this end the connection: memory stays bounded whatever the peer sends. Counted
 * as what the unfinished frame holds between chunks: the bytes of the buffered unfinished line and
 * of the frame's data, plus PIECE_OVERHEAD for every Buffer that holds them. Bytes are at least as
 * many as the UTF-16 characters the text-based decoder counted: the limit can only be reached sooner.
 */
export const MAX_FRAME_BYTES = 32 * 1024 * 1024;

/**
 * What one held Buffer costs beyond its bytes. Measured (Node 24, `--expose-gc`, 200,000 copies of
 * 5 bytes): 115 bytes of heap and 8 of pool each, 227 of RSS with the heap's headroom. Counting
 * bytes alone let a stream of short `data:` lines that never ends its frame (one Buffer per line,
 * ~1 byte counted for ~190 held) take a bridge from 397 MB to 1,229 MB of RSS under the limit.
 */
export const PIECE_OVERHEAD = 256;

const LF = 10;
const CR = 13;
const SPACE = 32;
const COLON = 58;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function copyOut(b: Buffer, start: number, end: number): Buffer {
  const c = Buffer.allocUnsafe(end - start);
  b.copy(c, 0, start, end);
  return c;
}

export function createFrameDecoder(onOverflow: () => void): FrameDecoder {
  let comments = 0;
  // Once a frame overflowed the decoder is inert: a chunk already read (or the stream's end) may
  // still arrive before the connection is torn down, and must not turn "frame too large" (a gap,
  // passed) into a network error (a reconnect to the same oversized frame, forever).
  let overflowed = false;
  /** Bytes of a leading BOM seen so far; -1 once the stream is past its start. */
  let bom = 0;
  /** The last chunk ended in CR: an LF first in the next chunk is the rest of that line end. */
  let skipLF = false;
  /** The unfinished line: copies of its pieces, in order. */
  const line: Buffer[] = [];
  let lineBytes = 0;

  // The frame being read.
  let id: string | undefined;
  let dataLines = 0;
  /** Bytes of the data value so far, "\n"s between lines included. */
  let dataBytes = 0;
  /**
   * Data values that arrived before the current chunk, then those of a line that began before it.
   * One piece may hold several values joined by "\n" (a chunk's values are copied out together).
   */
  const dataOwned: Buffer[] = [];
  /** What `dataOwned` holds: its bytes and PIECE_OVERHEAD per piece. */
  let dataHeld = 0;
  /** Data values in the current chunk, after `dataOwned`: [start, end) pairs. */
  const dataRanges: number[] = [];

  const overflow = (): void => {
    overflowed = true;
    line.length = 0;
    dataOwned.length = 0;
    dataHeld = 0;
    dataRanges.length = 0;
    onOverflow();
  };

  /** Forgets the frame read so far: at its blank line, and at a reset. */
  const clearFrame = (): void => {
    id = undefined;
    dataLines = 0;
    dataBytes = 0;
    dataOwned.length = 0;
    dataHeld = 0;
    dataRanges.length = 0;
  };

  /** The blank line: the frame read so far, if it had data; undefined otherwise (or on overflow). */
  const dispatch = (b: Buffer): Frame | undefined => {
    let frame: Frame | undefined;
    if (dataLines > 0) {
      if (dataBytes > MAX_FRAME_BYTES) {
        overflow();
        return undefined;
      }
      let data: string;
      if (dataOwned.length === 0 && dataRanges.length === 2) {
        data = b.toString('utf8', dataRanges[0], dataRanges[1]);
      } else if (dataOwned.length === 1 && dataRanges.length === 0) {
        data = dataOwned[0]!.toString('utf8');
      } else {
        // Several lines (or one line's bytes and another's copy): joined with "\n" into one buffer, decoded once.
        const all = Buffer.allocUnsafe(dataBytes);
        let p = 0;
        for (const v of dataOwned) {
          p += v.copy(all, p);
          if (p < dataBytes) all[p++] = LF;
        }
        for (let i = 0; i < dataRanges.length; i += 2) {
          p += b.copy(all, p, dataRanges[i], dataRanges[i + 1]);
          if (p < dataBytes) all[p++] = LF;
        }
        data = all.toString('utf8', 0, p);
      }
      frame = { id, data };
    }
    clearFrame();
    return frame;
  };

  /** A non-blank line [s, e) of `b`; `owned`: `b` is a copy of the line, not the chunk. */
  const field = (b: Buffer, s: number, e: number, owned: boolean): void => {
    const c = b[s];
    // The byte at e is the line end (or past the end of an owned copy): a comparison reaching it
    // fails, so a field name is never read past its line.
    if (c === 100 && b[s + 1] === 97 && b[s + 2] === 116 && b[s + 3] === 97) {
      // data
      let v: number;
      if (s + 4 === e) v = e;
      else if (b[s + 4] === COLON) v = s + 5 < e && b[s + 5] === SPACE ? s + 6 : s + 5;
      else return;
      dataBytes += (dataLines > 0 ? 1 : 0) + (e - v);
      dataLines++;
      if (owned) {
        // The view keeps the whole line's copy: counted whole.
        dataOwned.push(b.subarray(v, e));
        dataHeld += b.length + PIECE_OVERHEAD;
      } else dataRanges.push(v, e);
    } else if (c === COLON) {
      comments++;
    } else if (c === 105 && b[s + 1] === 100) {
      // id
      let v: number;
      if (s + 2 === e) v = e;
      else if (b[s + 2] === COLON) v = s + 3 < e && b[s + 3] === SPACE ? s + 4 : s + 3;
      else return;
      for (let i = v; i < e; i++) if (b[i] === 0) return;
      id = b.toString('utf8', v, e);
    }
    // event, retry and unknown fields: ignored, as EventSource does with what it does not use.
  };

  const reset = (): void => {
    bom = 0;
    skipLF = false;
    line.length = 0;
    lineBytes = 0;
    clearFrame();
  };

  return {
    feed(chunk, out) {
      if (overflowed || chunk.length === 0) return;
      const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      const len = b.length;
      let pos = 0;
      if (bom >= 0) {
        while (bom < 3 && pos < len && b[pos] === BOM[bom]) {
          bom++;
          pos++;
        }
        if (bom < 3 && pos === len) return; // so far a BOM's first bytes: the next chunk decides
        // Not a BOM after all: the bytes seen are the first line's.
        if (bom > 0 && bom < 3) {
          line.push(BOM.subarray(0, bom));
          lineBytes = bom;
        }
        bom = -1;
      }
      if (skipLF) {
        skipLF = false;
        if (b[pos] === LF) pos++;
      }
      let nextLF = b.indexOf(LF, pos);
      let nextCR = b.indexOf(CR, pos);
      for (;;) {
        if (nextLF !== -1 && nextLF < pos) nextLF = b.indexOf(LF, pos);
        if (nextCR !== -1 && nextCR < pos) nextCR = b.indexOf(CR, pos);
        let eol: number;
        if (nextCR === -1) {
          if (nextLF === -1) break;
          eol = nextLF;
        } else eol = nextLF !== -1 && nextLF < nextCR ? nextLF : nextCR;
        const cr = eol === nextCR;
        if (line.length > 0) {
          // A line that began in an earlier chunk: its pieces and this chunk's part, joined once.
          const whole = Buffer.allocUnsafe(lineBytes + eol - pos);
          let p = 0;
          for (const piece of line) p += piece.copy(whole, p);
          b.copy(whole, p, pos, eol);
          line.length = 0;
          lineBytes = 0;
          field(whole, 0, whole.length, true);
        } else if (eol > pos) {
          field(b, pos, eol, false);
        } else {
          const frame = dispatch(b);
          if (overflowed) return;
          if (frame !== undefined) out.push(frame);
        }
        pos = eol + 1;
        if (cr) {
          if (pos === len) skipLF = true;
          else if (b[pos] === LF) pos++;
        }
      }
      // What is left of the chunk is an unfinished line; with the unfinished frame's data it is all
      // that stays, copied out of the chunk: this chunk's data values together, in one piece.
      const rest = len - pos;
      let rangeBytes = 0;
      for (let i = 0; i < dataRanges.length; i += 2) rangeBytes += dataRanges[i + 1]! - dataRanges[i]! + 1;
      const held =
        lineBytes +
        rest +
        (line.length + (rest > 0 ? 1 : 0)) * PIECE_OVERHEAD +
        dataHeld +
        (rangeBytes > 0 ? rangeBytes - 1 + PIECE_OVERHEAD : 0);
      if (held > MAX_FRAME_BYTES || lineBytes + rest + dataBytes > MAX_FRAME_BYTES) return overflow();
      if (rest > 0) {
        line.push(copyOut(b, pos, len));
        lineBytes += rest;
      }
      if (rangeBytes > 0) {
        const piece = Buffer.allocUnsafe(rangeBytes - 1);
        let p = 0;
        for (let i = 0; i < dataRanges.length; i += 2) {
          if (i > 0) piece[p++] = LF;
          p += b.copy(piece, p, dataRanges[i], dataRanges[i + 1]);
        }
        dataOwned.push(piece);
        dataHeld += piece.length + PIECE_OVERHEAD;
      }
      dataRanges.length = 0;
    },
    end(_out) {
      if (overflowed) return;
      // Whatever else was read is a frame cut off by the end: dropped. A stream fed after this starts over.
      reset();
    },
    get comments() {
      return comments;
    },
  };
}
