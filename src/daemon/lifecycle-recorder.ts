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
//
// Traces on: the state written with the session's last checkpoint lists the spans it still owes (its
// closing ones, offered as it ended and not yet acknowledged), for a restart to send. Once the
// lifecycle is written and those spans have left the export queue for good here, the state is
// dropped, so no later start (nor, with the shared store, another replica) sends them again:
//
//   written → dropping (the spans still out; with the shared store this replica holds the row's
//   claim meanwhile) → dropped; at a stop while dropping, the state stays for the next claimer.
import type { Logger } from 'pino';
import type { Spool } from '../store/spool.js';
import type { Store } from '../store/store.js';
import { StopLatch } from '../util/stop-latch.js';

export interface LifecycleRecorderDeps {
  spool: Pick<Spool, 'persist' | 'ended'>;
  store: Pick<Store, 'setLifecycle' | 'dropSpanState'>;
  log: Logger;
  /** Followed again since (its lifecycle is then the new follow's, not this one's). */
  isFollowed(id: string): boolean;
  /** One record finished (written or not): `run --until-ended` may be done. */
  settled(): void;
}

export class LifecycleRecorder {
  private readonly runs = new Set<Promise<void>>();
  private readonly ids = new Set<string>();
  /** Sessions whose state waits for their spans to settle before it is dropped. */
  private readonly dropping = new Set<string>();
  /** Fired by drain(): ends the waits for spans to settle (one per finished session). */
  private readonly stopping = new StopLatch();

  constructor(private readonly d: LifecycleRecorderDeps) {}

  /**
   * Writes `lifecycle` for the session once its records are delivered or on disk; never waited for.
   * `spansSettled` (traces on): resolves once the spans the session offered left the export queue;
   * its stored span state is dropped then. A promise, not the session: a finished session waiting
   * for a traces endpoint that is down keeps nothing of its pipeline alive.
   */
  record(id: string, lifecycle: 'ended' | 'removed', spansSettled?: Promise<void>): void {
    const run = this.write(id, lifecycle, spansSettled);
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

  /** Sessions whose stored span state waits for their spans to settle (this replica sends them). */
  get holdingSpans(): ReadonlySet<string> {
    return this.dropping;
  }

  /**
   * Resolves once every pending record is done (after the spool's finish(), which lets them
   * through). States still waiting for their spans stay stored: the next start sends what is owed.
   */
  async drain(): Promise<void> {
    this.stopping.fire();
    await Promise.all([...this.runs]);
  }

  private async write(id: string, lifecycle: 'ended' | 'removed', spansSettled?: Promise<void>): Promise<void> {
    await this.d.spool.persist(id);
    if (this.d.isFollowed(id)) return;
    // Its records are delivered or on disk and its checkpoint written: whether the lifecycle's
    // write below succeeds or not, the next follow starts from that checkpoint.
    this.d.spool.ended(id);
    try {
      await this.d.store.setLifecycle(id, lifecycle, spansSettled !== undefined && !this.stopping.stopped);
    } catch (err) {
      // Harmless to lose: after a restart the session is followed again from its checkpoint.
      this.d.log.error(
        { session: id, lifecycle, error: (err as Error).message },
        'cannot record the end or removal of a session in the store',
      );
      return;
    }
    if (spansSettled !== undefined && !this.stopping.stopped) void this.dropWhenSettled(id, spansSettled);
  }

  /** Drops the session's span state once its spans settled, unless the process stops first. */
  private async dropWhenSettled(id: string, spansSettled: Promise<void>): Promise<void> {
    this.dropping.add(id);
    try {
      await this.stopping.race(spansSettled);
      if (this.stopping.stopped || this.d.isFollowed(id)) return;
      await this.d.store.dropSpanState(id);
    } catch (err) {
      // Harmless: the next start (or another replica) sends them again, the same bytes.
      this.d.log.warn({ session: id, error: (err as Error).message }, "cannot drop a finished session's span state");
    } finally {
      this.dropping.delete(id);
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
