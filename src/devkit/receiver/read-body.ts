// Reading a request body under a size limit, undoing Content-Encoding: gzip.
// The limit applies to the bytes on the wire and again to the decompressed body, so a small gzip
// "bomb" cannot expand past it either. Over the limit the rest of the body is still drained (and
// counted) so that the connection stays usable for the 413 answer and keep-alive.
import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

const gunzipAsync = promisify(gunzip);

/** The outcome of reading one body; `wireBytes` is what arrived on the socket. */
export type BodyResult =
  { ok: true; body: Buffer; wireBytes: number } | { ok: false; status: 400 | 413; message: string; wireBytes: number };

/** Reads the whole body of `req`. Rejects only if the request itself fails (client went away). */
export async function readBody(req: IncomingMessage, maxBytes: number, gzipped: boolean): Promise<BodyResult> {
  const chunks: Buffer[] = [];
  let wireBytes = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    wireBytes += chunk.length;
    if (wireBytes <= maxBytes) chunks.push(chunk);
  }
  if (wireBytes > maxBytes) {
    return {
      ok: false,
      status: 413,
      message: `request body of ${wireBytes} bytes exceeds ${maxBytes} bytes`,
      wireBytes,
    };
  }
  const raw = Buffer.concat(chunks, wireBytes);
  if (!gzipped) return { ok: true, body: raw, wireBytes };
  try {
    return { ok: true, body: await gunzipAsync(raw, { maxOutputLength: maxBytes }), wireBytes };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      return { ok: false, status: 413, message: `decompressed request body exceeds ${maxBytes} bytes`, wireBytes };
    }
    return { ok: false, status: 400, message: `invalid gzip body: ${(err as Error).message}`, wireBytes };
  }
}
