// One followed session: subscriber (sequenced items) → archive repair → mapper → encoder → spool.
//
// Lifecycle: created from its stored row (checkpoint, epoch) → start() (for `start: latest` with no
// position, the archive's newest event is taken as the baseline first and persisted) → following
// (the subscriber's own state machine, see stream/subscriber.ts) → ended (404 or 410: what the stream
// still owes — undecodable trailing frames, an unseen tail — is repaired from the archive or
// reported, and the session is marked ended in the store) or stopped (shutdown / DELETE / a move;
// a stop while the end's archive read is under way stops it there, unended).
//
// The per-event path is synchronous and allocation-light: map, encode, append (session-records.ts).
// A gap switches to an asynchronous path only when the archive may repair it; reading the stream
// pauses meanwhile (the promise returned to the subscriber), so records still reach the spool in
// seq order. An archive that cannot be read holds the gap owed, and the stream with it, for up to
// `upstream.archive_retry` (owed-gap.ts): nothing after the gap is appended, so the checkpoint
// cannot pass it.
import type { Logger } from 'pino';
import type { SessionSpec, StartPosition } from '../config/schema.js';
import type { BackoffConfig } from '../config/schema.js';
import type { AttributeValue, SessionContext } from '../vocabulary/log-record.js';
import type { Mapper } from '../mapping/mapper.js';
import type { Emit, Fact } from '../vocabulary/facts.js';
import type { RecordEncoder } from '../wire/encode-record.js';
import type { Spool } from '../store/spool.js';
import type { SessionRow, SessionSource } from '../store/store.js';
import { advance, initialStatus, seqIn, tallyFact, type SessionStatus, type StreamPosition } from './session-status.js';
import { repairOwedGap } from './owed-gap.js';
import { latestBaseline } from './latest-baseline.js';
import { SequencedStream, type GapItem, type StreamItem } from '../stream/sequenced-stream.js';
import { Subscriber, type SubscriberEvent, type StreamSink } from '../stream/subscriber.js';
import type { ArchiveReader } from '../upstream/archive.js';
import type { UpstreamClient } from '../upstream/client.js';
import type { SpanTap, SpanTapFactory } from './span-tap.js';
import { SessionRecords } from './session-records.js';
import { subscriberFact } from './subscriber-facts.js';

export type { SessionStatus } from './session-status.js';

export interface SessionDeps {
  client: Pick<UpstreamClient, 'openStream' | 'invalidateKey'>;
  mapper: Mapper;
  spool: Pick<Spool, 'append' | 'full' | 'waitForRoom'>;
  /** Encodes a record once, into the bytes it is spooled and sent as. */
  encode: RecordEncoder;
  /** Where the session's facts go (metrics and log lines); its own status is tallied from the same facts. */
  emit: Emit;
  log: Logger;
  idleTimeoutMs: number;
  backoff: BackoffConfig;
  defaultStart: StartPosition;
  archive: ArchiveReader;
  /** How long a gap whose archive read failed is owed before it is recorded (`upstream.archive_retry`; default OWED_FOR_MS). */
  archiveRetryMs?: number;
  onEnded(sessionId: string): Promise<void>;
  /** Wall clock in ms (injectable for tests). */
  now?: () => number;
  /** Spans beside the records (traces.enabled, docs/traces.md); absent when traces are off. */
  spans?: SpanTapFactory;
}

/** What the supervisor holds for a followed session: this class in one thread, or ingest/remote-session.ts. */
export interface FollowedSession {
  readonly id: string;
  readonly spec: SessionSpec;
  readonly source: SessionSource;
  updateSpec(spec: SessionSpec): void;
  setEnrichment(attrs: Record<string, AttributeValue>): void;
  start(): void;
  /** Stops reading; `removed`: for good (its open spans are flushed), else it is followed again later. */
  stop(removed?: boolean): Promise<void>;
  status(): SessionStatus;
  /** The collector acknowledged the session's records up to (epoch, seq). */
  delivered(seq: number, epoch: number): void;
  /** Resolves once the spans it offered (its closing ones included) left the export queue for good. */
  spansSettled(): Promise<void>;
}

