// One simulated browser session and its telemetry (docs/service-api.md "Events", "Stream telemetry events").
//
// State machine:
//   live ──end()──▶ ended (final). While live, every generated event takes the next seq, is
//   serialised once into a frame (its UTF-8 bytes) appended to the session's frame log, which the
//   bounded replay buffer and the archive both read (frame-log.ts), and is offered to every open
//   connection. end() stops production and resets every connection (the VM
//   goes away; the last unsent frame may be cut in half); the next stream requests answer 502
//   (faults.endedServerErrors), then 404 (docs/service-api.md "Stream telemetry events" rule 6). The archive outlives the session.
//   restartService() keeps the session live but starts a new epoch, as when the in-VM API process
//   restarts and loses its memory: connections drop, seq restarts at 1, the buffer is emptied and
//   events carry a new telemetry_session_id.
// produce() is the bulk path: its events mostly reuse the data of recent events with a fresh ts and
// seq (see EventFactory.nextJson), so the benchmark measures the bridge, not the generator.
// Telemetry disabled (or a pool config that captures nothing): emit() generates nothing, the stream
// opens and stays empty (rule 7). emitEvent() and injectMalformed() are explicit test hooks and
// deliver regardless.
import { randomUUID } from 'node:crypto';
import type { Envelope, TelemetryEvent } from '../../upstream/envelope.js';
import { SessionArchive } from './archive.js';
import { capEnvelope, ENVELOPE_CAP_BYTES, normaliseSource } from './event-source.js';
import type { EventFactory } from './events/event-factory.js';
import type { Producer } from './producer.js';
import { ReplayBuffer } from './replay-buffer.js';
import { FrameLog } from './frame-log.js';
import { bulkFrame, bulkFrameSize, bulkHead, formatFrame, frameData, writeBulkFrame } from './sse-format.js';
import type { StreamConnection, StreamSource } from './stream-connection.js';
import type { Faults, SimSession } from './types.js';

export interface SessionDeps {
  bufferSize: number;
  archiveSize: number;
  faults(): Faults;
  factory: EventFactory;
  producer: Producer;
  telemetry: boolean;
  poolId?: string;
  poolName?: string;
  /** What GET /browsers lists (devkit/simulator/browser-list.ts). */
  name?: string;
  tags?: Readonly<Record<string, string>>;
  region?: string;
  otlpExport?: { enabled: boolean; destination?: string };
}

/** Data of a frame that is not JSON, and of one that is JSON but not an envelope. */
const MALFORMED = {
  json: (seq: number, variant: number): string =>
    [`{"seq":${seq},"event":{"ts":`, `not json at all {{{`, `{"seq":${seq},"event":{"type":"console_log",}}`][
      variant % 3
    ] as string,
  envelope: (seq: number, variant: number): string =>
    [
      JSON.stringify({ seq, event: 'not an object' }),
      // A ts the bridge cannot read is no longer malformed (it takes the time it read the frame): a
      // source that is not an object still is.
      JSON.stringify({
        seq,
        event: { type: 'console_log', category: 'console', source: 'cdp', ts: Date.now() * 1000 },
      }),
      JSON.stringify([seq, 'array instead of envelope']),
    ][variant % 3] as string,
};

export class Session implements SimSession, StreamSource {
  readonly buffer: ReplayBuffer;
  readonly archive: SessionArchive;
  /** Every frame the session sent, as long as the buffer or the archive needs it. */
  private readonly log: FrameLog;
  epoch = 0;
  /** RFC 3339, as GET /browsers states them; deletedAt is set when the session ends. */
  readonly createdAt = new Date().toISOString();
  deletedAt: string | undefined;
  /** Stream requests of the ended session still answered 502 before the 404s. */
  serverErrorsLeft = 0;
  private tsid = randomUUID();
  private seq = 0;
  private generated = 0;
  private isEnded = false;
  private malformedCount = 0;
  private readonly connections = new Set<StreamConnection>();

  constructor(
    readonly id: string,
    private readonly deps: SessionDeps,
  ) {
    const archiveCap = Math.max(1, deps.archiveSize);
    // The buffer's own check names a bad size; the log only needs a valid one to exist first.
    this.log = new FrameLog(Math.max(archiveCap, Number.isInteger(deps.bufferSize) ? deps.bufferSize : 1));
    this.buffer = new ReplayBuffer(this.log, deps.bufferSize);
    this.archive = new SessionArchive(this.log, archiveCap);
  }

  get telemetrySessionId(): string {
    return this.tsid;
  }

  get lastSeq(): number {
    return this.seq;
  }
  get ended(): boolean {
    return this.isEnded;
  }
  get emitted(): number {
    return this.generated;
  }
  get telemetry(): boolean {
    return this.deps.telemetry;
  }
  get poolId(): string | undefined {
    return this.deps.poolId;
  }
  get poolName(): string | undefined {
    return this.deps.poolName;
  }
  get name(): string | undefined {
    return this.deps.name;
  }
  get tags(): Readonly<Record<string, string>> {
    return this.deps.tags ?? {};
  }
  get region(): string {
    return this.deps.region ?? 'us-east';
  }
  /** The session's `telemetry` member as the service shows it (GET /browsers, GET /browsers/{id}). */
  get telemetryConfig(): Record<string, unknown> {
    return {
      enabled: this.deps.telemetry,
      ...(this.deps.otlpExport !== undefined ? { export: { otlp: { ...this.deps.otlpExport } } } : {}),
    };
  }
  get streams(): number {
    return this.connections.size;
  }

