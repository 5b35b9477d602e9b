// The spool's write loop: seals what the sessions append and writes it, one commit at a time.
//
// Commits (seals) run when `commitMaxRecords` are pending or `commitIntervalMs` after the first
// pending record, one at a time; work that must not interleave with them (a recount, an adopted
// spool) runs between two commits. In overflow mode a seal (which writes nothing) also runs when a
// deliverer waits with nothing to take (delivery-seal.ts), so records do not wait for the interval.
// In `always` mode a commit writes every session's segment and checkpoint in one transaction before
// the checkpoint moves, and hands the fresh segments to the reader from memory (spool-reader.ts); in
// overflow mode a commit is the overflow writer's seal (overflow-writer.ts). A failed write (disk full, I/O error) keeps everything where it was, is
// reported and retried with backoff; the spool is full meanwhile (spool-room.ts). Failed deletes are
// retried in the background (deferred-deletes.ts) without holding delivery up; each commit first
// retries them: space an operator frees on a full volume goes to deletes (and SQLite's log) before
// new segments, so one free is enough to recover.
//
// With a shared store, sessions come and go at run time: a write refused because another replica
// owns some of its sessions now (FencedError) drops what is held for those sessions and writes the
// rest; forget() drops a session given up; adopt() makes a claimed session's spool backlog.
import { FencedError, movableTo } from './store.js';
import { DeferredDeletes } from './deferred-deletes.js';
import { PendingSegments, type RecordToAppend } from './pending-segments.js';
import type { Ledger } from './ledger.js';
import type { SpoolContents } from './spool-contents.js';
import type { SpoolReader } from './spool-reader.js';
import { SpoolRoom } from './spool-room.js';
import { OverflowWriter, type WriteLoop } from './overflow-writer.js';
import { deliverySealIn } from './delivery-seal.js';
import { COMMIT_MAX_BYTES, type SpoolOptions } from './spool-options.js';
import type { SpoolMode } from '../config/schema.js';
import { once } from '../util/lifecycle.js';
import { steadyNow } from '../util/steady-clock.js';
import { ignoreFacts, type Emit } from '../vocabulary/facts.js';

export class SpoolWriter implements WriteLoop {
  readonly pending = new PendingSegments();
  readonly deletes: DeferredDeletes;
  readonly room: SpoolRoom;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  /** Overflow mode: a seal for a waiting deliverer, DELIVERY_SEAL_SPACING_MS after the last one. */
  private sealTimer: NodeJS.Timeout | undefined;
  /** When the last seal that carried records ran (overflow mode; the spool's clock). */
  private sealedAt = Number.NEGATIVE_INFINITY;
  private readonly now: () => number;
  /** The commit (or work between commits) under way. */
  committing: Promise<boolean> | undefined;
  private failStreak = 0;
  private lastCommitError: string | undefined;
  closed = false;
  private readonly fencedWatchers: Array<(sessionIds: readonly string[]) => void> = [];
  private readonly doneWatchers: Array<() => void> = [];
  private readonly emit: Emit;
  private readonly mode: SpoolMode;
  /** Overflow mode's seals, spills and checkpoint writes. */
  readonly overflow: OverflowWriter;

  constructor(
    private readonly o: SpoolOptions,
    private readonly contents: SpoolContents,
    private readonly ledger: Ledger,
    private readonly reader: SpoolReader,
  ) {
    this.mode = o.mode ?? 'overflow';
    this.emit = o.emit ?? ignoreFacts;
    const now = o.now ?? steadyNow;
    this.now = now;
    this.overflow = new OverflowWriter(o, contents, ledger, reader, this, now, o.memoryMaxAgeMs ?? 10_000, this.emit);
    this.deletes = new DeferredDeletes(
      o.store,
      (batch) => {
        contents.unstored(batch.records, batch.bytes);
        this.room.recheck();
        // A delete retried in the background (it failed when delivery acknowledged the batch) can
        // be the last thing to leave the spool, with no commit after it to tell the watchers; one
        // retried inside a commit is told when that commit finishes.
        if (this.committing === undefined) this.tellDone();
      },
      (err, streak) =>
        this.emit({ f: 'delete_failed', error: err.message, code: (err as { code?: string }).code, streak }),
    );
    const memoryFirst = this.mode === 'overflow';
    this.room = new SpoolRoom(
      o.maxBytes,
      o.freeBytes,
      {
        memoryPressure: o.memoryPressure,
        commitDue: () => this.commitDue,
        diskNeeded: () => !memoryFirst || this.overflow.spillDue(),
        writeFailing: () => this.failStreak > 0,
        undeleted: () => this.deletes.size,
        storedBytes: () => contents.storedBytes,
        pendingBytes: () => this.pending.bytes,
        mustStoreBytes: () => contents.storedBytes + reader.ready.bytes * (memoryFirst ? 1 : 0) + this.pending.bytes,
        closed: () => this.closed,
      },
      this.emit,
    );
  }

