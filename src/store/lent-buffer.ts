// A buffer lent by the producer of the records in it (an ingest worker's batch, ingest/outbox.ts)
// and given back for reuse once nothing on this thread reads it any more. Each holder of a view
// into it borrows (pending-segments.ts: one per record it keeps) and releases when it lets go of
// its views for good: a segment's payload once the segment is delivered or spilled, a record once
// it was copied into a joined segment. The producer gets the buffer back when the count returns to
// zero, so a holder that never releases (a session given up, a segment dropped, a commit that
// failed and was put back) only keeps the buffer from being reused: it is then collected like any
// other. A release must never come early, since the producer writes new records over the bytes.
//
// Why: every batch was a fresh ArrayBuffer, and on this thread the bytes of buffers arriving count
// towards V8's limit for a full collection (docs/benchmarks.md "Batches back to the worker").

export class LentBuffer {
  /** Views borrowed and not released, plus one for the producer's own hand-over until done(). */
  private out = 1;

  constructor(private readonly giveBack: () => void) {}

  /** A holder keeps `n` more views into the buffer. */
  borrow(n = 1): void {
    this.out += n;
  }

  /** A holder let go of `n` views for good. */
  release(n = 1): void {
    this.out -= n;
    if (this.out === 0) this.giveBack();
  }

  /** Whoever handed the buffer over is done with it (every holder that wanted views borrowed them). */
  done(): void {
    this.release();
  }
}

/**
 * Views into one lent buffer that one holder keeps together (a session's adjacent records); its
 * release() lets go of all of them, once however often it is called, so copies of a segment that
 * carry the same loan cannot release it twice.
 */
export class Loan {
  constructor(
    readonly lent: LentBuffer,
    public views = 0,
  ) {}

  release(): void {
    const n = this.views;
    if (n === 0) return;
    this.views = 0;
    this.lent.release(n);
  }
}
