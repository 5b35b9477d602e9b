// The seam between one session's path and its spans (docs/traces.md): the pipeline shows the tap
// every event with its mapped record, the tap points the record at its span (trace_id, span_id) and
// hands the spans it completes, encoded, to a sink (export/span-export.ts). Spans never wait for
// records nor records for spans: offer() only queues.
//
// The tap also keeps what a restart needs (traces/span-state.ts): the spans it offered that the
// sink has not settled yet, and, when a batch of the session is sealed, the builder's open state at
// that point. Both are written with the batch's checkpoint, and a tap made from that stored state
// sends the unsettled spans again and continues the open ones: after a kill -9 the spans are the
// same, byte for byte, as if nothing had happened.
//
// Capturing the open state costs a serialization and, once written, a row of the store, and every
// session's state changes between two batches: so the tap captures it once per `captureEveryMs`
// (`traces.state_interval`, default SPAN_CAPTURE_INTERVAL_MS), and a large state less often still
// (captureWaitMs, a whole number of intervals), at the first batch sealed after a line of its
// session's phase (traces/capture-phase.ts): the sessions of one phase are captured together, so
// their states go to the store in the same checkpoint write, where they share pages (the first
// capture, at a session's first batch, is off its lines; the next comes at its next line). A batch
// sealed in between carries no state, and the spool does not move the session's checkpoint to it
// (store/ledger.ts): the checkpoint moves only to captured positions. A session that stops or ends
// is captured at its last position (SessionRecords.capture()), so a graceful restart reads nothing
// twice; a kill -9 reads again at most that wait more of each session than without traces.
import type { Envelope } from '../upstream/envelope.js';
import type { BridgeLogRecord } from '../vocabulary/log-record.js';
import { createSpanBuilder } from '../traces/span-builder.js';
import type { EndReason } from '../traces/span-shapes.js';
import { decodeSpanState, encodeSpanState } from '../traces/span-state.js';
import { capturePhase, CAPTURE_PHASES } from '../traces/capture-phase.js';
import { createSpanEncoder } from '../wire/encode-span.js';
import type { BridgeSpan } from '../vocabulary/span.js';
import type { SpanStateWriter } from '../store/store.js';

/** Where encoded spans go; `owner` is told when each leaves for good (acknowledged or dropped). */
export interface SpanSink {
  offer(spans: readonly Buffer[], owner?: { settled(span: Buffer): void }): void;
}

/** How a session stops producing spans: its stream ended, or it was removed for good. */
export type SpanEnd = Extract<EndReason, 'session_end' | 'session_removed'>;

export interface SpanTap {
  /** Before the record is encoded: sets its trace_id and span_id when the event belongs to a span. */
  observe(envelope: Envelope, record: BridgeLogRecord | null): void;
  /** The session ended or was removed: open spans are flushed with that end marker. */
  end(reason?: SpanEnd): void;
  /**
   * A batch is sealed: the state at this point, serialized when its checkpoint is written; undefined
   * when the last capture is more recent than the interval (the checkpoint may not move here).
   */
  checkpoint(): SpanStateWriter | undefined;
  /** The next checkpoint() captures whatever the interval (the session stops or ends). */
  captureNext(): void;
  /**
   * Resolves once every span offered so far left the export queue for good (acknowledged, refused
   * or pushed out); at once in an ingest worker, whose spans the main thread's mirror carries.
   */
  settled(): Promise<void>;
}

/** Makes the tap of one session, from the span state stored with its checkpoint when there is one. */
export type SpanTapFactory = (sessionId: string, stored?: string) => SpanTap;

/**
 * A session's open span state is captured once per this interval. Its durable checkpoint then moves
 * once per this interval with traces on, so a kill -9 reads again up to this much more of each session
 * (docs/design.md "Delivery semantics"); in exchange the state is serialized and written about five
 * times less than once per checkpoint write (CHECKPOINT_INTERVAL_MS).
 */
export const SPAN_CAPTURE_INTERVAL_MS = 5000;

/**
 * A session's open state grows with its open pages (each with up to MAX_EVENTS_PER_SPAN span
 * events) and open requests, to a few hundred KiB for a long session with many tabs, and every
 * capture serializes, copies, compresses and writes all of it: at 1,000 such sessions a capture
 * every 5 s was more than the main thread's whole time. So a large state is captured less often:
 * at most this many characters of state a second per session (a 20 KiB state every 5 s, 200 KiB
 * every 50 s), never less often than STATE_WAIT_MAX_MS.
 */
export const STATE_CHARS_PER_SECOND = 4096;
/** The longest wait between two captures that the state's size may set (a configured longer interval wins). */
export const STATE_WAIT_MAX_MS = 60_000;

/**
 * How long after a capture whose open state was `stateChars` long the next one waits: the
 * configured interval, longer for a large state (STATE_CHARS_PER_SECOND). 0 stays 0 (every batch).
 * A whole number of intervals, so that a longer wait still ends on a line of the session's phase.
 */
