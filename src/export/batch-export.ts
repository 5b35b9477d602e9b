// Sends the records of one batch until they are settled: the one retry layer (retryable answers
// wait for max(Retry-After, backoff) and go again) and the proof a refused record must pass before it
// is dropped (see exportParts). Delivery (delivery.ts) takes a batch from the spool, hands it here in requests of
// allowed size, and acknowledges; what this learns of the collector (failing, refusing everything,
// the last error) is what status and readiness show.
import type { Emit } from '../vocabulary/facts.js';
import { splitRecords, type Segment } from '../wire/segment-framing.js';
import { backoffDelay, type BackoffPolicy } from '../util/backoff.js';
import type { RequestBody, RequestBuilder } from '../wire/otlp-request.js';
import { rejectedWithin } from '../wire/partial-success.js';
import { sendOutcome, type ExportOutcome, type OtlpTransport } from './otlp-transport.js';
import { failureText, outcomeLabel } from './outcome-label.js';

/**
 * What must hold before anything is sent (the shared store: this replica still owns the sessions).
 * After a pause (GC, SIGSTOP, a frozen VM) the lease may have run out and another replica may have
 * taken the sessions over: `ready` resolves once that was checked, `owns` says what is still ours.
 */
export interface SendGate {
  ready(): Promise<void>;
  owns(sessionId: string): boolean;
}

/** A batch holds segments of a session this replica no longer owns: they are the new owner's to send. */
export class Disowned extends Error {}

export interface BatchExportOptions {
  transport: OtlpTransport;
  requests: RequestBuilder;
  backoff: BackoffPolicy;
  emit: Emit;
  /** The collector's URL as facts may carry it (masked). */
  endpoint: string;
  /** Delivery is stopping: give up what is not settled. */
  stopped(): boolean;
  /**
   * Asked after each backoff: the spool wants these records on disk rather than retried from
   * memory (Spool.belongsOnDisk); true gives the batch up for now, as a stop does, and delivery
   * hands it back to the spool.
   */
  handBack(segments: readonly Segment[]): boolean;
  /**
   * Waits `ms`. `wakeable`: a backoff of the bridge's own choosing, which another request's success
   * may cut short (delivery.ts); a wait the collector asked for (Retry-After, RetryInfo) is not.
   * `segments`: the batch waiting, given for a backoff of the bridge's own: the spool may cut it
   * short once it wants them on disk (handBack is asked next).
   */
  sleep(ms: number, wakeable: boolean, segments?: readonly Segment[]): Promise<void>;
  /** The collector accepted a request: what may wake a worker asleep in its backoff; false when none was. */
  succeeded(): boolean;
  gate(): SendGate | undefined;
}

export class BatchExport {
  private failing = false;
  /** Last export failure, for status and readiness. */
  lastError: string | undefined;
  /** Records acknowledged by the collector since start (gap records included). */
  deliveredTotal = 0;
  /** Set while the collector refuses every record it is sent (400/413 for all): status and its message. */
  refusing: { status: number | undefined; message: string } | undefined;
  /** Requests the collector accepted since start: what proves that a refusal is about the records. */
  private acceptedRequests = 0;
  /**
   * The number of the last accepted request that found no worker asleep to wake: the wake is owed to
   * a request in flight then that fails afterwards (sent during an outage, answered after its end).
   */
  private unclaimedWake: number | undefined;
  /** The partial-success answers carrying the last message, and that message (how often to say it). */
  private partial = { times: 0, message: '' };
  /** Records dropped after proof so far, by reason (how often the line is said). */
  private drops: Partial<Record<string, number>> = {};

  constructor(private readonly o: BatchExportOptions) {}

  get exportFailing(): boolean {
    return this.failing;
  }