  /** Calls `watcher` whenever the store refuses a commit because another replica owns these sessions now. */
  watchFenced(watcher: (sessionIds: readonly string[]) => void): void {
    this.fencedWatchers.push(watcher);
  }

  /**
   * Calls `watcher` whenever no commit is under way any more, and whenever a delete is done outside a
   * commit: the spool may have become idle then (its last deletes or checkpoints written) with
   * nothing else settling after it.
   */
  watchCommitsDone(watcher: () => void): void {
    this.doneWatchers.push(watcher);
  }

  /** The commit `tracked` finished: if no other was queued behind it, the writer is between commits. */
  private finished(tracked: Promise<boolean>): void {
    if (this.committing !== tracked) return;
    this.committing = undefined;
    this.tellDone();
  }

  private tellDone(): void {
    for (const w of this.doneWatchers) w();
  }

  /** Appends one encoded record of a session, or with `record` null only moves its checkpoint. */
  append(a: RecordToAppend): void {
    this.pending.append(a);
    this.schedule();
  }

  private get commitDue(): boolean {
    return this.pending.records >= this.o.commitMaxRecords || this.pending.bytes >= COMMIT_MAX_BYTES;
  }

  /** The last commit's error while commits fail (disk full, store down), for readiness: no probe needed. */
  get commitError(): string | undefined {
    return this.failStreak > 0 ? this.lastCommitError : undefined;
  }