export function captureWaitMs(intervalMs: number, stateChars: number): number {
  if (intervalMs === 0) return 0;
  const bySize = Math.min((stateChars * 1000) / STATE_CHARS_PER_SECOND, STATE_WAIT_MAX_MS);
  const most = Math.max(1, Math.floor(STATE_WAIT_MAX_MS / intervalMs));
  return Math.min(Math.max(1, Math.ceil(bySize / intervalMs)), most) * intervalMs;
}

/** How far the lines of `sessionId`'s phase are shifted: the phase's share of `intervalMs`. */
function phaseShiftMs(sessionId: string, intervalMs: number): number {
  return (capturePhase(sessionId) * intervalMs) / CAPTURE_PHASES;
}

/**
 * The line of a session's phase at or before `t` (ms), counted in waits of `waitMs`: the lines of
 * one phase are an interval apart, shifted by `shiftMs` (phaseShiftMs), and a wait of a whole
 * number of intervals ends on one of them. A capture is due once the line moved on.
 */
export function captureLine(shiftMs: number, waitMs: number, t: number): number {
  return Math.floor((t - shiftMs) / waitMs);
}

export interface SpanTapOptions {
  /** false in an ingest worker (see spanTapFactory). */
  carry?: boolean;
  /** At most this often a state is captured (SPAN_CAPTURE_INTERVAL_MS); 0 captures at every batch. */
  captureEveryMs?: number;
  /**
   * The clock the interval is measured on (ms). The default is the same in every thread (the
   * sessions of one phase are captured together whichever thread reads them) and never steps back.
   */
  now?: () => number;
}

/**
 * `carry: false` is a tap in an ingest worker: the main thread sends the spans, so it carries the
 * unsent ones (ingest/span-mirror.ts) and resends the stored ones; the worker's checkpoint() then
 * gives the open state's JSON only, which the mirror wraps.
 */
export function spanTapFactory(
  sink: SpanSink,
  {
    carry = true,
    captureEveryMs = SPAN_CAPTURE_INTERVAL_MS,
    now = () => performance.timeOrigin + performance.now(),
  }: SpanTapOptions = {},
): SpanTapFactory {
  const encode = createSpanEncoder();
  return (sessionId, stored) => {
    // The first batch is captured: a session followed anew has a checkpoint within one batch.
    let capturedLine = Number.NEGATIVE_INFINITY;
    let waitMs = captureEveryMs;
    let force = false;
    // Hashed once: checkpoint() asks for the line at every batch sealed.
    const shiftMs = phaseShiftMs(sessionId, captureEveryMs);
    const restored = decodeSpanState(stored);
    const builder = createSpanBuilder(sessionId, restored?.open);
    // Offered and not yet settled, in offer order (a Set keeps insertion order).
    const unsent = new Set<Buffer>();
    const settling = new SettleWaiters(unsent);
    const owner = {
      settled: (span: Buffer) => {
        unsent.delete(span);
        settling.check();
      },
    };
    const send = (encoded: readonly Buffer[]): void => {
      if (encoded.length === 0) return;
      if (!carry) return sink.offer(encoded);
      for (const b of encoded) unsent.add(b);
      sink.offer(encoded, owner);
    };
    const offer = (spans: readonly BridgeSpan[]): void => {
      if (spans.length > 0) send(spans.map(encode));
    };
    // Finished before the crash and never acknowledged: sent again, the same bytes.
    if (restored && carry) send(restored.unsent);
    return {
      observe(envelope, record) {
        const { ref, finished } = builder.observe(envelope, record);
        if (ref !== undefined && record !== null) {
          record.traceId = ref.traceId;
          record.spanId = ref.spanId;
        }
        offer(finished);
      },
      end: (reason = 'session_end') => offer(builder.end(reason)),
      checkpoint() {
        const t = now();
        if (!force && waitMs > 0 && captureLine(shiftMs, waitMs, t) === capturedLine) return undefined;
        force = false;
        const open = builder.snapshotJson();
        waitMs = captureWaitMs(captureEveryMs, open.length);
        capturedLine = waitMs > 0 ? captureLine(shiftMs, waitMs, t) : 0;
        if (!carry) return () => open;
        // The unsent spans as they are when the checkpoint is written: a superset of those finished
        // up to it and not acknowledged, which is what must not be lost.
        return () => encodeSpanState(open, unsent);
      },
      captureNext() {
        force = true;
      },
      settled: () => settling.wait(),
    };
  };
}

/** Promises that resolve once a set of spans in flight is empty (a session's end waits for them). */
export class SettleWaiters {
  private waiters: Array<() => void> = [];

  constructor(private readonly unsent: ReadonlySet<unknown>) {}

  wait(): Promise<void> {
    if (this.unsent.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** After a span settled: wakes the waiters once none is left. */
  check(): void {
    if (this.unsent.size > 0 || this.waiters.length === 0) return;
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  }
}
