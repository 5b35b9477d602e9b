// An HTTP answer's bytes without their content coding (RFC 9110 §8.4). The bridge sends no
// Accept-Encoding, which admits any coding (§12.5.3), so a collector or a proxy in front of it may
// gzip its answer: read raw, a gzipped partial success would be an unrecognized answer and its
// rejected count lost. node:zlib is taken only when an answer is coded (it costs RSS: see
// export/otlp-transport.ts).

/**
 * Decodes gzip, deflate and br, never past `maxBytes`; bytes that do not decode, or decode past the
 * cap, or carry a coding not known here, are returned as they came (the caller reports them).
 */
export function decodeContentCoding(data: Buffer, coding: string | undefined, maxBytes: number): Buffer {
  const c = coding?.trim().toLowerCase();
  if (data.length === 0 || c === undefined || c === '' || c === 'identity') return data;
  const zlib = process.getBuiltinModule('node:zlib');
  // Z_SYNC_FLUSH: an answer cut at the read cap still gives what it holds.
  const opts = { maxOutputLength: maxBytes, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  try {
    if (c === 'gzip' || c === 'x-gzip') return zlib.gunzipSync(data, opts);
    if (c === 'deflate') return zlib.inflateSync(data, opts);
    if (c === 'br') return zlib.brotliDecompressSync(data, { maxOutputLength: maxBytes });
  } catch {
    // Not what it says it is, or larger than the cap.
  }
  return data;
}
