// One followed session: subscriber → envelope validation → sequencer → mapper → encoder → spool.
//
// Lifecycle: created from its stored row (checkpoint, epoch) → start() → following (the
// subscriber's own state machine, see stream/subscriber.ts) → ended (404; trailing undecodable
// frames become a gap record, the session is marked ended in the store) or stopped (shutdown /
// DELETE). The per-event path is synchronous and allocation-light: parse, decide, map, enqueue.
import type { Logger } from 'pino';
import type { SessionSpec, StartPosition } from '../config/schema.js';
import type { BackoffConfig } from '../config/schema.js';
import { gapRecord } from '../mapping/gap-record.js';
import type { AttributeValue, SessionContext } from '../mapping/log-record.js';
import type { Mapper } from '../mapping/mapper.js';
import type { BridgeMetrics } from '../server/metrics.js';
import type { RecordEncoder } from '../export/encode-record.js';
import type { Spool } from '../store/spool.js';
import type { SessionRow, SessionSource } from '../store/store.js';
import { parseEnvelope } from '../stream/envelope.js';
import type { Frame } from '../stream/frame-decoder.js';
import { Sequencer } from '../stream/sequencer.js';
import { Subscriber, type ReconnectReason, type SubscriberState } from '../stream/subscriber.js';
import type { StreamPosition, UpstreamClient } from '../upstream/client.js';

/** Tolerated clock difference between the service and this host for `start: latest` (see position()). */
const LATEST_SKEW_MS = 5000;

export interface SessionDeps {
  client: UpstreamClient;
  mapper: Mapper;
  spool: Spool;
  /** Encodes a record once, into the bytes it is spooled and sent as. */
  encode: RecordEncoder;
  metrics: BridgeMetrics;
  log: Logger;
  idleTimeoutMs: number;
  backoff: BackoffConfig;
  defaultStart: StartPosition;
  onEnded(sessionId: string): Promise<void>;
}

/** What GET /v1/sessions shows for one session. */
export interface SessionStatus {
  id: string;
  source: SessionSource;
  pool?: string;
  state: SubscriberState;
  lastReceivedSeq: number;
  lastDeliveredSeq: number;
  epoch: number;
  received: number;
  filtered: number;
  duplicates: number;
  gaps: number;
  missingEvents: number;
  malformedFrames: number;
  reconnects: Partial<Record<ReconnectReason, number>>;
  lastError?: string;
  lastEventAt?: string;
  connectedSince?: string;
}

export class SessionPipeline {
  readonly id: string;
  /** The current spec; a PUT or reload replaces it (pool, attributes). The start position only matters before the first event. */
  spec: SessionSpec;
  readonly source: SessionSource;
  /** Attributes the bridge learnt (the pool's), kept apart from the configured ones so either can change. */
  private enrichment: Record<string, AttributeValue> = {};
  private readonly seq: Sequencer;
  private readonly ctx: SessionContext;
  private readonly subscriber: Subscriber;
  private readonly startPos: StartPosition | number;
  /** Highest id: of an undecodable frame beyond lastSeq; covered by a gap when the session ends. */
  private malformedUpTo = 0;
  private readonly stats: SessionStatus;
  private lastEventMicros = 0;

