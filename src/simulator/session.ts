// One simulated browser session and its telemetry (spec: Events; Stream telemetry events).
//
// State machine:
//   live ──end()──▶ ended (final). While live, every generated event takes the next seq, is
//   serialised once into a frame, appended to the bounded replay buffer and offered to every open
//   connection. end() stops production and lets each connection flush what it has not sent, then
//   close; new stream requests for an ended session answer 404 (spec: Errors, rule 2).
//   restartService() keeps the session live but starts a new epoch: seq restarts at 1 and the
//   buffer is emptied, as when the service process restarts and loses its memory.
// produce() is the bulk path: its events mostly reuse the data of recent events with a fresh ts and
// seq (see EventFactory.nextJson), so the benchmark measures the bridge, not the generator.
// Telemetry disabled (or a pool config that captures nothing): emit() generates nothing, the stream
// opens and stays empty (rule 7). emitEvent() and injectMalformed() are explicit test hooks and
// deliver regardless.
import type { Envelope, TelemetryEvent } from '../stream/envelope.js';
import type { EventFactory } from './events/event-factory.js';
import type { Producer } from './producer.js';
import { ReplayBuffer } from './replay-buffer.js';
import { formatFrame } from './sse-format.js';
import type { StreamConnection, StreamSource } from './stream-connection.js';
import type { SimSession } from './types.js';

export interface SessionDeps {
  bufferSize: number;
  factory: EventFactory;
  producer: Producer;
  telemetry: boolean;
  poolId?: string;
}

/** Data of a frame that is not JSON, and of one that is JSON but not an envelope. */
const MALFORMED = {
  json: (seq: number, variant: number): string =>
    [`{"seq":${seq},"event":{"ts":`, `not json at all {{{`, `{"seq":${seq},"event":{"type":"console_log",}}`][variant % 3] as string,
  envelope: (seq: number, variant: number): string =>
    [
      JSON.stringify({ seq, event: 'not an object' }),
      JSON.stringify({ seq, event: { type: 'console_log', category: 'console', source: {}, ts: 'yesterday' } }),
      JSON.stringify([seq, 'array instead of envelope']),
    ][variant % 3] as string,
};

export class Session implements SimSession, StreamSource {
  readonly buffer: ReplayBuffer;
  epoch = 0;
  private seq = 0;
  private generated = 0;
  private isEnded = false;
  private malformedCount = 0;
  private readonly connections = new Set<StreamConnection>();

  constructor(
    readonly id: string,
    private readonly deps: SessionDeps,
  ) {
    this.buffer = new ReplayBuffer(deps.bufferSize);
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
    this.notify();
    return out;
  }

  emitEvent(event: Partial<TelemetryEvent> & { type: string }): Envelope {
    this.assertLive();
    const envelope = this.append(this.deps.factory.complete(event));
    this.notify();
    return envelope;
  }

  injectMalformed(kind: 'json' | 'envelope' = 'json'): number {
    this.assertLive();
    const seq = ++this.seq;
    this.buffer.push(seq, formatFrame(seq, MALFORMED[kind](seq, this.malformedCount++)));
    this.notify();
    return seq;
  }

  produce(ratePerSecond: number, count?: number): void {
    this.assertLive();
    this.deps.producer.set(this, ratePerSecond, count);
  }

  /** Called by the shared producer's timer; no Envelope objects are needed, so frames are built from JSON. */
  produceBatch(count: number): void {
    if (this.isEnded || !this.deps.telemetry) return;
    for (let i = 0; i < count; i++) {
      const eventJson = this.deps.factory.nextJson();
      if (eventJson === undefined) break;
      const seq = ++this.seq;
      // Same text JSON.stringify({ seq, event }) would give.
      this.buffer.push(seq, formatFrame(seq, '{"seq":' + seq + ',"event":' + eventJson + '}'));
      this.generated++;
    }
    this.notify();
  }

  end(): void {
    if (this.isEnded) return;
    this.isEnded = true;
    this.deps.producer.delete(this);
    for (const c of [...this.connections]) c.sessionEnded();
  }

  restartService(): void {
    this.assertLive();
    this.epoch++;
    this.seq = 0;
    this.buffer.reset(1);
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

  private append(event: TelemetryEvent): Envelope {
    const seq = ++this.seq;
    const envelope: Envelope = { seq, event };
    // Serialised once here; every connection and every replay reuses the frame string.
    this.buffer.push(seq, formatFrame(seq, JSON.stringify(envelope)));
    this.generated++;
    return envelope;
  }

  private notify(): void {
    for (const c of this.connections) c.pump();
  }

  private assertLive(): void {
    if (this.isEnded) throw new Error(`session ${this.id} has ended`);
  }
}
