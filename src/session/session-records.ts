// A session's items becoming spooled records: an event is mapped, shown to the span tap, encoded
// and appended; a gap becomes a gap record; an event the mapper fails on becomes a gap of its own.
// Apart from the pipeline (session-pipeline.ts), which decides when items are applied (in seq
// order, around archive repairs and a full spool), because this is the per-event path and is kept
// synchronous and allocation-light: map, encode, append, with one append object per session,
// refilled for every event (the spool reads it during the call and keeps only its fields).
import { gapRecord } from '../mapping/gap-record.js';
import type { Mapper } from '../mapping/mapper.js';
import type { RecordToAppend, SpanStateSource } from '../store/pending-segments.js';
import type { Spool } from '../store/spool.js';
import type { GapItem } from '../stream/sequenced-stream.js';
import type { Envelope } from '../upstream/envelope.js';
import type { Fact } from '../vocabulary/facts.js';
import type { SessionContext } from '../vocabulary/log-record.js';
import type { RecordEncoder } from '../wire/encode-record.js';
import type { SpanTap } from './span-tap.js';

export interface SessionRecordsDeps {
  mapper: Mapper;
  encode: RecordEncoder;
  spool: Pick<Spool, 'append'>;
  /** The session's span tap (traces on). */
  spans: SpanTap | undefined;
  /** The session's facts: its status moves by them, then the process's metrics and log see them. */
  emit(fact: Fact): void;
}

export class SessionRecords {
  /** The one append this session passes to the spool, refilled for every event. */
  private readonly next: RecordToAppend;
  /** Captures the span state when the spool seals a batch of this session (traces on). */
  private readonly spanState: SpanStateSource | undefined;
  /** An event or a gap was appended (a position a span state may be captured at). */
  private appended = false;

  /**
   * `ctx` is the session's own: the pipeline moves its epoch and attributes, records read them.
   * `stored` is the checkpoint the session was read from (its position until it appends).
   */
  constructor(
    private readonly ctx: SessionContext,
    private readonly d: SessionRecordsDeps,
    stored: { checkpoint: number; epoch: number },
  ) {
    const tap = d.spans;
    this.spanState = tap && (() => tap.checkpoint());
    const { checkpoint: seq, epoch } = stored;
    this.next = { sessionId: ctx.sessionId, seq, epoch, tsMicros: 0, record: null, sourceId: undefined };
  }

  /**
   * `sourceId` is the event's own, not the stream's current one: events of an earlier epoch read
   * from the archive are applied after the stream already saw the next epoch's id, and a commit in
   * between must not save their checkpoint under the new epoch's source.
   */
  event(env: Envelope, sourceId: string | undefined, observedMicros: number): void {
    let record;
    let bytes: Buffer | null = null;
    try {
      record = this.d.mapper.map(env, this.ctx, observedMicros);
      this.d.spans?.observe(env, record);
      if (record !== null) bytes = this.d.encode(record);
    } catch (err) {
      // A mapping bug must not stop the session or lose the event silently: it becomes a gap.
      this.d.emit({
        f: 'mapping_failed',
        session: this.ctx.sessionId,
        seq: env.seq,
        type: env.event.type,
        error: (err as Error).message,
      });
      this.gap(
        {
          kind: 'gap',
          first: env.seq,
          last: env.seq,
          reason: 'mapping_error',
          epoch: this.ctx.epoch,
          nearTsMicros: env.event.ts,
        },
        observedMicros,
      );
      return;
    }
    // The mapper returns null only for an event the filters exclude; it still advances the checkpoint.
    if (record === null)
      this.d.emit({
        f: 'event_filtered',
        session: this.ctx.sessionId,
        type: env.event.type,
        category: env.event.category,
        count: 1,
      });
    const a = this.next;
    a.seq = env.seq;
    a.epoch = this.ctx.epoch;
    a.tsMicros = env.event.ts;
    a.record = bytes;
    a.sourceId = sourceId;
    a.spans = this.spanState;
    this.appended = true;
    this.append(a);
  }

  gap(g: GapItem, observedMicros: number): void {
    const ts = g.nearTsMicros ?? observedMicros;
    const ctx = g.epoch === this.ctx.epoch ? this.ctx : { ...this.ctx, epoch: g.epoch };
    const a = this.next;
    a.seq = g.last ?? g.first;
    a.epoch = g.epoch;
    a.tsMicros = ts;
    a.record = this.d.encode(gapRecord(ctx, g.first, g.last, ts, observedMicros, g.reason));
    a.sourceId = g.sourceId;
    a.spans = this.spanState;
    this.appended = true;
    this.append(a);
    const session = this.ctx.sessionId;
    if (g.last === undefined) this.d.emit({ f: 'tail_unknown', session, epoch: g.epoch, afterSeq: g.first - 1 });
    else this.d.emit({ f: 'gap_recorded', session, first: g.first, last: g.last, reason: g.reason });
  }

  /**
   * The session stops, ends or is removed (traces on): its span state is captured at the position of
   * its last append, by a checkpoint-only append there, so that its checkpoint can move to the end of
   * what it read (the tap captures at most every few seconds otherwise, session/span-tap.ts).
   *
   * `closed`: the stream ended, or the session was removed for good, and the tap closed the spans
   * still open, so the state is written even when this run appended nothing (the ledger writes a
   * move to the same position that carries a state). The spans it closed are then stored until the
   * traces endpoint acknowledges them; without it, a session that ended or was removed idle offered
   * them after its last state, and a stop before they were sent lost them: such a session is not
   * read again (session/finished-session-spans.ts sends them).
   */
  capture(closed = false): void {
    const tap = this.d.spans;
    if (tap === undefined || (!this.appended && !closed)) return;
    tap.captureNext();
    const a = this.next;
    a.record = null;
    a.sourceId = undefined;
    a.spans = this.spanState;
    this.append(a);
  }

  /** `start: latest`'s baseline: the checkpoint alone moves to the archive's newest event. */
  baseline(seq: number, tsMicros: number): void {
    const a = this.next;
    a.seq = seq;
    a.epoch = this.ctx.epoch;
    a.tsMicros = tsMicros;
    a.record = null;
    a.sourceId = undefined;
    a.spans = undefined;
    this.append(a);
  }

  private append(a: RecordToAppend): void {
    this.d.spool.append(a);
    // Not kept alive until the session's next event: the spool holds its own reference while it needs it.
    a.record = null;
  }
}
