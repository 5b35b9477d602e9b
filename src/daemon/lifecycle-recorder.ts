// Ends and removals, recorded once the session's records are safe.
//
// A session's lifecycle (ended, removed) is written to the store only once what was read of it is
// delivered or on disk (spool.persist): a crash in between must not leave an ended or removed session
// with records nobody will read again. In overflow mode a collector outage can hold that up for as
// long as it lasts, so the caller (a reload, DELETE, the stream's end) never waits for it:
//
//   record(id) → settling (read no more; the store still says active; counts as followed, so the
//   shared store's ownership pass does not follow it again from its checkpoint) → persisted →
//   written (unless followed again meanwhile: then the new follow's lifecycle stands) → done.
//
// A crash while settling leaves the session active in the store: the next start follows it again from
// its checkpoint (an ended one ends again at once with 404; a removed one is removed again by whoever
// removed it, or followed until then).
import type { Logger } from 'pino';
import type { Spool } from '../store/spool.js';
import type { Store } from '../store/store.js';

export interface LifecycleRecorderDeps {
  spool: Pick<Spool, 'persist'>;
  store: Pick<Store, 'setLifecycle'>;
  log: Logger;
  /** Followed again since (its lifecycle is then the new follow's, not this one's). */
  isFollowed(id: string): boolean;
  /** One record finished (written or not): `run --until-ended` may be done. */
  settled(): void;
}

export class LifecycleRecorder {
  private readonly runs = new Set<Promise<void>>();
  private readonly ids = new Set<string>();

  constructor(private readonly d: LifecycleRecorderDeps) {}

  /** Writes `lifecycle` for the session once its records are delivered or on disk; never waited for. */
  record(id: string, lifecycle: 'ended' | 'removed'): void {
    const run = this.write(id, lifecycle);
    this.runs.add(run);
    this.ids.add(id);
    void run.finally(() => {
      this.runs.delete(run);
      this.ids.delete(id);
      this.d.settled();
    });
  }

  /** The session's end or removal waits to be recorded. */
  has(id: string): boolean {
    return this.ids.has(id);
  }

  get settling(): ReadonlySet<string> {
    return this.ids;
  }

  get size(): number {
    return this.runs.size;
  }

  /** Resolves once every pending record is done (after the spool's finish(), which lets them through). */
  async drain(): Promise<void> {
    await Promise.all([...this.runs]);
  }

  private async write(id: string, lifecycle: 'ended' | 'removed'): Promise<void> {
    await this.d.spool.persist(id);
    if (this.d.isFollowed(id)) return;
    try {
      await this.d.store.setLifecycle(id, lifecycle);
    } catch (err) {
      // Harmless to lose: after a restart the session is followed again from its checkpoint.
      this.d.log.error(
        { session: id, lifecycle, error: (err as Error).message },
        'cannot record the end or removal of a session in the store',
      );
    }
  }
}

/** How long a planned move to the ingest workers waits for the moving sessions' records to settle. */
export const MOVE_SETTLE_MS = 5000;

/** Resolves when `work` does or after `ms`, whichever is first (the work goes on). */
export async function settleWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([work.then(() => undefined), elapsed]);
  } finally {
    clearTimeout(timer);
  }
}
