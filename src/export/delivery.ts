// Moves segments from the spool to the collector in batches: taken → in flight → acknowledged (deleted).
//
// `concurrency` workers each take the next batch of segments (the spool hands out one batch at a
// time, so no segment is in two), build one request from their payloads as they are, send it, and
// acknowledge the batch only after the collector answered success (docs/design.md "Delivery
// semantics" 1). Sending a batch's records is batch-export.ts, the one retry layer:
//   - success: acknowledged; a partial success counts the records the collector rejected;
//   - retryable (429, 502, 503, 504, network, timeout): waits max(Retry-After, backoff), then again;
//   - refused content (HTTP 400 or 413, gRPC INVALID_ARGUMENT: the transport's `refused`): the batch is split in halves until the culprit stands alone; a refused record is
//     dropped, logged and counted as rejected only when proven to be the one the collector cannot
//     take (one bad record cannot block delivery); when everything is refused, nothing is dropped:
//     the collector or the configuration is at fault, every record stays spooled and delivery backs
//     off (see BatchExport.exportParts);
//   - any other failure (401, 403, 404, 500, …): a configuration or collector problem the operator
//     fixes while the spool holds the data: retried with backoff, forever.
// A worker's backoff is its own: new data never cuts it short. Another worker's success does, one
// sleeper at a time: after an outage, the workers that failed first sleep longest, and without the
// wake their batches (the oldest undelivered records) would wait out up to `exporter.backoff.max`
// while the rest already went out. Each accepted request wakes the worker that has slept longest in
// a backoff of its own; it sends at once, and its success wakes the next, so the sleepers come back
// in a chain paced by the collector's answers, not in a herd. A woken worker keeps its attempt count:
// a collector that only half recovered fails it again, and it sleeps longer than before. A success
// that finds nobody asleep is owed to the next failure of a request that was in flight when it
// landed (sent during the outage, answered after it): that worker goes again at once, where it
// would otherwise sleep out its backoff with the collector healthy and nothing else sent. A worker
// waiting out the collector's own Retry-After (or gRPC RetryInfo) is never woken: the collector
// asked for that quiet; nor is one backing off from a refusal (400/413): other requests' success
// says nothing about its records.
// In overflow mode a batch still held in memory does not wait in flight for ever: once it is past
// the spool's window (Spool.belongsOnDisk: a backlog formed behind it, or it is older than
// spool.memory_max_age), it is given back to the spool, which stores it ahead of what waits behind
// it: by the spill itself when its worker is asleep in a backoff of its own (the worker wakes and
// lets go of it), else by the worker after its next backoff (a Retry-After is waited out). The
// worker goes on with the backlog, which begins with these records. In flight, it would hold its
// sessions' checkpoints back over everything spilled behind it.
// After a crash, batches that were in flight are sent again: duplicates are bounded by concurrency ×
// batch size and carry log.record.uid for deduplication.
import type { Emit } from '../vocabulary/facts.js';
import { once } from '../util/lifecycle.js';
import { StopLatch } from '../util/stop-latch.js';
import { steadyNow } from '../util/steady-clock.js';
import type { Batch, Spool } from '../store/spool.js';
import { batchOf } from '../store/spool-reader.js';
import { splitRecords, type Segment } from '../wire/segment-framing.js';
import type { BackoffPolicy } from '../util/backoff.js';
import type { RequestBuilder } from '../wire/otlp-request.js';
import type { OtlpTransport } from './otlp-transport.js';
import { displayUrl } from '../mapping/display-url.js';
import { BatchExport, Disowned, type SendGate } from './batch-export.js';

export type { SendGate } from './batch-export.js';

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
  /** A batch finished (delivered or rejected): "everything delivered" may have become true. */
  settled?(): void;
}

