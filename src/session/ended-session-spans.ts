// The spans a session still owed when it ended: finished, offered, and not acknowledged by the
// traces endpoint when the bridge stopped (its deadline passed, or the collector has no traces
// pipeline yet). They are in the span state stored with the session's last checkpoint, but an ended
// session is not followed again, so no tap of it would send them: at the next start they are
// offered from the stored state, and once every one has left the queue for good (acknowledged,
// refused, or pushed out by its bound) the state is dropped, so a later start does not send them again.
//
//   stored (ended, unsent spans) → offered → all settled → state dropped
//   (a stop before that: the state stays, and the start after sends them again, the same bytes)
import type { Logger } from 'pino';
import type { SessionRow, Store } from '../store/store.js';
import { decodeSpanState } from '../traces/span-state.js';
import type { SpanSink } from './span-tap.js';

export interface EndedSessionSpansDeps {
  sink: SpanSink;
  store: Pick<Store, 'dropSpanState'>;
  log: Logger;
}

/** Offers the unacknowledged spans of every ended session among `rows`; returns how many. */
export function sendEndedSessionSpans(rows: Iterable<SessionRow>, d: EndedSessionSpansDeps): number {
  let offered = 0;
  for (const row of rows) {
    // An active session's own tap sends its spans; a removed one keeps no state.
    if (row.lifecycle !== 'ended' || row.spans === undefined) continue;
    const id = row.spec.id;
    const drop = (): void => {
      d.store.dropSpanState(id).catch((err: unknown) => {
        // Harmless: the next start sends them again (the same bytes, which backends merge).
        d.log.warn({ session: id, error: (err as Error).message }, "cannot drop an ended session's span state");
      });
    };
    const unsent = decodeSpanState(row.spans)?.unsent ?? [];
    if (unsent.length === 0) {
      drop();
      continue;
    }
    let left = unsent.length;
    d.sink.offer(unsent, {
      settled: () => {
        if (--left === 0) drop();
      },
    });
    offered += unsent.length;
  }
  return offered;
}