  constructor(row: SessionRow, private readonly deps: SessionDeps) {
    const spec = row.spec;
    this.spec = spec;
    this.source = row.source;
    this.id = spec.id;
    this.startPos = spec.start ?? deps.defaultStart;
    const initial = row.checkpoint > 0 ? row.checkpoint : typeof this.startPos === 'number' ? this.startPos : 0;
    this.seq = new Sequencer({ lastSeq: initial, epoch: row.epoch }, this.startPos);
    this.ctx = { sessionId: spec.id, attributes: { ...spec.attributes }, epoch: row.epoch };
    this.stats = {
      id: spec.id, source: row.source, state: 'idle', lastReceivedSeq: initial, lastDeliveredSeq: row.checkpoint,
      epoch: row.epoch, received: 0, filtered: 0, duplicates: 0, gaps: 0, missingEvents: 0, malformedFrames: 0, reconnects: {},
    };
    if (spec.pool) this.stats.pool = spec.pool;
    this.subscriber = new Subscriber(spec.id, deps.client, {
      position: () => this.position(),
      onConnected: () => {
        this.seq.newConnection();
        if (this.startPos === 'latest' && this.seq.lastSeq === 0 && this.latestSinceMicros === undefined) {
          this.latestSinceMicros = (Date.now() - LATEST_SKEW_MS) * 1000;
        }
        this.stats.connectedSince = new Date().toISOString();
      },
      onFrames: (frames, observed) => this.onFrames(frames, observed),
      onState: (state, detail) => this.onState(state, detail),
      onReconnect: (reason, delayMs, detail) => this.onReconnect(reason, delayMs, detail),
      onEnded: () => this.onEnded(),
      onFrameTooLarge: () => this.onFrameTooLarge(),
    }, { idleTimeoutMs: deps.idleTimeoutMs, backoff: deps.backoff });
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
    this.subscriber.start();
  }

  stop(): Promise<void> {
    return this.subscriber.stop();
  }

  status(): SessionStatus {
    const lastEventAt = this.lastEventMicros ? { lastEventAt: new Date(this.lastEventMicros / 1000).toISOString() } : {};
    return { ...this.stats, ...lastEventAt, state: this.subscriber.currentState, lastReceivedSeq: this.seq.lastSeq, epoch: this.seq.epoch, reconnects: { ...this.stats.reconnects } };
  }

  /** The exporter acknowledged a record of this session. */
  delivered(seq: number): void {
    if (seq > this.stats.lastDeliveredSeq) this.stats.lastDeliveredSeq = seq;
  }

  private position(): StreamPosition {
    if (this.seq.lastSeq > 0) return { lastEventId: this.seq.lastSeq, replayAll: false };
    // `latest` before the first event: a second "from now" connection would silently skip what
    // happened in between, so replay and drop what is older than the first connection instead.
    return { replayAll: this.startPos === 'oldest' || this.latestSinceMicros !== undefined };
  }

  /**
   * `latest` with no event yet: events older than this (the first connection, less a margin for
   * clock skew between the service and this host) are history to skip after a reconnect.
   */
  private latestSinceMicros: number | undefined;

  private onFrames(frames: Frame[], observedMicros: number): void | Promise<void> {
    const { spool, encode, mapper, metrics } = this.deps;
    let received = 0;
    for (const frame of frames) {
      const parsed = parseEnvelope(frame.data);
      if (!parsed.ok) {
        this.malformed(frame, parsed.reason);
        continue;
      }
      const env = parsed.envelope;
      if (this.seq.lastSeq === 0 && this.latestSinceMicros !== undefined && env.event.ts < this.latestSinceMicros) continue;
      const d = this.seq.decide(env.seq);
      if (d.kind === 'duplicate') {
        this.stats.duplicates++;
        metrics.duplicates.inc();
        continue;
      }
      if (d.newEpoch) this.onNewEpoch(env.seq);
      if (d.gapFirst !== undefined && d.gapLast !== undefined) {
        this.gap(d.gapFirst, d.gapLast, env.event.ts, observedMicros);
      }
      let record;
      let bytes: Buffer | null = null;
      try {
        record = mapper.map(env, this.ctx, observedMicros);
        if (record !== null) bytes = encode(record);
      } catch (err) {
        // A mapping bug must not stop the session or lose the event silently: it becomes a gap.
        this.deps.log.error({ session: this.id, seq: env.seq, type: env.event.type, error: (err as Error).message }, 'cannot map event; reported as a gap');
        this.gap(env.seq, env.seq, env.event.ts, observedMicros);
        continue;
      }
      // The mapper counts filtered events in the metrics; the session keeps its own number for status.
      if (record === null) this.stats.filtered++;
      spool.append(this.id, env.seq, this.seq.epoch, env.event.ts, bytes);
      received++;
    }
    if (received > 0) {
      // Once per chunk, and formatted only when status is read: not per-event work.
      this.lastEventMicros = observedMicros;
      this.stats.received += received;
      metrics.eventsReceived.inc(received);
    }
    if (spool.full) return spool.waitForRoom();
  }

