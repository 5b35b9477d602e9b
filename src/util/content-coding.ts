// An HTTP answer's bytes without their content coding (RFC 9110 §8.4). The bridge sends no
// Accept-Encoding, which admits any coding (§12.5.3), so a collector or a proxy in front of it may
// gzip its answer: read raw, a gzipped partial success would be an unrecognized answer and its
// rejected count lost. node:zlib is taken only when an answer is coded (it costs RSS: see
// export/otlp-transport.ts).

/** An answer's bytes decoded; `cut` when they unpack past the cap (then `bytes` is empty: no prefix is kept). */
export interface Decoded {
  bytes: Buffer;
  cut: boolean;
}

/**
 * Decodes gzip, deflate and br, never past `maxBytes`. Bytes that do not decode, or carry a coding not
 * known here, are returned as they came (the caller reports them); bytes that decode past the cap are
 * `cut`, as a read past it is: zlib throws at the cap without the output so far, and the packed
 * bytes are no answer to show (a few hundred bytes of gzip can unpack past 64 KiB).
 */
export function decodeContentCoding(data: Buffer, coding: string | undefined, maxBytes: number): Decoded {
  const c = coding?.trim().toLowerCase();
  if (data.length === 0 || c === undefined || c === '' || c === 'identity') return { bytes: data, cut: false };
  const zlib = process.getBuiltinModule('node:zlib');
  // Z_SYNC_FLUSH: an answer cut at the read cap still gives what it holds.
  const opts = { maxOutputLength: maxBytes, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  try {
    if (c === 'gzip' || c === 'x-gzip') return { bytes: zlib.gunzipSync(data, opts), cut: false };
    if (c === 'deflate') return { bytes: zlib.inflateSync(data, opts), cut: false };
    if (c === 'br') return { bytes: zlib.brotliDecompressSync(data, { maxOutputLength: maxBytes }), cut: false };
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') return { bytes: Buffer.alloc(0), cut: true };
    // Not what it says it is.
  }
  return { bytes: data, cut: false };
}