  /**
   * Sends one request's records until they are settled; false when interrupted: shutdown, or the
   * spool wanted them back after a backoff (handBack).
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
  async exportParts(payloads: Buffer[], records: number, segments: readonly Segment[]): Promise<boolean> {
    let todo: Part = { payloads, records };
    let acceptedAfterLastRound: number | undefined;
    for (let round = 0; !this.o.stopped(); round++) {
      // Isolating again is worth it only when the collector takes something now: other requests
      // were accepted since, or at least an empty one is.
      let mayIsolate = acceptedAfterLastRound === undefined || this.acceptedRequests > acceptedAfterLastRound;
      if (!mayIsolate) {
        const probe = await this.acceptsEmpty(segments);
        if (probe === 'interrupted') return false;
        mayIsolate = probe;
      }
      const refused = await this.attempt(todo.payloads, todo.records, segments, mayIsolate);
      if (refused === 'interrupted') return false;
      const kept: Refused[] = [];
      for (const part of refused) {
        const proof = part.isolated ? await this.prove(part, segments) : 'kept';
        if (proof === 'interrupted') return false;
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
      this.o.emit({
        f: 'collector_refusing',
        endpoint: this.o.endpoint,
        status: last.status,
        records: todo.records,
        round: round + 1,
        delayMs: delay,
        error: last.message,
      });
      // Not woken by others' successes: a collector that accepts other requests may still refuse these.
      await this.o.sleep(delay, false, segments);
      if (this.o.handBack(segments)) return false;
    }
    return false;
  }

  /**
   * One round: sends, retrying what is retryable; on a refusal, halves (when `isolate`) until what
   * is refused stands alone. Resolves with the parts refused (none: all delivered).
   */
  private async attempt(
    payloads: Buffer[],
    records: number,
    segments: readonly Segment[],
    isolate: boolean,
  ): Promise<Refused[] | 'interrupted'> {
    const { emit } = this.o;
    const endpoint = this.o.endpoint;
    for (let attempt = 0; !this.o.stopped();) {
      let body: RequestBody;
      try {
        body = this.o.requests.build(payloads);
      } catch (err) {
        // A damaged spooled record (it cannot be transcoded): the bridge's own proof, no collector
        // involved; find it by halving and drop it alone.
        const damaged: Refused = {
          payloads,
          records,
          status: undefined,
          reason: undefined,
          message: `cannot encode: ${(err as Error).message}`,
          isolated: true,
        };
        const parts = this.parts(payloads, records);
        if (parts.length <= 1) {
          this.drop(damaged, segments);
          return [];
        }
        return this.halves(parts, segments, true);
      }
      const acceptedBefore = this.acceptedRequests;
      const outcome = await this.send(body, segments);
      if (outcome === 'interrupted') return outcome;
      if (outcome.kind === 'success') {
        this.accepted(outcome, records);
        return [];
      }
      if (outcome.kind === 'failure' && outcome.refused !== undefined) {
        const refused: Refused = {
          payloads,
          records,
          status: outcome.status,
          reason: outcome.refused,
          message: outcome.message,
          isolated: false,
        };
        if (!isolate) return [refused];
        const parts = this.parts(payloads, records);
        if (parts.length <= 1) return [{ ...refused, isolated: true }];
        return this.halves(parts, segments, isolate);
      }
      this.lastError = failureText(outcome);
      const backoff = backoffDelay(this.o.backoff, attempt++);
      const asked = outcome.kind === 'retryable' ? outcome.retryAfterMs : undefined;
      // Had this failure landed before that success, the success would have woken it; landing after,
      // it would sleep out its backoff while the collector is healthy and nobody else sends.
      const owed = asked === undefined && this.unclaimedWake !== undefined && this.unclaimedWake > acceptedBefore;
      if (owed) this.unclaimedWake = undefined;
      const delay = owed ? 0 : asked !== undefined ? Math.max(asked, backoff) : backoff;
      emit({
        f: 'export_failed',
        endpoint,
        status: outcome.status,
        grpcCode: outcome.grpcCode,
        records,
        attempt,
        delayMs: delay,
        error: outcome.message,
      });
      this.failing = true;
      // `attempt` survives a wake: when the collector fails this worker again, it sleeps longer.
      if (!owed) await this.o.sleep(delay, asked === undefined, asked === undefined ? segments : undefined);
      if (this.o.handBack(segments)) return 'interrupted';
    }
    return 'interrupted';
  }

