// When `workers: auto` starts the ingest worker threads. A worker costs 12–20 MiB and more CPU per
// event than the main thread for a light load (every batch crosses threads), so a sidecar following
// one or a few sessions runs none. The workers start once following is no longer that:
//   - more than SESSIONS_ON_MAIN sessions are followed (an exporter for many sessions: they go to the
//     workers from the start, or from the moment the count passes the mark; measured, a 4-session
//     backlog read on the main thread first and moved after a second is 19 % slower than on a
//     worker from the start), or
//   - the main thread was busy for BUSY_SAMPLES samples in a row (a few sessions with a lot of
//     traffic, such as a backlog read after an outage).
// Sessions already read on the main thread then move to the workers: each is stopped, what it read
// is committed, and it is followed again on a worker from its checkpoint (the service replays from
// Last-Event-ID), the same path as after a worker's death. Nothing is read twice into the spool and
// nothing is skipped. Once started, the workers stay.
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { IngestWorkers } from '../ingest/worker-group.js';

/** Sessions the main thread follows by itself before the workers start. */
export const SESSIONS_ON_MAIN = 3;
/** Event-loop utilisation above which a sample counts as busy. */
export const BUSY_UTILISATION = 0.7;
/** Consecutive busy samples that start the workers. */
export const BUSY_SAMPLES = 2;
const SAMPLE_EVERY_MS = 500;

/** The decision, pure: whether to start the workers now. */
export function shouldScaleUp(sessions: number, recentUtilisation: readonly number[]): boolean {
  if (sessions > SESSIONS_ON_MAIN) return true;
  if (sessions === 0 || recentUtilisation.length < BUSY_SAMPLES) return false;
  return recentUtilisation.slice(-BUSY_SAMPLES).every((u) => u >= BUSY_UTILISATION);
}

export interface WorkerScalingOptions {
  ingest: IngestWorkers;
  log: Logger;
}

export class WorkerScaling {
  private timer: NodeJS.Timeout | undefined;
  private last: EventLoopUtilization | undefined;
  private readonly samples: number[] = [];
  private scaling: Promise<void> | undefined;
  private sessions = 0;
  private readonly watchers: Array<() => Promise<void>> = [];

  constructor(private readonly o: WorkerScalingOptions) {}

  /** Calls `watcher` once the workers started later than the first sessions (to move those over). */
  watch(watcher: () => Promise<void>): void {
    this.watchers.push(watcher);
  }

  /** Before the first sessions are followed: a fleet starts on the workers at once. */
  async prepare(sessions: number): Promise<void> {
    this.sessions = sessions;
    if (shouldScaleUp(sessions, [])) await this.scaleUp('sessions');
  }

  start(): void {
    if (this.timer || this.o.ingest.ready) return;
    this.last = performance.eventLoopUtilization();
    this.timer = setInterval(() => this.tick(), SAMPLE_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The number of followed sessions is now `n`. */
  sessionsChanged(n: number): void {
    this.sessions = n;
    if (!this.scaling && shouldScaleUp(n, [])) this.scaleUpAndMove('sessions');
  }

  private tick(): void {
    const now = performance.eventLoopUtilization();
    this.samples.push(performance.eventLoopUtilization(now, this.last).utilization);
    this.last = now;
    if (this.samples.length > BUSY_SAMPLES) this.samples.shift();
    if (!this.scaling && shouldScaleUp(this.sessions, this.samples))
      this.scaleUpAndMove(this.sessions > SESSIONS_ON_MAIN ? 'sessions' : 'busy');
  }

  private scaleUpAndMove(why: 'sessions' | 'busy'): void {
    void this.scaleUp(why).then(async () => {
      for (const w of this.watchers) {
        await w().catch((err: unknown) =>
          this.o.log.error(
            { error: (err as Error).message },
            'cannot move sessions to the ingest workers; they stay on the main thread',
          ),
        );
      }
    });
  }

  private scaleUp(why: 'sessions' | 'busy'): Promise<void> {
    this.stop();
    this.scaling ??= this.o.ingest.scaleUp().then(
      () =>
        this.o.log.info(
          { workers: this.o.ingest.size, why, sessions: this.sessions },
          why === 'busy'
            ? 'the main thread is busy: sessions are read, mapped and encoded in ingest worker threads from now on'
            : 'many sessions: they are read, mapped and encoded in ingest worker threads',
        ),
      // The main thread goes on reading every session: slower, but nothing is lost.
      (err: unknown) =>
        this.o.log.error(
          { error: (err as Error).message },
          'cannot start the ingest workers; the sessions stay on the main thread',
        ),
    );
    return this.scaling;
  }
}
