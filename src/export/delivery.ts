// Moves segments from the spool to the collector: claimed → in flight → acknowledged (deleted).
//
// `concurrency` workers each claim the next segments (the spool serializes claims, so nothing is
// claimed twice), build one request from their payloads as they are, send it, and acknowledge the
// claim only after the collector answered success (docs/design.md "Delivery semantics": at-least-once). This is the
// one retry layer:
//   - success: acknowledged; a partial success counts the records the collector rejected;
//   - retryable (429, 502, 503, 504, network, timeout): waits max(Retry-After, backoff), then again;
//   - 400 or 413: the batch is split in halves until the culprit stands alone; a single refused
//     record is dropped, logged and counted as rejected, so one bad record cannot block delivery;
//   - any other failure (401, 403, 404, 500, …): a configuration or collector problem the operator
//     fixes while the spool holds the data: retried with backoff, forever.
// A worker's backoff is its own: new data never cuts it short. After a crash, claims that were in
// flight are sent again: duplicates are bounded by concurrency × batch size and carry
// log.record.uid for deduplication.
import type { Emit } from '../vocabulary/facts.js';
import { once } from '../util/lifecycle.js';
import type { Claim, Spool } from '../store/spool.js';
import { splitRecords, type Segment } from '../wire/segment-framing.js';
import { backoffDelay, type BackoffPolicy } from '../util/backoff.js';
import type { RequestBuilder } from '../wire/otlp-request.js';
import type { ExportOutcome, OtlpTransport } from './otlp-transport.js';
import { outcomeLabel } from './outcome-label.js';
import { displayUrl } from '../mapping/display-url.js';

export interface DeliveryOptions {
  spool: Spool;
  transport: OtlpTransport;
  requests: RequestBuilder;
  batchMaxRecords: number;
  batchMaxBytes: number;
  concurrency: number;
  backoff: BackoffPolicy;
  /** Where delivery's facts go: attempts, deliveries, rejections, failures (metrics and log lines). */
  emit: Emit;
}

/** Who wants to know what delivery settled (the supervisor: per-session delivered seq, "all delivered"). */
export interface DeliveryWatcher {
  /** Segments the collector acknowledged. */
  delivered?(segments: readonly Segment[]): void;
  /** A claim finished (delivered or rejected): "everything delivered" may have become true. */
  settled?(): void;
}

export class Delivery {
  private stopped = false;
  private workers: Promise<void>[] = [];
  private readonly sleepers = new Set<() => void>();
  private failing = false;
  private readonly watchers: DeliveryWatcher[] = [];
  /** The collector's URL as facts and log lines may carry it: credentials and secret-named parameters masked. */
  private readonly endpoint: string;
  /** Last export failure, for status and readiness. */
  lastError: string | undefined;
  /** Records acknowledged by the collector since start (gap records included). */
  deliveredTotal = 0;

  constructor(private readonly o: DeliveryOptions) {
    this.endpoint = displayUrl(o.transport.url);
  }

  /** Registers a watcher; delivery itself knows nothing of who listens. */
  watch(w: DeliveryWatcher): void {
    this.watchers.push(w);
  }

  start(): void {
    for (let i = 0; i < this.o.concurrency; i++) this.workers.push(this.work());
  }

  get exportFailing(): boolean {
    return this.failing;
  }

  /**
   * Delivers until the spool is idle or `deadline` passes, then stops: requests still in flight are
   * abandoned (their segments stay spooled for the next start), and the workers are waited for at
   * most until the deadline (at least a tenth of a second), so a collector that never answers cannot
   * hold shutdown past its grace period. Resolves with whether everything went out. Idempotent.
   */
  readonly stop: (deadline?: number) => Promise<boolean> = once(async (deadline = Date.now()) => {
    while (!this.o.spool.idle && Date.now() < deadline && !this.stopped) {
      await new Promise((r) => setTimeout(r, 25));
    }
    const drained = this.o.spool.idle;
    await this.halt(Math.max(deadline, Date.now() + 100));
    return drained;
  });

