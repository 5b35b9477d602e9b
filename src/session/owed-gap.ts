// A gap the archive could not repair because it could not be read (5xx, timeouts, the service
// paused or overloaded: the reader's three tries spent), not because it lacks the events. The
// archive keeps a session's events about 30 days, so one failed read is no proof of loss: the gap is
// owed, read again with backoff, and recorded as lost only when the archive stayed unreadable for
// `upstream.archive_retry` (OWED_FOR_MS by default; 0: recorded at once, the session never waits).
//
//   read ──ok──▶ repaired (what the archive lacks stays a gap item, as in gap-repair.ts)
//    │ ──absent (no archive, 404), or an answer that cannot be used──▶ given up at once
//    └──failed──▶ owed: wait (jittered, 2 s doubling to 1 min) ──▶ read ...
//                 ──OWED_FOR_MS since the first failure──▶ given up: the gap record, its reason unchanged
//                 ──stopped (shutdown, DELETE, a move)──▶ nothing
//
// Why the stream waits meanwhile, rather than the gap waiting aside: the session's checkpoint moves
// only over what is delivered or durably spooled, and nothing after the gap is, so a crash or a
// stop while the gap is owed resumes from before it; the service replays it, the gap is found
// again and repaired or recorded, never silently skipped (docs/design.md "Delivery semantics",
// gap-free resume). Holding the stream bounds the owed gaps to one per session without another
// store table; what the service evicts meanwhile is a later gap, repaired the same way once the
// archive answers. The stream's idle watchdog does not count the wait (stream/connection-reader.ts).
import { backoffDelay, type BackoffPolicy } from '../util/backoff.js';
import { steadyNow } from '../util/steady-clock.js';
import type { ArchiveReader } from '../upstream/archive.js';
import type { GapItem } from '../stream/sequenced-stream.js';
import { repairGap, type RepairResult } from './gap-repair.js';

/**
 * How long a gap is owed before it is recorded as lost. The archive keeps events ~30 days, but the
 * session's live records wait as long as the gap is owed, and the service's ring buffer (8,192
 * events) moves on meanwhile: a wait of minutes would make the next gap itself (at 100 events/s
 * the buffer holds 82 s), so a long archive outage would let the session's records through only in
 * jumps of this length. A minute covers a hiccup (503s, a paused or restarted service) and keeps
 * the session live through an outage; a longer one is for a deployment that prefers completeness.
 */
export const OWED_FOR_MS = 60_000;
/** Waits between reads of an owed gap. */
export const OWED_BACKOFF: BackoffPolicy = { initialMs: 2_000, maxMs: 60_000 };

export interface OwedGapOptions {
  signal?: AbortSignal;
  /** The first read failed: the gap is owed from now on (a fact: the log line says so). */
  owed?: (detail: string, forMs: number) => void;
  forMs?: number;
  backoff?: BackoffPolicy;
  /** Injected in tests: the clock the window is measured on and the wait between reads. */
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

/** Repairs `gap`, reading the archive again while it fails, for at most `forMs` (OWED_FOR_MS). */
export async function repairOwedGap(
  archive: ArchiveReader,
  sessionId: string,
  gap: GapItem,
  o: OwedGapOptions = {},
): Promise<RepairResult> {
  const now = o.now ?? steadyNow;
  const sleep = o.sleep ?? abortableSleep;
  const forMs = o.forMs ?? OWED_FOR_MS;
  let since: number | undefined;
  for (let attempt = 0; ; attempt++) {
    const r = await repairGap(archive, sessionId, gap, o.signal);
    // forMs 0: reported at once, the session never waits.
    if (!r.readFailed || o.signal?.aborted || forMs <= 0) return r;
    since ??= now();
    if (attempt === 0) o.owed?.(r.unavailable ?? '', forMs);
    const left = since + forMs - now();
    if (left <= 0) return { ...r, unavailable: `${r.unavailable ?? ''} (owed for ${Math.round(forMs / 1000)} s)` };
    await sleep(Math.min(left, backoffDelay(o.backoff ?? OWED_BACKOFF, attempt)), o.signal);
    if (o.signal?.aborted) return r;
  }
}

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
