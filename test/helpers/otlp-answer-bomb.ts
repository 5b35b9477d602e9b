// A collector's answer that is small on the wire and large unpacked: a well-formed OTLP
// ExportLogsServiceResponse (a partial success whose message is `messageBytes` long), gzipped into
// a few hundred bytes. The read is not cut; the decoding must be (the 64 KiB answer cap).
import { gzipSync } from 'node:zlib';
import { ProtoWriter } from '../../src/wire/proto-writer.js';

export function gzippedOtlpAnswer(messageBytes: number): Buffer {
  const w = new ProtoWriter(messageBytes + 64);
  const partial = w.begin(1, 4);
  w.string(2, 'x'.repeat(messageBytes));
  w.end(partial, 4);
  return gzipSync(w.copy());
}
