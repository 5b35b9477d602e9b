// The worker's side of the spool: Spool.append, full and waitForRoom as the sessions in a worker
// see them. Appends are packed into a batch (protocol.ts) that is posted once per turn of the event
// loop, or sooner when it grows large; the main thread appends its records to the real spool.
//
// Records are encoded straight into the batch (encode()): the view it returns is what the session
// appends, so a record is written once, where it travels, with no buffer of its own.
//
// Spans (traces on): a session's tap hands its finished spans to offerSpans(), and its append
// passes the source of its span state; both travel with the batch (protocol.ts BatchSpans), the
// state taken when the batch is posted, which is after the session's last append in it. The tap
// captures it at most every few seconds (session/span-tap.ts): a batch without one says that the
// session's appends in it end at a position with no state (the checkpoint does not move there).
//
// Back-pressure: the main thread acknowledges a batch only once the spool has room for more, so
// the bytes posted but not acknowledged are bounded: at `limit` the outbox is full and the sessions
// stop reading, exactly as they do for a full spool in one thread.
import type { BridgeLogRecord } from '../vocabulary/log-record.js';
import { writeFramedRecord } from '../wire/encode-record.js';
import { ProtoWriter } from '../wire/proto-writer.js';
import type { RecordToAppend, SpanStateSource } from '../store/pending-segments.js';
import type { BatchSpans, FromWorker } from './protocol.js';
import { META_FIELDS } from './protocol.js';

/** A batch is posted at once when its records reach this size: bounded copies, steady flow. */
const FLUSH_BYTES = 256 * 1024;
/** A batch's buffer starts at least this large (above Node's pool slices, so it can be transferred). */
const MIN_BATCH_BYTES = 16 * 1024;

export class Outbox {
  private meta: number[] = [];
  /** The batch's record bytes: [0, appended) belong to appended records, in order. */
  private w = new ProtoWriter(MIN_BATCH_BYTES);
  private appended = 0;
  private sourceIds: string[] = [];
  private sourceIndex = new Map<string, number>();
  private scheduled = false;
  private unacked = 0;
  /**
   * While full: the one promise every session held by it waits on (a thousand sessions may be held
   * at once, one or two times a second at full rate: a promise each was a cost per hold).
   */
  private room: { wait: Promise<void>; open: () => void } | undefined;
  private readonly handles = new Map<string, number>();
  /**
   * The source id last sent for each handle: an append repeats it only when it changed. The spool
   * keeps a session's source id until a new one comes, so "none" is the same as "unchanged"; and
   * the main thread need not read a thousand copies of the same ids in every batch.
   */
  private readonly sentSource = new Map<number, string>();
  /** Per handle appended in this batch: its span state's source (a worker's tap gives the open state's JSON). */
  private spanStates = new Map<number, SpanStateSource>();
  /** Per handle: spans finished since the last batch. */
  private finished = new Map<number, Buffer[]>();
  private finishedBytes = 0;

  constructor(
    private readonly post: (msg: FromWorker, transfer: ArrayBuffer[]) => void,
    private readonly limit: number,
  ) {}

  /** Appends of `sessionId` are sent under handle `h`. */
  bind(sessionId: string, h: number): void {
    this.handles.set(sessionId, h);
  }

  unbind(sessionId: string): void {
    const h = this.handles.get(sessionId);
    if (h !== undefined) this.sentSource.delete(h);
    this.handles.delete(sessionId);
  }

  /** Spool.append as a worker's session sees it: packed into the batch (the entry is not kept). */
  append(a: RecordToAppend): void {
    const { sessionId, seq, epoch, tsMicros, record, sourceId, spans } = a;
    const h = this.handles.get(sessionId);
    if (h === undefined) throw new Error(`append for a session this worker does not follow: ${sessionId}`);
    if (spans !== undefined) this.spanStates.set(h, spans);
    let s = -1;
    if (sourceId !== undefined && this.sentSource.get(h) !== sourceId) {
      this.sentSource.set(h, sourceId);
      s = this.sourceIndex.get(sourceId) ?? -1;
      if (s < 0) {
        s = this.sourceIds.push(sourceId) - 1;
        this.sourceIndex.set(sourceId, s);
      }
    }
    this.meta.push(h, seq, epoch, tsMicros, record ? record.length : -1, s);
    if (record) {
      // The record encode() just returned sits at `appended` already; anything else is copied in.
      const w = this.w;
      if (record.buffer !== w.buf.buffer || record.byteOffset !== w.buf.byteOffset + this.appended) {
        w.pos = this.appended;
        w.raw(record);
      }
      this.appended += record.length;
    }
    this.schedule();
  }

