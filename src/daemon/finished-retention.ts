// The retention of finished sessions while the bridge runs. A store deletes the rows of sessions
// that ended or were removed more than PRUNE_FINISHED_AFTER_MS ago when it opens; a bridge that
// runs for weeks would otherwise keep them (spec, attributes, checkpoint, span state) until its
// next start, past the retention docs/security.md promises, and the table every replica reads
// would grow with churn for as long as the process lives.
//
//   started ──every `everyMs`──▶ pruning (one at a time) ──done / failed──▶ started
//      └──stop()──▶ stopped (waits for a prune under way, so the store is never closed under it)
//
// A prune that fails (a full disk, the shared store unreachable) is said as a warning and tried
// again at the next interval: nothing waits for it, and the rows stay until it succeeds.
import type { Logger } from 'pino';
import type { Store } from '../store/store.js';
import { PRUNE_EVERY_MS, PRUNE_FINISHED_AFTER_MS } from '../store/store.js';

export interface FinishedRetention {
  stop(): Promise<void>;
}

export function startFinishedRetention(
  store: Pick<Store, 'pruneFinished'>,
  log: Pick<Logger, 'info' | 'warn'>,
  everyMs = PRUNE_EVERY_MS,
): FinishedRetention {
  let running: Promise<void> | undefined;
  const prune = async (): Promise<void> => {
    try {
      const rows = await store.pruneFinished();
      if (rows > 0) {
        log.info(
          { sessions: rows, retentionDays: PRUNE_FINISHED_AFTER_MS / 86_400_000 },
          'deleted the stored rows of sessions that finished longer ago than the retention',
        );
      }
    } catch (err) {
      log.warn(
        { err: err instanceof Error ? err.message : String(err), retryInMs: everyMs },
        'could not delete the stored rows of long-finished sessions; tried again at the next interval',
      );
    }
  };
  const timer = setInterval(() => {
    running ??= prune().finally(() => {
      running = undefined;
    });
  }, everyMs);
  // Housekeeping never keeps a process alive that has nothing else to do.
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