export class SessionPipeline implements StreamSink, FollowedSession {
  readonly id: string;
  /** The current spec; a PUT or reload replaces it (pool, attributes). The start position only matters before the first event. */
  spec: SessionSpec;
  readonly source: SessionSource;
  /** Attributes the bridge learnt (the pool's), kept apart from the configured ones so either can change. */
  private enrichment: Record<string, AttributeValue> = {};
  private readonly ctx: SessionContext;
  private readonly subscriber: Subscriber;
  private readonly startPos: StartPosition | number;
  private readonly stats: SessionStatus;
  /** What the collector acknowledged, as (epoch, seq): a new epoch's seqs start again at 1. */
  private readonly deliveredAt: StreamPosition;
  private lastEventMicros = 0;
  /** This epoch's highest seq applied, the archive's included: the stream's stays before a tail read there. */
  private appliedSeq = 0;
  private readonly now: () => number;
  private starting: Promise<void> | undefined;
  private stopping = false;
  /**
   * The stream ended and ended() captured the final state: a stop that comes after (shutdown, a
   * move, a DELETE racing the end) has nothing left to write. In an ingest worker the session is
   * forgotten by the outbox once the main thread recorded the end, and an append then ended the
   * worker (ingest/worker.ts).
   */
  private finished = false;
  /** Aborts archive reads in flight when the session stops. */
  private readonly aborter = new AbortController();
  private readonly spans: SpanTap | undefined;
  /** Items become spooled records there: the per-event path. */
  private readonly records: SessionRecords;

  constructor(
    row: SessionRow,
    private readonly deps: SessionDeps,
  ) {
    const spec = row.spec;
    this.spec = spec;
    this.source = row.source;
    this.id = spec.id;
    this.now = deps.now ?? Date.now;
    this.startPos = spec.start ?? deps.defaultStart;
    const initial = row.checkpoint > 0 ? row.checkpoint : typeof this.startPos === 'number' ? this.startPos : 0;
    const stream = new SequencedStream(
      row.sourceId === undefined
        ? { lastSeq: initial, epoch: row.epoch }
        : { lastSeq: initial, epoch: row.epoch, sourceId: row.sourceId },
      this.startPos,
    );
    this.ctx = { sessionId: spec.id, attributes: { ...spec.attributes }, epoch: row.epoch };
    // The open spans as they stood at the checkpoint: the stream resumes after it, so do they.
    this.spans = deps.spans?.(spec.id, row.spans);
    this.records = new SessionRecords(
      this.ctx,
      {
        mapper: deps.mapper,
        encode: deps.encode,
        spool: deps.spool,
        spans: this.spans,
        emit: (fact) => this.emit(fact),
      },
      row,
    );
    this.stats = { ...initialStatus(row), lastReceivedSeq: initial };
    this.deliveredAt = { epoch: row.epoch, seq: row.checkpoint };
    this.subscriber = new Subscriber(spec.id, deps.client, stream, this, {
      idleTimeoutMs: deps.idleTimeoutMs,
      backoff: deps.backoff,
      start: this.startPos,
      now: this.now,
    });
  }

  /** Replaces the spec; later records carry the new attributes (records already spooled keep theirs). */
  updateSpec(spec: SessionSpec): void {
    // Another pool (or none): the old pool's attributes no longer describe this session.
    if (spec.pool !== this.spec.pool) this.enrichment = {};
    this.spec = spec;
    if (spec.pool) this.stats.pool = spec.pool;
    else delete this.stats.pool;
    this.applyAttributes();
  }

  /** Pool enrichment for every later record. */
  setEnrichment(attrs: Record<string, AttributeValue>): void {
    this.enrichment = { ...attrs };
    this.applyAttributes();
  }

  private applyAttributes(): void {
    // A new object rather than a mutation: the mapper reads ctx.attributes per event.
    this.ctx.attributes = { ...this.enrichment, ...this.spec.attributes };
  }