  /** One request, after the send gate; the attempt is reported. */
  private async send(body: RequestBody, segments: readonly Segment[]): Promise<ExportOutcome | 'interrupted'> {
    const gate = this.o.gate();
    if (gate) {
      // Checked before every send: a pause may have happened at any await before this one.
      await gate.ready();
      if (this.o.stopped()) return 'interrupted';
      for (const s of segments) if (!gate.owns(s.sessionId)) throw new Disowned();
    }
    const started = performance.now();
    const outcome = await sendOutcome(this.o.transport, body, this.o.requests.contentType);
    const seconds = (performance.now() - started) / 1000;
    if (this.o.stopped() && outcome.kind !== 'success') return 'interrupted';
    this.o.emit({
      f: 'export_attempted',
      outcome: outcomeLabel(outcome),
      success: outcome.kind === 'success',
      seconds,
    });
    return outcome;
  }

  private accepted(outcome: Extract<ExportOutcome, { kind: 'success' }>, records: number): void {
    const { emit } = this.o;
    const endpoint = this.o.endpoint;
    this.acceptedRequests++;
    if (!this.o.succeeded()) this.unclaimedWake = this.acceptedRequests;
    const rejected = rejectedWithin(records, outcome.rejected);
    const accepted = records - rejected;
    emit({ f: 'records_delivered', count: accepted });
    this.deliveredTotal += accepted;
    if (rejected > 0) {
      const error = outcome.message ?? '';
      this.partial = { times: this.partial.message === error ? this.partial.times + 1 : 1, message: error };
      emit({
        f: 'records_rejected',
        reason: 'partial_success',
        count: rejected,
        endpoint,
        error,
        times: this.partial.times,
      });
    }
    if (this.failing) emit({ f: 'export_recovered', endpoint, records });
    this.failing = false;
    this.refusing = undefined;
    this.lastError = undefined;
  }

  /**
   * Proves a part refused alone to be the collector's problem with these records: an empty request
   * accepted, the part refused once more, an empty request accepted again. Dropped then (counted).
   */
  private async prove(
    part: Refused,
    segments: readonly Segment[],
  ): Promise<'dropped' | 'delivered' | 'kept' | 'interrupted'> {
    const before = await this.acceptsEmpty(segments);
    if (before !== true) return before === 'interrupted' ? before : 'kept';
    let body: RequestBody;
    try {
      body = this.o.requests.build(part.payloads);
    } catch {
      return 'kept';
    }
    const again = await this.send(body, segments);
    if (again === 'interrupted') return again;
    if (again.kind === 'success') {
      this.accepted(again, part.records);
      return 'delivered';
    }
    if (again.kind !== 'failure' || again.refused === undefined) return 'kept';
    const after = await this.acceptsEmpty(segments);
    if (after !== true) return after === 'interrupted' ? after : 'kept';
    this.drop({ ...part, status: again.status, reason: again.refused, message: again.message }, segments);
    return 'dropped';
  }

  /**
   * Whether the collector accepts a request like the refused one without its records (an empty
   * request: same endpoint, headers, compression, tenant): the control that tells "these records"
   * from "everything".
   */
  private async acceptsEmpty(segments: readonly Segment[]): Promise<boolean | 'interrupted'> {
    let body: RequestBody;
    try {
      body = this.o.requests.build([]);
    } catch {
      return false;
    }
    const outcome = await this.send(body, segments);
    if (outcome === 'interrupted') return outcome;
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
  private async halves(
    parts: Buffer[],
    segments: readonly Segment[],
    isolate: boolean,
  ): Promise<Refused[] | 'interrupted'> {
    const mid = parts.length >> 1;
    const a = await this.attempt(parts.slice(0, mid), mid, segments, isolate);
    if (a === 'interrupted') return a;
    const b = await this.attempt(parts.slice(mid), parts.length - mid, segments, isolate);
    if (b === 'interrupted') return b;
    return [...a, ...b];
  }

  private drop(r: Refused, segments: readonly Segment[]): void {
    const reason = r.reason ?? 'corrupt';
    const where = segments.map((s) => `${s.sessionId}:${s.firstSeq}-${s.lastSeq}`);
    const times = (this.drops[reason] = (this.drops[reason] ?? 0) + 1);
    this.o.emit({
      f: 'records_rejected',
      reason,
      count: r.records,
      endpoint: this.o.endpoint,
      segments: where,
      error: r.message,
      times,
    });
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