  private gap(first: number, last: number, tsMicros: number, observedMicros: number): void {
    const count = last - first + 1;
    this.deps.spool.append(this.id, last, this.seq.epoch, tsMicros, this.deps.encode(gapRecord(this.ctx, first, last, tsMicros, observedMicros)));
    this.stats.gaps++;
    this.stats.missingEvents += count;
    this.deps.metrics.gapRecords.inc();
    this.deps.metrics.missingEvents.inc(count);
    this.deps.log.warn({ session: this.id, firstSeq: first, lastSeq: last, count }, 'telemetry gap: events were lost upstream or could not be decoded');
  }

  private malformed(frame: Frame, reason: string): void {
    this.stats.malformedFrames++;
    this.deps.metrics.malformedFrames.inc();
    const id = frame.id !== undefined && /^\d+$/.test(frame.id) ? Number(frame.id) : undefined;
    if (id !== undefined && id > this.seq.lastSeq && id > this.malformedUpTo) this.malformedUpTo = id;
    // The payload is never logged: it may carry exactly the secrets redaction exists for.
    this.deps.log.warn({ session: this.id, frameId: frame.id, bytes: frame.data.length, reason }, 'malformed frame skipped; it will be reported in a gap record');
  }

  /**
   * The frame that overflowed never completed, so its id is unknown. Frames come in seq order, so it
   * is the one after the last accepted: report that seq as lost and resume after it, or the service
   * would replay the same frame on every reconnect and the session would never move again. (Should
   * the frame really carry a later seq, the next attempt skips one more, until it is passed.)
   */
  private onFrameTooLarge(): void {
    const seq = this.seq.lastSeq + 1;
    this.stats.malformedFrames++;
    this.deps.metrics.malformedFrames.inc();
    this.deps.log.error({ session: this.id, seq }, 'frame larger than the limit; skipped and reported as a gap');
    const now = Date.now() * 1000;
    this.gap(seq, seq, now, now);
    this.seq.lastSeq = seq;
    if (this.malformedUpTo <= seq) this.malformedUpTo = 0;
  }

  private onNewEpoch(seq: number): void {
    this.ctx.epoch = this.seq.epoch;
    this.malformedUpTo = 0;
    this.deps.metrics.epochs.inc();
    this.deps.log.warn({ session: this.id, epoch: this.seq.epoch, seq }, 'stream sequence went backwards: the service restarted; continuing in a new epoch');
  }

  private onState(state: SubscriberState, detail?: string): void {
    this.stats.state = state;
    if (state === 'unauthorized' || state === 'forbidden' || state === 'backoff') {
      if (detail) this.stats.lastError = detail;
    }
    if (state !== 'streaming') delete this.stats.connectedSince;
  }

  private onReconnect(reason: ReconnectReason, delayMs: number, detail?: string): void {
    this.stats.reconnects[reason] = (this.stats.reconnects[reason] ?? 0) + 1;
    this.deps.metrics.reconnects.inc({ reason });
    const level = reason === 'closed' ? 'debug' : reason === 'unauthorized' || reason === 'forbidden' ? 'error' : 'warn';
    this.deps.log[level]({ session: this.id, reason, delayMs, detail }, 'stream reconnect scheduled');
  }

  private onEnded(): Promise<void> {
    // Undecodable frames after the last good one would otherwise vanish with the session.
    if (this.malformedUpTo > this.seq.lastSeq) {
      const now = Date.now() * 1000;
      this.gap(this.seq.lastSeq + 1, this.malformedUpTo, now, now);
      this.seq.lastSeq = this.malformedUpTo;
    }
    this.deps.log.info({ session: this.id, lastSeq: this.seq.lastSeq }, 'session ended (the service answered 404)');
    return this.deps.onEnded(this.id);
  }
}
