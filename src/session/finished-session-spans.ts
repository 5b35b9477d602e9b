// The spans a session still owed when it ended or was removed for good. An ended or removed session
// is not followed again, so no tap of it sends them: they are offered from the span state stored
// with its last checkpoint, and once every one has left the queue for good (acknowledged, refused,
// or pushed out by its bound) the state is dropped, so a later start does not send them again.
//
// What the state holds:
// - the spans finished and not acknowledged when the bridge stopped (its deadline passed, or the
//   collector has no traces pipeline yet): the session's end or removal closed its open spans with
//   its tap and wrote the state once more with them (session-records.ts capture);
// - spans still open, when the session was removed without a tap reading it (unlisted from the
//   configuration while the bridge was down, removed while waiting for room, or while no replica
//   owned it): they are closed here as the tap would have closed them at that checkpoint, marked
//   `session_removed` (`session_end` for an ended one), so they are the same bytes every time.
//
//   stored (ended or removed, owed spans) → offered → all settled → state dropped
//   (a stop before that: the state stays, and the start after sends them again, the same bytes)
//
// Who offers them: the embedded store's one process, at its start (and for a session removed
// while it waited for room). With the shared store one replica at a time, the one holding the row's
// claim, taken after its lease was renewed and lost when that lease runs out (store/pg-owed-spans.ts):
// replicas starting together no longer send them once each.
import type { Logger } from 'pino';
import type { SessionRow, Store } from '../store/store.js';
import { createSpanBuilder } from '../traces/span-builder.js';
import { decodeSpanState } from '../traces/span-state.js';
import { createSpanEncoder } from '../wire/encode-span.js';
import type { SpanSink } from './span-tap.js';

export interface FinishedSessionSpansDeps {
  sink: SpanSink;
  store: Pick<Store, 'dropSpanState'>;
  log: Logger;
  /** Told when this is done with a row: its state dropped, or not (a failed drop, nothing to send). */
  done?: (sessionId: string) => void;
}

/** Offers the spans every ended or removed session among `rows` still owes; returns how many. */
export function sendFinishedSessionSpans(rows: Iterable<SessionRow>, d: FinishedSessionSpansDeps): number {
  let offered = 0;
  let encode: ReturnType<typeof createSpanEncoder> | undefined;
  for (const row of rows) {
    // An active session's own tap sends its spans.
    if (row.lifecycle === 'active' || row.spans === undefined) {
      d.done?.(row.spec.id);
      continue;
    }
    const id = row.spec.id;
    const drop = (): void => {
      d.store.dropSpanState(id).then(
        () => d.done?.(id),
        (err: unknown) => {
          // Harmless: they are sent again (the same bytes, which backends merge).
          d.log.warn({ session: id, error: (err as Error).message }, "cannot drop a finished session's span state");
          d.done?.(id);
        },
      );
    };
    const state = decodeSpanState(row.spans);
    const owed = state?.unsent ?? [];
    if (state) {
      const closed = createSpanBuilder(id, state.open).end(
        row.lifecycle === 'removed' ? 'session_removed' : 'session_end',
      );
      if (closed.length > 0) {
        encode ??= createSpanEncoder();
        for (const span of closed) owed.push(encode(span));
      }
    }
    if (owed.length === 0) {
      drop();
      continue;
    }
    let left = owed.length;
    d.sink.offer(owed, {
      settled: () => {
        if (--left === 0) drop();
      },
    });
    offered += owed.length;
  }
  return offered;
}