  /** Spans a session's tap finished: they go with the next batch. */
  offerSpans(sessionId: string, spans: readonly Buffer[]): void {
    const h = this.handles.get(sessionId);
    if (h === undefined || spans.length === 0) return;
    const list = this.finished.get(h);
    if (list) list.push(...spans);
    else this.finished.set(h, [...spans]);
    for (const b of spans) this.finishedBytes += b.length;
    this.schedule();
  }

  private schedule(): void {
    if (this.appended + this.finishedBytes >= FLUSH_BYTES) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Encodes a record into the batch; valid until the next encode() or flush(): append it at once. */
  encode(record: BridgeLogRecord): Buffer {
    const w = this.w;
    // Bytes of a record encoded and never appended (its append threw) are written over.
    w.pos = this.appended;
    writeFramedRecord(w, record);
    return w.buf.subarray(this.appended, w.pos);
  }

  get full(): boolean {
    return this.unacked >= this.limit;
  }

  waitForRoom(): Promise<void> {
    if (!this.full) return Promise.resolve();
    if (!this.room) {
      let open!: () => void;
      const wait = new Promise<void>((resolve) => (open = resolve));
      this.room = { wait, open };
    }
    return this.room.wait;
  }

  /** Posts what was appended; call before any message that must come after it (stopped, ended). */
  flush(): void {
    this.scheduled = false;
    if (this.meta.length === 0 && this.finished.size === 0) return;
    const spans = this.takeSpans();
    const meta = Float64Array.from(this.meta);
    // The writer's buffer is its own ArrayBuffer (never a slice of Node's pool: it is larger than
    // the pool's slices), so it is transferred, not copied; the next batch gets a new one. Cut to
    // the bytes appended first (a reallocation in place): the main thread's V8 counts every byte
    // it receives against its old generation's limit, and a batch's buffer is sized for the last
    // one, so on average a fifth of it was room no record used.
    const bytes = new Uint8Array((this.w.buf.buffer as ArrayBuffer).transfer(this.appended));
    const size = this.appended + meta.byteLength + this.finishedBytes;
    this.finishedBytes = 0;
    const sourceIds = this.sourceIds;
    this.meta = [];
    // Sized for a batch like this one: a busy worker's batches need no growing, a quiet one's stay small.
    this.w = new ProtoWriter(
      Math.max(MIN_BATCH_BYTES, Math.min(FLUSH_BYTES + 64 * 1024, Math.ceil(this.appended * 1.25))),
    );
    this.appended = 0;
    this.sourceIds = [];
    this.sourceIndex.clear();
    this.unacked += size;
    const msg: FromWorker = { t: 'batch', meta, bytes, sourceIds, size };
    if (spans !== undefined) msg.spans = spans;
    this.post(msg, [meta.buffer, bytes.buffer]);
  }

  /** The batch's spans: per session, its open state after its last append (when it has one) and its finished spans. */
  private takeSpans(): BatchSpans[] | undefined {
    if (this.finished.size === 0 && this.spanStates.size === 0) return undefined;
    const out = new Map<number, BatchSpans>();
    for (const [h, source] of this.spanStates) {
      const state = source();
      if (state !== undefined) out.set(h, { h, open: state(), finished: [] });
    }
    for (const [h, spans] of this.finished) {
      const e = out.get(h);
      if (e) e.finished = spans;
      else out.set(h, { h, finished: spans });
    }
    this.spanStates = new Map();
    this.finished = new Map();
    return [...out.values()];
  }

  /** The main thread took `bytes` worth of batches into the spool. */
  acked(bytes: number): void {
    this.unacked -= bytes;
    if (this.full || !this.room) return;
    const { open } = this.room;
    this.room = undefined;
    open();
  }
}

/**
 * Reads a packed batch back: calls `each` per append with the handle it was sent under and the
 * append, records as views into `bytes` (no copy). The append is one object refilled for every call
 * (no allocation per record): `each` uses it at once, keeping only its fields; its `sessionId` is
 * left to `each` to fill, as the batch knows only handles.
 */
export function unpackBatch(
  meta: Float64Array,
  bytes: Uint8Array,
  sourceIds: readonly string[],
  each: (h: number, append: RecordToAppend) => void,
): void {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const a: RecordToAppend = { sessionId: '', seq: 0, epoch: 0, tsMicros: 0, record: null, sourceId: undefined };
  let off = 0;
  for (let i = 0; i < meta.length; i += META_FIELDS) {
    const len = meta[i + 4]!;
    let record: Buffer | null = null;
    if (len >= 0) {
      record = buf.subarray(off, off + len);
      off += len;
    }
    const s = meta[i + 5]!;
    a.seq = meta[i + 1]!;
    a.epoch = meta[i + 2]!;
    a.tsMicros = meta[i + 3]!;
    a.record = record;
    a.sourceId = s < 0 ? undefined : sourceIds[s];
    each(meta[i]!, a);
  }
}
