// Text of SSE frames (docs/service-api.md "Stream telemetry events", rules 1-2). Frames are stored in the default
// form `id: <seq>\ndata: <json>\n\n` (never an `event:` field), as the UTF-8 bytes they are sent as;
// the fault variants are derived from it only when a fault asks for them, so the common path does
// no extra work.
import type { Faults } from './types.js';

const DATA_MARK = '\ndata: ';
/** What follows the event in a bulk frame: the envelope's `}`, then the blank line. */
const FRAME_END = '}\n\n';

/** The default frame; `data` must be one line (JSON.stringify output always is). */
export function formatFrame(seq: number, data: string): string {
  return 'id: ' + seq + DATA_MARK + data + '\n\n';
}

/**
 * The default frame of `{"seq":<seq>,"event":{"ts":<ts>` + tail + `}` as bytes (tail: the event's
 * JSON after ts, in parts): the bulk path's frame, built straight from a template's bytes. Bytes
 * rather than a string: a string frame is concatenated, then flattened, measured and encoded again
 * by every write, and the young generation copies each one it holds; a Buffer is one allocation
 * and one copy of the tail.
 */
export function bulkFrame(seq: number, ts: number, tail: readonly Buffer[]): Buffer {
  const head = bulkHead(seq, ts);
  const frame = Buffer.allocUnsafe(bulkFrameSize(head, tail));
  writeBulkFrame(frame, 0, head, tail);
  return frame;
}

/** The ASCII text a bulk frame starts with, up to and including its ts. */
export function bulkHead(seq: number, ts: number): string {
  return 'id: ' + seq + DATA_MARK + '{"seq":' + seq + ',"event":{"ts":' + ts;
}

/** Bytes of the bulk frame of `head` and `tail`. */
export function bulkFrameSize(head: string, tail: readonly Buffer[]): number {
  let size = head.length + FRAME_END.length;
  for (const part of tail) size += part.length;
  return size;
}

/** Writes the bulk frame of `head` and `tail` into `target` at `at` (room: bulkFrameSize). */
export function writeBulkFrame(target: Buffer, at: number, head: string, tail: readonly Buffer[]): void {
  // The head is ASCII: one byte a character.
  let to = at + target.write(head, at, 'latin1');
  for (const part of tail) to += part.copy(target, to);
  target.write(FRAME_END, to, 'latin1');
}

/** The `data` text of a default frame. */
export function frameData(frame: string): string {
  return frame.slice(frame.indexOf(DATA_MARK) + DATA_MARK.length, -2);
}

/** A comment frame, a bare `:` as the real service writes it; clients ignore it, it only keeps the connection visibly alive (rule 2). */
export function keepaliveFrame(faults: Pick<Faults, 'crlf' | 'crOnly'>): string {
  return faults.crOnly ? ':\r\r' : faults.crlf ? ':\r\n\r\n' : ':\n\n';
}

/**
 * Applies the text faults to a stored frame. splitData pretty-prints the envelope over several
 * `data:` lines: a client joining them with \n gets JSON equal in value to the original. Data that is
 * not JSON (an injected malformed frame) stays on one line.
 */
export function applyTextFaults(frame: string, faults: Faults): string {
  let f = frame;
  if (faults.splitData) {
    const i = f.indexOf(DATA_MARK);
    const data = frameData(f);
    let pretty: string | undefined;
    try {
      pretty = JSON.stringify(JSON.parse(data), null, 2);
    } catch {
      pretty = undefined;
    }
    if (pretty !== undefined) f = f.slice(0, i) + DATA_MARK + pretty.split('\n').join(DATA_MARK) + '\n\n';
  }
  // Safe: JSON never contains a raw newline (it is escaped inside strings), so every \n is a line end.
  if (faults.crOnly) f = f.replaceAll('\n', '\r');
  else if (faults.crlf) f = f.replaceAll('\n', '\r\n');
  return f;
}
