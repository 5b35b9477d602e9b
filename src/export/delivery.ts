// Moves segments from the spool to the collector: claimed → in flight → acknowledged (deleted).
//
// `concurrency` workers each claim the next segments (the spool serializes claims, so nothing is
// claimed twice), build one request from their payloads as they are, send it, and acknowledge the
// claim only after the collector answered success (docs/design.md "Delivery semantics" 1). This is the
// one retry layer:
//   - success: acknowledged; a partial success counts the records the collector rejected;
//   - retryable (429, 502, 503, 504, network, timeout): waits max(Retry-After, backoff), then again;
//   - refused content (HTTP 400 or 413, gRPC INVALID_ARGUMENT: the transport's `refused`): the batch is split in halves until the culprit stands alone; a refused record is
//     dropped, logged and counted as rejected only when proven to be the one the collector cannot
//     take (one bad record cannot block delivery); when everything is refused, nothing is dropped:
//     the collector or the configuration is at fault, every record stays spooled and delivery backs
//     off (see exportParts);
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

/**
 * What must hold before anything is sent (the shared store: this replica still owns the sessions).
 * After a pause (GC, SIGSTOP, a frozen VM) the lease may have run out and another replica may have
 * taken the sessions over: `ready` resolves once that was checked, `owns` says what is still ours.
 */
export interface SendGate {
  ready(): Promise<void>;
  owns(sessionId: string): boolean;
}

