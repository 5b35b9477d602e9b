// The main thread's half of the spans of a session read in an ingest worker (docs/traces.md). The
// worker builds the spans beside its mapper and ships, with each batch of records, the spans it
// finished (encoded) and its builder's open state after the batch's last append (as JSON). Here they
// meet what only this thread knows: which spans the traces endpoint has not acknowledged yet. The
// mirror offers the finished spans to the span export as their owner, and gives the spool the span
// state of the session's checkpoint exactly as a tap on this thread does (session/span-tap.ts): the
// latest open state shipped (a seal runs between two batches, so it is the state after the last
// append sealed) with the unsent spans as they are when the checkpoint is written. The worker
// captures the open state at most every few seconds (session/span-tap.ts): a session's appends in a
// batch that brought no state take UNCAPTURED (store/pending-segments.ts) as their source instead, and the spool does not move
// their checkpoint there.
import { SettleWaiters, type SpanSink } from '../session/span-tap.js';
import type { SpanStateSource } from '../store/pending-segments.js';
import { decodeSpanState, encodeSpanState } from '../traces/span-state.js';

export class SpanMirror {
  private open: string | undefined;
  /** Offered and not yet settled, in offer order. */
  private readonly unsent = new Set<Buffer>();
  private readonly settling = new SettleWaiters(this.unsent);
  private readonly owner = {
    settled: (span: Buffer) => {
      this.unsent.delete(span);
      this.settling.check();
    },
  };

  /** `stored`: the state written with the checkpoint the worker follows the session from. */
  constructor(
    private readonly sink: SpanSink,
    stored: string | undefined,
  ) {
    const restored = decodeSpanState(stored);
    if (!restored) return;
    this.open = JSON.stringify(restored.open);
    // Finished before the restart and never acknowledged: sent again, the same bytes.
    this.offer(restored.unsent);
  }

  /** What a batch brought: the open state after its last append of the session, the spans finished. */
  received(open: string | undefined, finished: readonly Uint8Array[]): void {
    if (open !== undefined) this.open = open;
    if (finished.length > 0) this.offer(finished.map((u) => Buffer.from(u.buffer, u.byteOffset, u.byteLength)));
  }

  /** Resolves once every span offered so far left the export queue for good. */
  settled(): Promise<void> {
    return this.settling.wait();
  }

  /** For the spool's appends: captures the state when the session's batch is sealed. */
  readonly source: SpanStateSource = () => {
    const open = this.open ?? EMPTY_OPEN;
    return () => encodeSpanState(open, this.unsent);
  };

  private offer(spans: readonly Buffer[]): void {
    if (spans.length === 0) return;
    for (const b of spans) this.unsent.add(b);
    this.sink.offer(spans, this.owner);
  }
}

/** Before the worker shipped any state: nothing open. */
const EMPTY_OPEN = '{"v":1,"docs":[],"frames":[],"requests":[],"closed":[]}';
