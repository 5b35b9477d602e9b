// The first bytes of an HTTP answer's body, never more: a collector (or whatever answers at its
// URL) may send a body of any size, and what is read of it is a status message or a partial
// success, which fit in a few KiB. Past the cap the body is destroyed, so the connection stops
// bringing bytes nobody reads.
import type { Readable } from 'node:stream';

/** The body's bytes up to `maxBytes`; `cut` when there were more (the rest was not read). */
export async function readPrefix(body: Readable, maxBytes: number): Promise<{ bytes: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const c = chunk as Buffer;
    if (size + c.length > maxBytes) {
      chunks.push(c.subarray(0, maxBytes - size));
      size = maxBytes;
      body.destroy();
      return { bytes: Buffer.concat(chunks, size), cut: true };
    }
    chunks.push(c);
    size += c.length;
  }
  return { bytes: Buffer.concat(chunks, size), cut: false };
}