export class Delivery {
  /** Fired at shutdown: a worker waiting for data must not outlive it. */
  private readonly stopSignal = new StopLatch();
  /** Bytes of the batches being sent now (counted in the memory budget: bridge.ts). */
  private inFlight = 0;
  private workers: Promise<void>[] = [];
  private readonly sleepers = new Set<() => void>();
  /**
   * The workers asleep in a backoff of their own, with the segments of their batch: a spill that
   * finds them belonging on disk gives them back and wakes the worker (watchSpill).
   */
  private readonly holding = new Map<() => void, readonly Segment[]>();
  /** Segments given back at a spill while their worker slept: it only lets go of them. */
  private readonly given = new WeakSet<readonly Segment[]>();
  /** The workers asleep in a backoff of their own, longest asleep first: what a success wakes. */
  private readonly backoffSleepers: (() => void)[] = [];
  private readonly watchers: DeliveryWatcher[] = [];
  private readonly exporter: BatchExport;

  constructor(private readonly o: DeliveryOptions) {
    this.exporter = new BatchExport({
      transport: o.transport,
      requests: o.requests,
      backoff: o.backoff,
      emit: o.emit,
      // Facts and log lines name the collector with credentials and secret-named parameters masked.
      endpoint: displayUrl(o.transport.url),
      stopped: () => this.stopped,
      handBack: (segments) => this.given.has(segments) || this.mayHandBack(segments),
      sleep: (ms, wakeable, segments) => this.sleep(ms, wakeable, segments),
      succeeded: () => {
        const wake = this.backoffSleepers.shift();
        wake?.();
        return wake !== undefined;
      },
      gate: () => this.gate,
    });
    // A spill is about to store what waits behind the batches asleep in their backoff: those that
    // belong on disk go first, in the same commit. Left in flight until their backoff ends (up to
    // exporter.backoff.max) they would hold back the checkpoints of all that, and reach the store
    // after it.
    o.spool.watchSpill(() => {
      for (const [wake, segments] of this.holding) {
        if (!this.mayHandBack(segments)) continue;
        o.spool.giveBack(segments);
        this.given.add(segments);
        wake();
      }
    });
  }

  /** Last export failure, for status and readiness. */
  /** Bytes of the records being sent now. */
  get inFlightBytes(): number {
    return this.inFlight;
  }

  get lastError(): string | undefined {
    return this.exporter.lastError;
  }

  /** Records acknowledged by the collector since start (gap records included). */
  get deliveredTotal(): number {
    return this.exporter.deliveredTotal;
  }

  /** Set while the collector refuses every record it is sent: status and its message. */
  get refusing(): { status: number | undefined; message: string } | undefined {
    return this.exporter.refusing;
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
    return this.exporter.exportFailing;
  }

  /**
   * Delivers until the spool is idle or `deadline` passes (workers asleep in a backoff of their own
   * are woken for it), then stops: requests still in flight are
   * abandoned (their segments stay spooled for the next start), and the workers are waited for at
   * most until the deadline (at least a tenth of a second), so a collector that never answers cannot
   * hold shutdown past its grace period. Resolves with whether everything went out. Idempotent.
   */
  readonly stop: (deadline?: number) => Promise<boolean> = once(async (deadline = steadyNow()) => {
    // The grace period is for emptying the spool: a worker asleep in a backoff of its own would
    // sleep through it with the collector healthy again. One more try each; the collector's own
    // Retry-After is still waited out.
    for (const wake of this.backoffSleepers.splice(0)) wake();
    while (!this.o.spool.idle && steadyNow() < deadline && !this.stopped) {
      await new Promise((r) => setTimeout(r, 25));
    }
    const drained = this.o.spool.idle;
    await this.halt(Math.max(deadline, steadyNow() + 100));
    return drained;
  });

