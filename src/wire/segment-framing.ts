// A spool segment: the records one session produced between two commits, stored as the bytes they
// travel as (docs/design.md "Conventions"). The payload is a run of framed records — tag 0x12, varint length,
// an encoded OTLP LogRecord — which is exactly a run of `ScopeLogs.log_records` entries, so a request
// is built by concatenating payloads, and the framing alone is enough to split a refused batch.
import { RECORD_TAG } from './encode-record.js';
import { readVarint } from './proto-writer.js';

/** A segment before the store has given it an id. */
export interface NewSegment {
  sessionId: string;
  /** Framed records (see above). */
  payload: Buffer;
  records: number;
  /** Sequence numbers of the first and last event that produced a record in this segment. */
  firstSeq: number;
  lastSeq: number;
  /**
   * The service epoch `lastSeq` belongs to (seqs start again at 1 when the service restarts);
   * absent: 0. Only the session's status reads it (its delivered position, docs/operations.md).
   */
  epoch?: number;
  /** Event time of the oldest record, Unix microseconds (for the oldest-undelivered-age metric). */
  oldestTsMicros: number;
}

export interface Segment extends NewSegment {
  /** Assigned by the store; increases with every commit, so id order is spool order. */
  id: number;
}

/** Splits a payload into its framed records (views, no copy). Throws on a damaged payload. */
export function splitRecords(payload: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let pos = 0;
  while (pos < payload.length) {
    if (payload[pos] !== RECORD_TAG)
      throw new Error(`damaged spool segment: unexpected byte ${payload[pos]} at ${pos}`);
    const [len, body] = readVarint(payload, pos + 1);
    if (len < 0 || body + len > payload.length)
      throw new Error(`damaged spool segment: record at ${pos} runs past the end`);
    out.push(payload.subarray(pos, body + len));
    pos = body + len;
  }
  return out;
}