  start(): void {
    if (this.starting) return;
    this.starting = this.baseline().then(() => {
      if (!this.stopping) this.subscriber.start();
    });
  }

  async stop(removed = false): Promise<void> {
    this.stopping = true;
    this.aborter.abort();
    await this.starting;
    await this.subscriber.stop();
    if (this.finished) return;
    // Stopped to be followed again (shutdown, a move, a handover): the open spans stay in the state
    // stored with the checkpoint. Removed for good: nothing will complete them, so they go now, and
    // the state is written once more with them, as at an end (a stop before they are acknowledged
    // leaves them to the next start: session/finished-session-spans.ts).
    if (removed) this.spans?.end('session_removed');
    this.records.capture(removed);
  }

  status(): SessionStatus {
    const lastEventAt = this.lastEventMicros
      ? { lastEventAt: new Date(this.lastEventMicros / 1000).toISOString() }
      : {};
    return {
      ...this.stats,
      ...lastEventAt,
      state: this.subscriber.currentState,
      lastReceivedSeq: this.lastSeq(),
      lastDeliveredSeq: seqIn(this.deliveredAt, this.ctx.epoch),
      epoch: this.ctx.epoch,
      reconnects: { ...this.stats.reconnects },
    };
  }

  spansSettled(): Promise<void> {
    return this.spans?.settled() ?? Promise.resolve();
  }

  /** The exporter acknowledged a record of this session. */
  delivered(seq: number, epoch: number): void {
    advance(this.deliveredAt, epoch, seq);
  }

  /**
   * `start: latest` with no position: the archive's newest event is "now" (session/latest-baseline.ts),
   * persisted as the checkpoint at once so a restart before the first event keeps it.
   */
  private async baseline(): Promise<void> {
    if (this.startPos !== 'latest' || !this.subscriber.unpositioned) return;
    const b = await latestBaseline(this.deps.archive, this.id, this.deps.log);
    if (!b || !this.subscriber.unpositioned || this.stopping) return;
    this.subscriber.setBaseline(b.seq, b.sourceId);
    this.records.baseline(b.seq, b.tsMicros);
  }

  // --- StreamSink ---

  push(items: StreamItem[], observedMicros: number): void | Promise<void> {
    const rest = this.apply(items, 0, observedMicros);
    if (rest) return rest;
    if (this.deps.spool.full) return this.deps.spool.waitForRoom();
  }

  async ended(items: StreamItem[], detail: string, unknown = false): Promise<void | false> {
    const observed = this.now() * 1000;
    const rest = this.apply(items, 0, observed);
    if (rest) await rest;
    // Stopped while the archive was read for what the stream still owed (a shutdown, a move): the
    // end is not recorded without it, nor the spans closed before their last events. The stop
    // captures what was applied, as any stop; the next follow meets the 404 again and reads the rest.
    if (this.stopping) return false;
    this.spans?.end();
    this.records.capture(true);
    this.finished = true;
    if (unknown) this.emit({ f: 'session_unknown', session: this.id, detail });
    else
      this.emit({
        f: 'session_ended',
        session: this.id,
        lastSeq: this.lastSeq(),
        epoch: this.ctx.epoch,
        detail,
      });
    await this.deps.onEnded(this.id);
  }

  /** The last seq received in this epoch, by the stream or from the archive. */
  private lastSeq(): number {
    return Math.max(this.subscriber.lastSeq, this.appliedSeq);
  }

  report(ev: SubscriberEvent): void {
    this.emit(subscriberFact(this.id, ev, this.now()));
  }

  /** One fact: the session's status moves by it, then the process's metrics and log see it. */
  private emit(fact: Fact): void {
    tallyFact(this.stats, fact);
    this.deps.emit(fact);
  }

