// The one wait that stands for every batch of spans answered "later" (span-export.ts): while it
// stands no request starts, and when it ends the exporter is told to send again.
//
// A wait is of one of three kinds, which say what may end it before its end:
// - `backoff`: the bridge's own exponential backoff after a failure. A success ends it (a request
//   still out when another failed may come back accepted: the collector is healthy), and so does
//   shutdown (one more try within the grace period).
// - `pipeline`: the wait for a traces pipeline after a 404 / UNIMPLEMENTED (`traces.unsupported_retry`).
//   A success ends it (the collector takes spans now); shutdown does not.
// - `retry_after`: the quiet the collector asked for. Nothing ends it early.
//
// Several requests may come back "later" while one wait stands: it then stands for all of them,
// lasts as long as the longest of them asked (ending with a shorter backoff would send into the
// quiet a Retry-After asked for), and a success ends it only if it would have ended each of them.
import { steadyNow } from '../util/steady-clock.js';

export type SpanWaitKind = 'backoff' | 'pipeline' | 'retry_after';

export interface SpanWait {
  /** Whether a wait stands (no request starts while one does). */
  readonly standing: boolean;
  /** A batch answered "later": wait `ms` for it, or join the wait that stands. */
  start(ms: number, kind: SpanWaitKind): void;
  /** A request succeeded: ends a backoff, or a wait for a pipeline, that stands for nothing else. */
  succeeded(): void;
  /** Shutdown: ends a backoff of the bridge's own; a Retry-After or the wait for a pipeline holds. */
  endBackoff(): void;
  /** Drops the wait without telling (shutdown's end). */
  cancel(): void;
}

interface Standing {
  end: number;
  /** What ends it before `end`: a success (backoff, pipeline), shutdown (backoff only). */
  kind: SpanWaitKind;
  cancel: () => void;
}

/** `schedule` returns a cancel function; `ended` is called when a wait runs out (not when ended early). */
export function createSpanWait(
  schedule: (fn: () => void, ms: number) => () => void,
  ended: () => void,
  now: () => number = steadyNow,
): SpanWait {
  let standing: Standing | undefined;

  function endIf(kinds: readonly SpanWaitKind[]): void {
    if (standing === undefined || !kinds.includes(standing.kind)) return;
    standing.cancel();
    standing = undefined;
  }

  return {
    get standing() {
      return standing !== undefined;
    },
    start(ms, kind) {
      const end = now() + ms;
      if (standing !== undefined) {
        // A backoff joining any wait: the one standing is at least as strict.
        if (kind === 'backoff') return;
        // A success ends the joined wait only if it would end each part: a pipeline wait joined
        // with a backoff or another pipeline wait; never one with a Retry-After in it.
        const joined: SpanWaitKind =
          kind === 'pipeline' && standing.kind !== 'retry_after' ? 'pipeline' : 'retry_after';
        standing.kind = joined;
        if (end <= standing.end) return;
        standing.cancel();
        kind = joined;
      }
      standing = {
        end,
        kind,
        cancel: schedule(() => {
          standing = undefined;
          ended();
        }, ms),
      };
    },
    succeeded() {
      endIf(['backoff', 'pipeline']);
    },
    endBackoff() {
      endIf(['backoff']);
    },
    cancel() {
      standing?.cancel();
      standing = undefined;
    },
  };
}