  emit(count = 1, opts?: { types?: string[] }): Envelope[] {
    this.assertLive();
    if (!Number.isInteger(count) || count < 0) throw new RangeError('count must be a non-negative integer');
    const out: Envelope[] = [];
    if (!this.deps.telemetry) return out;
    for (let i = 0; i < count; i++) {
      const event = this.deps.factory.next(opts?.types);
      if (!event) break;
      out.push(this.append(event));
    }
    // Asked for types this session does not capture, emit() used to return nothing, and a test
    // waiting on the events it thought it sent passed or failed by timing alone.
    if (opts?.types && count > 0 && out.length === 0)
      throw new Error(
        `session ${this.id} captures none of ${opts.types.join(', ')}: opt its category in (createSession(id, { categories: [...] }))`,
      );
    this.notify();
    return out;
  }

  emitEvent(event: Partial<TelemetryEvent> & { type: string }): Envelope {
    this.assertLive();
    // Delivered as the caller wrote it (a test may want an odd source, a flag or a huge frame); a
    // missing source is filled in, and any source gains the process id when it has none.
    const envelope = this.append(this.deps.factory.complete(event), false);
    this.notify();
    return envelope;
  }

  injectMalformed(kind: 'json' | 'envelope' = 'json'): number {
    this.assertLive();
    const seq = ++this.seq;
    const wire = Buffer.from(formatFrame(seq, MALFORMED[kind](seq, this.malformedCount++)));
    // The frame broke on the wire; the service itself had a proper event, and archived it.
    const event = this.deps.factory.next() ?? this.deps.factory.complete({ type: 'api_call', category: 'control' });
    normaliseSource(event, this.tsid);
    this.log.pushText(formatFrame(seq, JSON.stringify({ seq, event })), event.ts, event.category);
    this.buffer.replaceOnWire(seq, wire);
    this.notify();
    return seq;
  }

  produce(ratePerSecond: number, count?: number): void {
    this.assertLive();
    this.deps.producer.set(this, ratePerSecond, count);
  }

  /** Called by the shared producer's timer; no Envelope objects are needed, so frames are built from JSON and template bytes. */
  produceBatch(count: number): void {
    if (this.isEnded || !this.deps.telemetry) return;
    for (let i = 0; i < count; i++) {
      const event = this.deps.factory.nextBulk(this.asGenerated);
      if (event === undefined) break;
      const seq = ++this.seq;
      const category = event.category;
      // Same text JSON.stringify({ seq, event }) would give, written straight into the log.
      const head = bulkHead(seq, event.ts);
      const size = bulkFrameSize(head, event.tail);
      // Frame bytes exceed envelope bytes: only a frame over the cap can need the cap's rule.
      if (size > ENVELOPE_CAP_BYTES) {
        const capped = capEnvelope(frameData(bulkFrame(seq, event.ts, event.tail).toString()));
        this.log.pushText(formatFrame(seq, capped), event.ts, category);
      } else {
        // append() first: it may open the slab the frame goes into.
        const at = this.log.append(size, event.ts, category);
        writeBulkFrame(this.log.writeSlab, at, head, event.tail);
      }
      this.generated++;
    }
    this.notify();
  }

  end(): void {
    if (this.isEnded) return;
    this.isEnded = true;
    this.deletedAt ??= new Date().toISOString();
    this.serverErrorsLeft = this.deps.faults().endedServerErrors;
    this.deps.producer.delete(this);
    for (const c of [...this.connections]) c.sessionEnded();
  }

  restartService(opts: { sameTelemetrySessionId?: boolean } = {}): void {
    this.assertLive();
    this.epoch++;
    this.seq = 0;
    if (!opts.sameTelemetrySessionId) this.tsid = randomUUID();
    // The templates of the bulk path carry the old process id.
    this.deps.factory.forgetTemplates();
    this.buffer.reset(1);
    // Every open connection sees the epoch change and drops.
    this.notify();
  }

  /** Registers an open stream and sends it what it should see right away. */
  attach(conn: StreamConnection): void {
    this.connections.add(conn);
    conn.pump();
  }

  detach(conn: StreamConnection): void {
    this.connections.delete(conn);
  }

  /** Drops every stream at once (simulator shutdown). */
  destroyStreams(): void {
    for (const c of [...this.connections]) c.destroy();
  }

  /** `generated`: an event of the factory, given the real service's source and truncation rules. */
  private append(event: TelemetryEvent, generated = true): Envelope {
    const seq = ++this.seq;
    if (generated) this.asGenerated(event);
    else if (event.source.metadata?.telemetry_session_id === undefined) {
      event.source = { ...event.source, metadata: { ...event.source.metadata, telemetry_session_id: this.tsid } };
    }
    const envelope: Envelope = { seq, event };
    // Serialised once here; every connection, every replay and the archive read the log's bytes.
    const json = JSON.stringify(envelope);
    // A caller's event may carry any ts (a test's odd one): the archive reads a number.
    const ts = typeof event.ts === 'number' ? event.ts : 0;
    this.log.pushText(formatFrame(seq, generated ? capEnvelope(json) : json), ts, String(event.category));
    this.generated++;
    return envelope;
  }

  /** The real service's source and truncation rules on an event of the factory. */
  private readonly asGenerated = (event: TelemetryEvent): void => {
    normaliseSource(event, this.tsid);
    delete event.truncated;
  };

  private notify(): void {
    for (const c of this.connections) c.pump();
  }

  private assertLive(): void {
    if (this.isEnded) throw new Error(`session ${this.id} has ended`);
  }
}