  /**
   * Applies items from `from` on, synchronously, until a gap the archive may repair: the rest then
   * continues after the repair, and the returned promise holds the stream until it is done.
   * `repairGaps` is false for what a repair returned: its gaps are what the archive could not supply,
   * and since a repair can return a whole evicted buffer at once, those items wait for spool room as
   * they go (a stream chunk waits once, after it, in push()).
   */
  private apply(
    items: StreamItem[],
    from: number,
    observedMicros: number,
    repairGaps = true,
  ): Promise<void> | undefined {
    let received = 0;
    try {
      for (let i = from; i < items.length; i++) {
        const item = items[i] as StreamItem;
        switch (item.kind) {
          case 'event':
            this.records.event(item.envelope, item.sourceId, observedMicros);
            if (item.envelope.seq > this.appliedSeq) this.appliedSeq = item.envelope.seq;
            received++;
            break;
          case 'gap':
            if (repairGaps && this.deps.archive.usable) return this.repairThenApply(item, items, i + 1, observedMicros);
            this.records.gap(item, observedMicros);
            break;
          case 'duplicate':
            this.emit({ f: 'duplicates', session: this.id, count: 1 });
            break;
          case 'malformed':
            this.emit({
              f: 'malformed_frame',
              session: this.id,
              frameId: item.frameId,
              bytes: item.bytes,
              reason: item.reason,
            });
            break;
          case 'epoch':
            this.ctx.epoch = item.epoch;
            this.appliedSeq = 0;
            this.emit({
              f: 'epoch_started',
              session: this.id,
              epoch: item.epoch,
              seq: item.seq,
              why: item.change.why,
              previousEpoch: item.change.previous.epoch,
              previousLastSeq: item.change.previous.lastSeq,
            });
            break;
        }
        if (!repairGaps && this.deps.spool.full && i + 1 < items.length)
          return this.afterRoom(items, i + 1, observedMicros);
      }
      return undefined;
    } finally {
      if (received > 0) this.countReceived(received, observedMicros);
    }
  }

  private async repairThenApply(
    gap: GapItem,
    items: StreamItem[],
    next: number,
    observedMicros: number,
  ): Promise<void> {
    // An archive that cannot be read now is read again for a while (owed-gap.ts): the stream waits,
    // so the checkpoint stays before the gap until it is repaired or recorded.
    const r = await repairOwedGap(this.deps.archive, this.id, gap, {
      signal: this.aborter.signal,
      ...(this.deps.archiveRetryMs !== undefined ? { forMs: this.deps.archiveRetryMs } : {}),
      owed: (detail, forMs) =>
        this.emit({
          f: 'archive_repair_owed',
          session: this.id,
          first: gap.first,
          last: gap.last,
          detail,
          forMs,
          at: this.now(),
        }),
    }).catch((err: unknown) => ({
      items: [gap] as StreamItem[],
      repaired: 0,
      unavailable: (err as Error).message,
    }));
    // Stopped meanwhile: nothing more goes to the spool; the next start resumes from the checkpoint.
    if (this.stopping) return;
    if (r.repaired > 0) {
      this.emit({
        f: 'archive_repaired',
        session: this.id,
        first: gap.first,
        last: gap.last,
        reason: gap.reason,
        repaired: r.repaired,
      });
    } else if (r.unavailable !== undefined && r.unavailable !== 'no archive') {
      this.emit({ f: 'archive_unreadable', session: this.id, first: gap.first, last: gap.last, detail: r.unavailable });
    }
    const repaired = this.apply(r.items, 0, observedMicros, false);
    if (repaired) await repaired;
    if (this.stopping) return;
    const rest = this.apply(items, next, observedMicros);
    if (rest) await rest;
  }

  /** Repaired items past a full spool: the rest once it has room (nothing, once stopped). */
  private async afterRoom(items: StreamItem[], next: number, observedMicros: number): Promise<void> {
    await this.deps.spool.waitForRoom();
    if (this.stopping) return;
    const rest = this.apply(items, next, observedMicros, false);
    if (rest) await rest;
  }

  private countReceived(n: number, observedMicros: number): void {
    // Once per chunk, and formatted only when status is read: not per-event work.
    this.lastEventMicros = observedMicros;
    this.emit({ f: 'events_received', session: this.id, count: n });
  }
}