  private async halt(deadline: number): Promise<void> {
    this.stopSignal.fire();
    for (const s of this.sleepers) s();
    this.sleepers.clear();
    this.backoffSleepers.length = 0;
    this.holding.clear();
    const wait = deadline - steadyNow();
    if (!Number.isFinite(wait)) {
      await Promise.all(this.workers);
    } else {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(this.workers),
        new Promise<void>((r) => (timer = setTimeout(r, Math.max(0, wait)))),
      ]);
      clearTimeout(timer);
    }
    await this.o.transport.close();
  }

  /**
   * Sleeps `ms`; shutdown cuts it short, and so does another request's success when `wakeable` (a
   * backoff of the bridge's own, not a wait the collector asked for). New data never does; a spill
   * does when it takes `segments` (the batch waiting) to the store.
   */
  private sleep(ms: number, wakeable = false, segments?: readonly Segment[]): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(t);
        this.sleepers.delete(done);
        this.holding.delete(done);
        const i = this.backoffSleepers.indexOf(done);
        if (i >= 0) this.backoffSleepers.splice(i, 1);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.sleepers.add(done);
      if (wakeable) this.backoffSleepers.push(done);
      if (segments !== undefined) this.holding.set(done, segments);
    });
  }

  private async work(): Promise<void> {
    const spool = this.o.spool;
    while (!this.stopped) {
      let batch: Batch | null;
      try {
        batch = await spool.takeBatch(this.o.batchMaxRecords, this.o.batchMaxBytes);
      } catch (err) {
        this.o.emit({ f: 'spool_unreadable', error: (err as Error).message });
        await this.sleep(this.o.backoff.maxMs);
        continue;
      }
      if (!batch) {
        await this.stopSignal.race(spool.waitForData());
        continue;
      }
      let delivered = false;
      let current = batch;
      this.inFlight += batch.bytes;
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
            this.o.emit({
              f: 'claim_disowned',
              records: current.records - kept.records,
              sessions: [...new Set(lost.map((s) => s.sessionId))],
            });
            if (kept.segments.length === 0) break;
            current = kept;
          }
        }
      } finally {
        this.inFlight -= batch.bytes;
        if (delivered) await spool.acknowledge(current);
        // Given back at a spill while this worker slept: the spool has it already.
        else if (this.given.has(current.segments)) this.given.delete(current.segments);
        // Given up after a backoff (batch-export.ts handBack): to the store, with what waits behind it.
        else if (!this.stopped && current === batch && this.mayHandBack(batch.segments)) await spool.handBack(batch);
        else spool.release(batch);
      }
      for (const w of this.watchers) {
        if (delivered) w.delivered?.(current.segments);
        w.settled?.();
      }
    }
  }

  /**
   * Whether these segments, held in flight, should go to the store instead (Spool.belongsOnDisk),
   * and may: a session this replica no longer owns (its lease lapsed, or another replica took it)
   * is left to whoever claims it next, from its stored checkpoint, which this replica must not
   * move any more (its writes for the session would be refused as fenced anyway, or, with nobody
   * else owning it yet, move a checkpoint the next owner reads on from).
   */
  private mayHandBack(segments: readonly Segment[]): boolean {
    const gate = this.gate;
    if (gate !== undefined && !segments.every((s) => gate.owns(s.sessionId))) return false;
    return this.o.spool.belongsOnDisk(segments);
  }

  private owned(c: Batch): Batch {
    return batchOf(c.segments.filter((s) => this.gate?.owns(s.sessionId) ?? true));
  }

  private get stopped(): boolean {
    return this.stopSignal.stopped;
  }

  /** Exports a batch until it is settled; false when shutdown interrupted it or the spool wants it back. */
  private async deliver(batch: Batch): Promise<boolean> {
    const { batchMaxRecords, batchMaxBytes } = this.o;
    if (batch.records <= batchMaxRecords && batch.bytes <= batchMaxBytes) {
      return this.exporter.exportParts(
        batch.segments.map((s) => s.payload),
        batch.records,
        batch.segments,
      );
    }
    // One segment larger than a request may be (a commit of many records, or screenshots): its
    // records go out in requests of allowed size, and the batch is acknowledged after the last.
    let records: Buffer[];
    try {
      records = batch.segments.flatMap((s) => splitRecords(s.payload));
    } catch {
      return this.exporter.exportParts(
        batch.segments.map((s) => s.payload),
        batch.records,
        batch.segments,
      );
    }
    for (let i = 0; i < records.length;) {
      let bytes = 0;
      let j = i;
      while (
        j < records.length &&
        (j === i || (j - i < batchMaxRecords && bytes + records[j]!.length <= batchMaxBytes))
      )
        bytes += records[j++]!.length;
      if (!(await this.exporter.exportParts(records.slice(i, j), j - i, batch.segments))) return false;
      i = j;
    }
    return true;
  }
}