  private async halt(deadline: number): Promise<void> {
    this.stopped = true;
    this.signalStop();
    for (const s of this.sleepers) s();
    this.sleepers.clear();
    const wait = deadline - Date.now();
    if (!Number.isFinite(wait)) {
      await Promise.all(this.workers);
    } else {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(this.workers), new Promise<void>((r) => (timer = setTimeout(r, Math.max(0, wait))))]);
      clearTimeout(timer);
    }
    await this.o.transport.close();
  }

  /** Sleeps `ms`; only shutdown cuts it short (a backoff must hold whatever else happens). */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(t);
        this.sleepers.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  private async work(): Promise<void> {
    const spool = this.o.spool;
    while (!this.stopped) {
      let claim: Claim | null;
      try {
        claim = await spool.claim(this.o.batchMaxRecords, this.o.batchMaxBytes);
      } catch (err) {
        this.o.emit({ f: 'spool_unreadable', error: (err as Error).message });
        await this.sleep(this.o.backoff.maxMs);
        continue;
      }
      if (!claim) {
        await Promise.race([spool.waitForData(), this.stopSignal]);
        continue;
      }
      let delivered = false;
      try {
        delivered = await this.deliver(claim);
      } finally {
        if (delivered) await spool.acknowledge(claim);
        else spool.settle();
      }
      for (const w of this.watchers) {
        if (delivered) w.delivered?.(claim.segments);
        w.settled?.();
      }
    }
  }

  private signalStop!: () => void;
  /** Resolves at shutdown: a worker waiting for data must not outlive it. */
  private readonly stopSignal = new Promise<void>((resolve) => (this.signalStop = resolve));

  /** Exports a claim until it is settled; false only when shutdown interrupted it. */
  private async deliver(claim: Claim): Promise<boolean> {
    const { batchMaxRecords, batchMaxBytes } = this.o;
    if (claim.records <= batchMaxRecords && claim.bytes <= batchMaxBytes) {
      return this.exportParts(claim.segments.map((s) => s.payload), claim.records, claim.segments);
    }
    // One segment larger than a request may be (a commit of many records, or screenshots): its
    // records go out in requests of allowed size, and the claim is acknowledged after the last.
    let records: Buffer[];
    try {
      records = claim.segments.flatMap((s) => splitRecords(s.payload));
    } catch {
      return this.exportParts(claim.segments.map((s) => s.payload), claim.records, claim.segments);
    }
    for (let i = 0; i < records.length;) {
      let bytes = 0;
      let j = i;
      while (j < records.length && (j === i || (j - i < batchMaxRecords && bytes + records[j]!.length <= batchMaxBytes))) bytes += records[j++]!.length;
      if (!(await this.exportParts(records.slice(i, j), j - i, claim.segments))) return false;
      i = j;
    }
    return true;
  }

  private async exportParts(payloads: Buffer[], records: number, segments: readonly Segment[]): Promise<boolean> {
    const { emit } = this.o;
    const endpoint = this.endpoint;
    for (let attempt = 0; !this.stopped; ) {
      let body: Buffer;
      try {
        body = this.o.requests.build(payloads);
      } catch (err) {
        // A damaged spooled record (it cannot be transcoded): find it like a refused one.
        return this.split(payloads, records, segments, { kind: 'failure', message: `cannot encode: ${(err as Error).message}` });
      }
      const started = performance.now();
      const outcome = await this.o.transport.send(body, this.o.requests.contentType);
      const seconds = (performance.now() - started) / 1000;
      if (this.stopped && outcome.kind !== 'success') return false;
      const label = outcomeLabel(outcome);
      emit({ f: 'export_attempted', outcome: label, success: outcome.kind === 'success', seconds });
      if (outcome.kind === 'success') {
        const accepted = records - Math.min(records, outcome.rejected);
        emit({ f: 'records_delivered', count: accepted });
        this.deliveredTotal += accepted;
        if (outcome.rejected > 0) emit({ f: 'records_rejected', reason: 'partial_success', count: outcome.rejected, endpoint, error: outcome.message ?? '' });
        if (this.failing) emit({ f: 'export_recovered', endpoint, records });
        this.failing = false;
        this.lastError = undefined;
        return true;
      }
      // The collector refused the request's content (HTTP 400/413, gRPC INVALID_ARGUMENT, …): find the record it cannot take.
      if (outcome.kind === 'failure' && outcome.refused !== undefined) {
        return this.split(payloads, records, segments, outcome);
      }
      this.lastError = `${label}: ${outcome.message}`;
      const backoff = backoffDelay(this.o.backoff, attempt++);
      const delay = outcome.kind === 'retryable' && outcome.retryAfterMs !== undefined ? Math.max(outcome.retryAfterMs, backoff) : backoff;
      emit({ f: 'export_failed', endpoint, status: outcome.status, grpcCode: outcome.grpcCode, records, attempt, delayMs: delay, error: outcome.message });
      this.failing = true;
      await this.sleep(delay);
    }
    return false;
  }

  /** 400/413: halves until the refused record stands alone; it is dropped and counted. */
  private async split(payloads: Buffer[], records: number, segments: readonly Segment[], outcome: ExportOutcome): Promise<boolean> {
    let parts: Buffer[];
    try {
      parts = records === payloads.length ? payloads : payloads.flatMap((p) => splitRecords(p));
    } catch {
      parts = payloads.length > 1 ? payloads : [];
    }
    if (parts.length <= 1) {
      const reason = (outcome.kind === 'failure' ? outcome.refused : undefined) ?? 'corrupt';
      const count = parts.length === 0 ? records : 1;
      const where = segments.map((s) => `${s.sessionId}:${s.firstSeq}-${s.lastSeq}`);
      this.o.emit({ f: 'records_rejected', reason, count, endpoint: this.endpoint, segments: where, error: outcome.kind === 'success' ? '' : outcome.message });
      return true;
    }
    const mid = parts.length >> 1;
    if (!(await this.exportParts(parts.slice(0, mid), mid, segments))) return false;
    return this.exportParts(parts.slice(mid), parts.length - mid, segments);
  }
}
