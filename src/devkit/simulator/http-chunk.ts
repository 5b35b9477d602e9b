// HTTP/1.1 chunked transfer coding (RFC 9112 §7.1): `<size in hex>\r\n<data>\r\n`. A stream
// connection writes its frames to the socket as such chunks itself, where res.write would queue
// four pieces (size, CRLF, data, CRLF) behind a cork and uncork them on the next tick as a writev;
// the bytes on the wire are the same. The frame log stores each frame inside its own chunk's framing
// (chunkHeadLength, writeChunkHead), so consecutive frames go out as one view of stored bytes.
import type { Socket } from 'node:net';

const CRLF = '\r\n';
const CRLF_BYTES = Buffer.from(CRLF, 'latin1');

/**
 * Writes `parts` (whose lengths add up to `bytes`, > 0) as one chunk; returns what socket.write
 * returned (false: wait for 'drain'). One part (the live rate's usual batch: one frame) is copied
 * behind its size line into one Buffer, one write() call; several are written without a copy, as
 * one writev of size line, parts and CRLF (a catch-up batch is up to 64 KiB).
 */
export function writeHttpChunk(socket: Socket, parts: readonly Buffer[], bytes: number): boolean {
  if (parts.length === 1) return socket.write(httpChunk(parts, bytes));
  socket.cork();
  socket.write(Buffer.from(bytes.toString(16) + CRLF, 'latin1'));
  for (const part of parts) socket.write(part);
  const ok = socket.write(CRLF_BYTES);
  socket.uncork();
  return ok;
}

/** One chunk carrying `parts` (whose lengths add up to `bytes`, > 0), in a single Buffer. */
export function httpChunk(parts: readonly Buffer[], bytes: number): Buffer {
  const size = bytes.toString(16);
  const chunk = Buffer.allocUnsafe(size.length + 2 + bytes + 2);
  let at = chunk.write(size + CRLF, 0, 'latin1');
  for (const part of parts) at += part.copy(chunk, at);
  chunk.write(CRLF, at, 'latin1');
  return chunk;
}

/** Bytes of a chunk's size line (`<size in hex>\r\n`) for `size` bytes of data (> 0). */
export function chunkHeadLength(size: number): number {
  return ((35 - Math.clz32(size)) >>> 2) + 2;
}

/** Writes the size line of a chunk of `size` bytes (> 0) at `at`; returns its length. */
export function writeChunkHead(target: Uint8Array, at: number, size: number): number {
  const length = chunkHeadLength(size);
  let i = at + length - 3;
  // Hex digits from the last; lower case, as Node's own chunked encoding writes them.
  for (let rest = size; i >= at; i--, rest >>>= 4) target[i] = HEX[rest & 15] as number;
  target[at + length - 2] = 13;
  target[at + length - 1] = 10;
  return length;
}

const HEX = Buffer.from('0123456789abcdef', 'latin1');