/** A claim holds segments of a session this replica no longer owns: they are the new owner's to send. */
class Disowned extends Error {}

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
  /** Set while the collector refuses every record it is sent (400/413 for all): status and its message. */
  refusing: { status: number | undefined; message: string } | undefined;
  /** Requests the collector accepted since start: what proves that a refusal is about the records. */
  private acceptedRequests = 0;

  constructor(private readonly o: DeliveryOptions) {
    this.endpoint = displayUrl(o.transport.url);
  }

  private gate: SendGate | undefined;

  /** Sets what must hold before each send (ownership, with the shared store). */
  gateWith(gate: SendGate): void {
    this.gate = gate;
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
      let current = claim;
      try {
        for (;;) {
          try {
            delivered = await this.deliver(current);
            break;
          } catch (err) {
            if (!(err instanceof Disowned)) throw err;
            // Lost while paused: what belongs to another replica now is neither sent nor deleted here.
            const kept = this.owned(current);
            const lost = current.segments.filter((s) => !kept.segments.includes(s));
            this.o.emit({ f: 'claim_disowned', records: current.records - kept.records, sessions: [...new Set(lost.map((s) => s.sessionId))] });
            if (kept.segments.length === 0) break;
            current = kept;
          }
        }
      } finally {
        if (delivered) await spool.acknowledge(current);
        else spool.settle();
      }
      for (const w of this.watchers) {
        if (delivered) w.delivered?.(current.segments);
        w.settled?.();
      }
    }
  }

  private owned(c: Claim): Claim {
    const segments = c.segments.filter((s) => this.gate?.owns(s.sessionId) ?? true);
    let records = 0;
    let bytes = 0;
    for (const s of segments) {
      records += s.records;
      bytes += s.payload.length;
    }
    return { segments, records, bytes };
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

  /**
   * Sends one request's records until they are settled; false only when shutdown interrupted it.
   *
   * A refusal (400/413) proves nothing by itself: a gateway with a wrong header or tenant refuses
   * every request. So the request is split until each refused record stands alone, and a record is
   * dropped only when that is proven to be about the record: the collector accepts a request like it
   * without its records (an empty one) just before AND just after refusing the record alone once
   * more. Requiring both sides keeps a collector that starts or stops refusing everything in the
   * middle from passing for proof. A round that proves nothing leaves what was refused spooled: the
   * collector (or the configuration) is refusing, delivery backs off, says so, and resumes by
   * itself. A later round sends what is left as one request and splits it again only when the
   * collector takes something (other requests were accepted meanwhile, or an empty one is): splitting
   * against a collector that refuses everything would only multiply requests.
   */
  private async exportParts(payloads: Buffer[], records: number, segments: readonly Segment[]): Promise<boolean> {
    let todo: Part = { payloads, records };
    let acceptedAfterLastRound: number | undefined;
    for (let round = 0; !this.stopped; round++) {
      // Isolating again is worth it only when the collector takes something now: other requests
      // were accepted since, or at least an empty one is.
      let mayIsolate = acceptedAfterLastRound === undefined || this.acceptedRequests > acceptedAfterLastRound;
      if (!mayIsolate) {
        const probe = await this.acceptsEmpty(segments);
        if (probe === 'stopped') return false;
        mayIsolate = probe;
      }
      const refused = await this.attempt(todo.payloads, todo.records, segments, mayIsolate);
      if (refused === 'stopped') return false;
      const kept: Refused[] = [];
      for (const part of refused) {
        const proof = part.isolated ? await this.prove(part, segments) : 'kept';
        if (proof === 'stopped') return false;
        if (proof === 'kept') kept.push(part);
      }
      if (kept.length === 0) return true;
      todo = { payloads: kept.flatMap((p) => p.payloads), records: kept.reduce((n, p) => n + p.records, 0) };
      acceptedAfterLastRound = this.acceptedRequests;
      const last = kept[kept.length - 1]!;
      const delay = backoffDelay(this.o.backoff, round);
      this.failing = true;
      this.refusing = { status: last.status, message: last.message };
      this.lastError = `collector refuses every record (${last.status === undefined ? 'corrupt' : `HTTP ${last.status}`}): ${last.message}`;
      this.o.emit({ f: 'collector_refusing', endpoint: this.endpoint, status: last.status, records: todo.records, round: round + 1, delayMs: delay, error: last.message });
      await this.sleep(delay);
    }
    return false;
  }

  /**
   * One round: sends, retrying what is retryable; on a refusal, halves (when `isolate`) until what
   * is refused stands alone. Resolves with the parts refused (none: all delivered).
   */
  private async attempt(payloads: Buffer[], records: number, segments: readonly Segment[], isolate: boolean): Promise<Refused[] | 'stopped'> {
    const { emit } = this.o;
    const endpoint = this.endpoint;
    for (let attempt = 0; !this.stopped; ) {
      let body: Buffer;
      try {
        body = this.o.requests.build(payloads);
      } catch (err) {
        // A damaged spooled record (it cannot be transcoded): the bridge's own proof, no collector
        // involved; find it by halving and drop it alone.
        const damaged: Refused = { payloads, records, status: undefined, reason: undefined, message: `cannot encode: ${(err as Error).message}`, isolated: true };
        const parts = this.parts(payloads, records);
        if (parts.length <= 1) {
          this.drop(damaged, segments);
          return [];
        }
        return this.halves(parts, segments, true);
      }
      const outcome = await this.send(body, segments);
      if (outcome === 'stopped') return outcome;
      if (outcome.kind === 'success') {
        this.accepted(outcome, records);
        return [];
      }
      if (outcome.kind === 'failure' && outcome.refused !== undefined) {
        const refused: Refused = { payloads, records, status: outcome.status, reason: outcome.refused, message: outcome.message, isolated: false };
        if (!isolate) return [refused];
        const parts = this.parts(payloads, records);
        if (parts.length <= 1) return [{ ...refused, isolated: true }];
        return this.halves(parts, segments, isolate);
      }
      this.lastError = `${outcomeLabel(outcome)}: ${outcome.message}`;
      const backoff = backoffDelay(this.o.backoff, attempt++);
      const delay = outcome.kind === 'retryable' && outcome.retryAfterMs !== undefined ? Math.max(outcome.retryAfterMs, backoff) : backoff;
      emit({ f: 'export_failed', endpoint, status: outcome.status, grpcCode: outcome.grpcCode, records, attempt, delayMs: delay, error: outcome.message });
      this.failing = true;
      await this.sleep(delay);
    }
    return 'stopped';
  }

  /** One request, after the send gate; the attempt is reported. */
  private async send(body: Buffer, segments: readonly Segment[]): Promise<ExportOutcome | 'stopped'> {
    if (this.gate) {
      // Checked before every send: a pause may have happened at any await before this one.
      await this.gate.ready();
      if (this.stopped) return 'stopped';
      for (const s of segments) if (!this.gate.owns(s.sessionId)) throw new Disowned();
    }
    const started = performance.now();
    const outcome = await this.o.transport.send(body, this.o.requests.contentType);
    const seconds = (performance.now() - started) / 1000;
    if (this.stopped && outcome.kind !== 'success') return 'stopped';
    this.o.emit({ f: 'export_attempted', outcome: outcomeLabel(outcome), success: outcome.kind === 'success', seconds });
    return outcome;
  }

  private accepted(outcome: Extract<ExportOutcome, { kind: 'success' }>, records: number): void {
    const { emit } = this.o;
    const endpoint = this.endpoint;
    this.acceptedRequests++;
    const accepted = records - Math.min(records, outcome.rejected);
    emit({ f: 'records_delivered', count: accepted });
    this.deliveredTotal += accepted;
    if (outcome.rejected > 0) emit({ f: 'records_rejected', reason: 'partial_success', count: outcome.rejected, endpoint, error: outcome.message ?? '' });
    if (this.failing) emit({ f: 'export_recovered', endpoint, records });
    this.failing = false;
    this.refusing = undefined;
    this.lastError = undefined;
  }

  /**
   * Proves a part refused alone to be the collector's problem with these records: an empty request
   * accepted, the part refused once more, an empty request accepted again. Dropped then (counted).
   */
  private async prove(part: Refused, segments: readonly Segment[]): Promise<'dropped' | 'delivered' | 'kept' | 'stopped'> {
    const before = await this.acceptsEmpty(segments);
    if (before !== true) return before === 'stopped' ? before : 'kept';
    let body: Buffer;
    try {
      body = this.o.requests.build(part.payloads);
    } catch {
      return 'kept';
    }
    const again = await this.send(body, segments);
    if (again === 'stopped') return again;
    if (again.kind === 'success') {
      this.accepted(again, part.records);
      return 'delivered';
    }
    if (again.kind !== 'failure' || again.refused === undefined) return 'kept';
    const after = await this.acceptsEmpty(segments);
    if (after !== true) return after === 'stopped' ? after : 'kept';
    this.drop({ ...part, status: again.status, reason: again.refused, message: again.message }, segments);
    return 'dropped';
  }

  /**
   * Whether the collector accepts a request like the refused one without its records (an empty
   * request: same endpoint, headers, compression, tenant): the control that tells "these records"
   * from "everything".
   */
  private async acceptsEmpty(segments: readonly Segment[]): Promise<boolean | 'stopped'> {
    let body: Buffer;
    try {
      body = this.o.requests.build([]);
    } catch {
      return false;
    }
    const outcome = await this.send(body, segments);
    if (outcome === 'stopped') return outcome;
    return outcome.kind === 'success';
  }

  /** The records of a request, one per part (a segment that cannot be split stays whole). */
  private parts(payloads: Buffer[], records: number): Buffer[] {
    try {
      return records === payloads.length ? payloads : payloads.flatMap((p) => splitRecords(p));
    } catch {
      return payloads;
    }
  }

  /** Sends both halves; what either refuses comes back. */
  private async halves(parts: Buffer[], segments: readonly Segment[], isolate: boolean): Promise<Refused[] | 'stopped'> {
    const mid = parts.length >> 1;
    const a = await this.attempt(parts.slice(0, mid), mid, segments, isolate);
    if (a === 'stopped') return a;
    const b = await this.attempt(parts.slice(mid), parts.length - mid, segments, isolate);
    if (b === 'stopped') return b;
    return [...a, ...b];
  }

  private drop(r: Refused, segments: readonly Segment[]): void {
    const reason = r.reason ?? 'corrupt';
    const where = segments.map((s) => `${s.sessionId}:${s.firstSeq}-${s.lastSeq}`);
    this.o.emit({ f: 'records_rejected', reason, count: r.records, endpoint: this.endpoint, segments: where, error: r.message });
  }
}

/** Some records of a request, as they are sent. */
interface Part {
  payloads: Buffer[];
  records: number;
}

/** Records the collector refused (400/413, INVALID_ARGUMENT) or the bridge could not encode, not yet proven to be the culprits. */
interface Refused extends Part {
  status: number | undefined;
  /** What the transport said the refusal was about; undefined: the bridge could not encode the records. */
  reason: 'invalid' | 'too_large' | undefined;
  message: string;
  /** Refused standing alone (one record, or a segment that cannot be split). */
  isolated: boolean;
}