  private schedule(): void {
    if (this.closed && this.pending.sessions === 0) return;
    if (this.mode === 'overflow' && this.reader.starving) this.sealForDelivery();
    if (this.commitDue) {
      // Let the chunks already read in this turn of the event loop be parsed, then commit them
      // together (setImmediate runs right after I/O; a timer would wait for the next loop turn).
      if (!this.immediate) {
        this.immediate = setImmediate(() => {
          this.immediate = undefined;
          void this.flush(false);
        });
      }
    } else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(false), this.o.commitIntervalMs);
    }
  }

  /**
   * Overflow mode: a deliverer waits with nothing to take, so what is pending is sealed for it now
   * (after the chunks of this turn are appended), or once the spacing since the last seal passed.
   */
  sealForDelivery(): void {
    if (this.mode !== 'overflow' || this.closed || this.immediate || this.sealTimer) return;
    const inMs = deliverySealIn({
      pendingRecords: this.pending.records,
      deliveryWaiting: true,
      sinceLastSealMs: this.now() - this.sealedAt,
      writeFailing: this.failStreak > 0,
    });
    if (inMs === undefined) return;
    if (inMs === 0) {
      this.immediate = setImmediate(() => {
        this.immediate = undefined;
        void this.flush(false);
      });
    } else this.sealTimer = setTimeout(() => void this.flush(false), inMs);
  }

  clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.sealTimer) clearTimeout(this.sealTimer);
    this.sealTimer = undefined;
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
  }

  /**
   * Commits everything pending now (after a commit in progress). Resolves false when it failed (it
   * is retried). Overflow mode: an explicit flush also writes the checkpoints acknowledgements
   * moved; the spool's own timers write them at most once per CHECKPOINT_INTERVAL_MS.
   */
  flush(checkpoints = true): Promise<boolean> {
    if (checkpoints) this.overflow.checkpointsNow = true;
    this.clearTimer();
    // Behind a checkpoint write that waits on the store, what is pending is sealed for delivery now.
    const records = this.pending.records;
    const sealed =
      this.committing !== undefined && this.mode === 'overflow' && this.overflow.sealBesideCheckpointWrite();
    if (sealed && records > 0) this.sealedAt = this.now();
    const run = (this.committing ?? Promise.resolve(true)).then(() => this.commitNow());
    const tracked: Promise<boolean> = run.finally(() => this.finished(tracked));
    this.committing = tracked;
    return tracked;
  }

  private async commitNow(): Promise<boolean> {
    if (this.mode === 'overflow') {
      if (this.pending.records > 0) this.sealedAt = this.now();
      return this.overflow.seal();
    }
    if (this.pending.sessions === 0) return true;
    // Deletes first: on a volume that was full, what was freed must go to them, not to new segments.
    if (this.deletes.size > 0) await this.deletes.retryNow();
    const batch = this.pending.take();
    let ids: number[];
    try {
      // A checkpoint stays where it is when the session's span state was not captured at its new position.
      const moves = batch.checkpoints.map(movableTo).filter((c) => c !== undefined);
      ids = await this.o.store.commit(batch.segments, moves);
    } catch (err) {
      this.pending.restore(batch);
      if (err instanceof FencedError) {
        // Not ours any more: what we read of them is the new owner's to read again from the checkpoint.
        this.fenced(err.sessionIds);
        return this.commitNow();
      }
      this.writeFailed(err as Error);
      return false;
    }
    this.writeSucceeded();
    this.pending.committed(batch);
    this.contents.stored(batch.records, batch.bytes);
    this.reader.handOver(batch.segments, ids);
    this.room.recheck();
    return true;
  }

  writeSucceeded(): void {
    if (this.failStreak > 0) this.emit({ f: 'commit_recovered' });
    this.failStreak = 0;
  }

  writeFailed(err: Error): void {
    this.failStreak++;
    this.lastCommitError = err.message;
    this.emit({
      f: 'commit_failed',
      error: err.message,
      code: (err as { code?: string }).code,
      streak: this.failStreak,
    });
    if (!this.closed || this.overflow.finishing) {
      this.clearTimer();
      const delay = Math.min(100 * 2 ** Math.min(this.failStreak, 6), 5000);
      this.timer = setTimeout(() => void this.flush(false), delay);
    }
  }

  fenced(sessionIds: readonly string[]): void {
    // Not ours any more: what we read of them is the new owner's to read again from the checkpoint.
    this.forget(sessionIds);
    this.emit({ f: 'writes_fenced', sessions: sessionIds });
    for (const w of this.fencedWatchers) w(sessionIds);
  }

  /** A commit after the interval when acknowledgements moved checkpoints and nothing else is due. */
  scheduleCheckpoints(): void {
    if (this.timer || this.immediate || (this.closed && !this.overflow.finishing)) return;
    this.timer = setTimeout(() => void this.flush(false), this.o.commitIntervalMs);
  }

  /**
   * Drops what this spool holds in memory for sessions it no longer owns: pending records (never
   * committed; the new owner reads them again from the checkpoint) and committed segments not yet
   * taken (they stay in the store and move to the new owner). Call resync() afterwards.
   */
  forget(sessionIds: readonly string[]): void {
    const gone = new Set(sessionIds);
    this.pending.drop(gone);
    this.reader.forget(gone);
    // Memory segments of those sessions, waiting or in flight: the new owner reads them again.
    this.contents.forgetMemory(gone);
    this.ledger.forget(gone);
    this.overflow.wakeLedger();
    // Delivery from memory may have paused for checkpoints of these sessions.
    this.overflow.memoryDeliveryPaused();
    this.reader.wake();
    this.room.recheck();
  }

  /** Recounts the spooled records from the store (after sessions came or went), between commits. */
  resync(): Promise<void> {
    return this.between(async () => {
      this.contents.recount(await this.o.store.spoolTotals());
      this.room.recheck();
    });
  }

  /** A claimed session's spool came along: the reader reads it back as backlog, between commits. */
  adopt(moved: { records: number; bytes: number; maxId: number }): Promise<void> {
    return this.between(async () => this.reader.adopt(moved));
  }

  /**
   * Claims sessions in the store and adopts their moved spool with no commit of this spool in
   * between. The claim renumbers the moved segments from the same id sequence commits draw from:
   * a commit running alongside could take higher ids, be handed to delivery first and move the
   * cursor past the adopted ones, which would then never be read until a restart. Serialized with
   * the commits, every adopted id is above what was committed before and below what comes after.
   */
  adoptClaimed<T extends { records: number; bytes: number; maxId: number }>(claim: () => Promise<T>): Promise<T> {
    let claimed: T | undefined;
    return this.between(async () => {
      claimed = await claim();
      if (claimed.maxId > 0 || claimed.records > 0) this.reader.adopt(claimed);
    }).then(() => claimed!);
  }

  /** Runs `fn` between commits: after the one in progress, before the next. */
  private between(fn: () => Promise<void>): Promise<void> {
    const run = (this.committing ?? Promise.resolve(true)).then(fn);
    const tracked: Promise<boolean> = run
      .then(
        () => true,
        () => false,
      )
      .finally(() => this.finished(tracked));
    this.committing = tracked;
    return run;
  }

  /**
   * Overflow mode: resolves once every record of the session read so far is delivered or on disk
   * and its checkpoint written (what waits in memory is spilled now), so that recording its end
   * cannot lose its last records to a crash; or when the spool finishes. `always`: one commit.
   */
  async persist(sessionId: string): Promise<void> {
    if (this.mode === 'always') {
      await this.flush();
      return;
    }
    await this.overflow.persist(sessionId);
  }

  /** Final commit; wakes every reader waiting for room so it can exit. Delivery may go on draining. Idempotent. */
  readonly close = once(async (): Promise<boolean> => {
    const ok = await this.flush();
    this.closed = true;
    this.clearTimer();
    this.room.recheck();
    // A delivery paused on stalled checkpoints may drain now (memoryDeliveryPaused is off once closed).
    this.overflow.memoryDeliveryPaused();
    this.reader.wake();
    if (this.mode === 'always') await this.deletes.close();
    return ok;
  });

  /**
   * After delivery stopped (overflow mode): what is still in memory goes to the store with the
   * checkpoints it moves, and the moved checkpoints are written, so the next start sends it.
   * Resolves false when that failed (the service then replays it from the checkpoint). Idempotent.
   */
  readonly finish = once(async (): Promise<boolean> => {
    await this.close();
    if (this.mode === 'always') return true;
    this.overflow.finish();
    const ok = await this.flush();
    this.clearTimer();
    await this.deletes.close();
    return ok;
  });
}
