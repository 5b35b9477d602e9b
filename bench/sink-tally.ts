// What the benchmark's sink counts: every record of every accepted request, its latency from the
// event's production (time_unix_nano = the simulator's ts × 1000, stamped when the event was
// produced) to the moment the sink decoded it, and which (session, seq) pairs it has seen. The
// simulator and the sink read the same clock (performance.timeOrigin + performance.now()), so the
// difference is a latency, not a clock offset.
import { gunzipSync } from 'node:zlib';
import { LatencyHistogram, type LatencySummary } from './latency-histogram.js';
import { walkJsonRequest, walkProtobufRequest, type RecordVisitor } from './otlp-walk.js';
import { SeenSet } from './seen-set.js';

export interface SinkStats {
  /** Requests answered 200 (decoded and counted). */
  requests: number;
  /** Requests refused on purpose while failing (see SinkTally.failStatus). */
  refused: number;
  /** Requests that did not decode (answered 400). */
  bad: number;
  /** Log records in accepted requests, duplicates included. */
  records: number;
  /** Distinct (session, seq) pairs among them. */
  unique: number;
  duplicates: number;
  /** Records without a usable `log.record.uid` (gap records, for instance). */
  withoutUid: number;
  /** Request body bytes as received (compressed when gzip). */
  bytes: number;
  latency: LatencySummary;
  /**
   * The same, of the events produced from the steady mark on (markSteady(); null before it): a run's
   * whole-run p99 is mostly its first seconds (V8 compiling, a thousand streams' first reads).
   */
  steadyLatency: LatencySummary | null;
  /** CPU seconds of the sink process so far: it must stay well below one core to measure the bridge. */
  cpuSeconds: number;
}

export const nowMicros = (): number => (performance.timeOrigin + performance.now()) * 1000;

export class SinkTally {
  private readonly seen = new SeenSet();
  private readonly histogram = new LatencyHistogram();
  private steady: { fromNanos: number; histogram: LatencyHistogram } | undefined;
  private requests = 0;
  private refused = 0;
  private bad = 0;
  private records = 0;
  private withoutUid = 0;
  private bytes = 0;
  private nowNanos = 0;
  /** Refused requests are answered with this status; undefined: accept. */
  failStatus: number | undefined;

  // One closure for every record: the visitor is the sink's hot path.
  private readonly visit: RecordVisitor = (timeUnixNano, uid) => {
    const ms = (this.nowNanos - timeUnixNano) / 1e6;
    this.histogram.record(ms);
    if (this.steady !== undefined && timeUnixNano >= this.steady.fromNanos) this.steady.histogram.record(ms);
    if (uid === undefined || this.seen.add(uid) === 'invalid') this.withoutUid++;
  };

  /** Counts one request body; throws when it does not decode (the caller answers 400). */
  accept(body: Buffer, contentType: string, contentEncoding: string): void {
    this.bytes += body.length;
    try {
      const raw = /gzip/i.test(contentEncoding) ? gunzipSync(body) : body;
      this.nowNanos = nowMicros() * 1000;
      this.records += /json/i.test(contentType)
        ? walkJsonRequest(JSON.parse(raw.toString('utf8')), this.visit)
        : walkProtobufRequest(raw, this.visit);
      this.requests++;
    } catch (err) {
      this.bad++;
      throw err;
    }
  }

  /** From now on the events produced are also timed apart (steadyLatency). */
  markSteady(): void {
    this.steady = { fromNanos: nowMicros() * 1000, histogram: new LatencyHistogram() };
  }

  /** Counts a request refused on purpose. */
  refuse(bytes: number): void {
    this.bytes += bytes;
    this.refused++;
  }

  stats(): SinkStats {
    const cpu = process.cpuUsage();
    return {
      requests: this.requests,
      refused: this.refused,
      bad: this.bad,
      records: this.records,
      unique: this.seen.unique,
      duplicates: this.seen.duplicates,
      withoutUid: this.withoutUid,
      bytes: this.bytes,
      latency: this.histogram.summary(),
      steadyLatency: this.steady ? this.steady.histogram.summary() : null,
      cpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(2),
    };
  }
}
