// The overflow mode's writes (`spool.mode: overflow`, docs/design.md "Delivery semantics"): the
// service can replay, so records wait in memory. A record's life: appended → pending (memory, per
// session) → sealed (a memory segment, id < 0, in the ready queue) → in flight → acknowledged; its
// session's checkpoint moves only then (ledger.ts) and is written, for every session that moved,
// once per commit interval. When the collector does not take records fast enough (what memory
// holds passes `memoryMaxBytes`, or the oldest waiting segment is older than `memoryMaxAgeMs`), what
// waits in memory spills to the store in one transaction with the checkpoints it makes durable, and
// becomes the backlog; while a backlog exists new records spill too, so each session's records keep
// their order. A segment in flight whose request keeps failing follows the same window: in flight →
// given back (`handBack`: by the spill itself while its worker sleeps in a backoff, or by the worker
// after one) → spilled at the next commit, ahead of what waits behind it; in flight it would hold its
// session's checkpoint back over all of that. A kill -9 loses memory only: the service replays from
// the checkpoint (its ring buffer, then the archive). The write loop (spool-writer.ts) runs seal()
// as its commit.
//
// What a kill -9 or a successor sends again is what was acknowledged and not yet checkpointed. With
// a shared store (`pauseOnUnwrittenCheckpoints`) that is bounded even when checkpoints cannot be
// written (a replica cut off from the database keeps its memory and its collector until its lease
// runs out): once the oldest acknowledged move has waited CHECKPOINT_STALL_MS for its write, the
// reader hands out no more memory segments until a checkpoint write goes through (or the sessions
// are given up): checkpoint-stall.ts. Until then a checkpoint write that hangs does not hold up
// what the sessions read: it is sealed beside the write (sealBesideCheckpointWrite), as sealing
// needs no database.
import { FencedError, type CheckpointUpdate } from './store.js';
import type { Segment } from '../wire/segment-framing.js';
import type { DeferredDeletes } from './deferred-deletes.js';
import type { PendingSegments } from './pending-segments.js';
import type { Ledger } from './ledger.js';
import type { SpoolContents } from './spool-contents.js';
import type { SpoolReader } from './spool-reader.js';
import type { SpoolRoom } from './spool-room.js';
import { COMMIT_MAX_BYTES, type SpoolOptions } from './spool-options.js';
import type { Emit } from '../vocabulary/facts.js';
import { CHECKPOINT_INTERVAL_MS, CHECKPOINT_MAX_WAIT_MS } from './checkpoint-timing.js';
import { CheckpointStall } from './checkpoint-stall.js';

/** What the overflow writes use of the write loop that runs them (spool-writer.ts). */
export interface WriteLoop {
  readonly pending: PendingSegments;
  readonly deletes: DeferredDeletes;
  readonly room: SpoolRoom;
  readonly closed: boolean;
  /** Commits everything pending now, after a commit in progress. */
  flush(checkpoints?: boolean): Promise<boolean>;
  /** A commit after the interval, unless one is already due. */
  scheduleCheckpoints(): void;
  /** A write failed: reported, and retried with backoff. */
  writeFailed(err: Error): void;
  /** A write went through: a failure streak, if any, has ended. */
  writeSucceeded(): void;
  /** The store refused a write: another replica owns these sessions now. */
  fenced(sessionIds: readonly string[]): void;
  /** The last commit's error while commits fail. */
  readonly commitError: string | undefined;
}

export class OverflowWriter {
  /** Memory segments of batches delivery gave back for the store (handBack): spilled at the next commit. */
  private handed: Segment[] = [];
  /** Told just before a commit spills: delivery gives back the batches that belong on disk first. */
  private readonly spillWatchers: Array<() => void> = [];
  /** Sessions whose records must reach the disk at the next commit (their end is about to be recorded). */
  private readonly persisting = new Set<string>();
  private ledgerWaiters: Array<() => void> = [];
  /** After delivery stopped: everything still in memory goes to the store. */
  finishing = false;
  private checkpointFailStreak = 0;
  /** A checkpoints-only write waits on the store (sealBesideCheckpointWrite). */
  private writingCheckpoints = false;
  /** The last checkpoint write's error, while they fail. */
  private lastCheckpointError: string | undefined;
  /**
   * When moved checkpoints were last written. Never, at the start: a run's first acknowledgements
   * are written at once. Counting the start as a write saved a sidecar one write a minute, but a
   * process that crashes sooner than CHECKPOINT_MAX_WAIT_MS after each start (a crash loop) then
   * never moved its checkpoints, and every restart sent again all it had sent since the first.
   */
  private checkpointsWrittenAt = 0;
  /** The reader's acknowledged bytes at the last checkpoint write (checkpointMinBytes). */
  private acknowledgedAtWrite = 0;
  /** Set by an explicit flush: the next commit writes the moved checkpoints whatever their interval. */
  checkpointsNow = false;
  private ageTimer: NodeJS.Timeout | undefined;
  private readonly stall: CheckpointStall;

  constructor(
    private readonly o: SpoolOptions,
    private readonly contents: SpoolContents,
    private readonly ledger: Ledger,
    private readonly reader: SpoolReader,
    private readonly loop: WriteLoop,
    private readonly now: () => number,
    private readonly maxAgeMs: number,
    private readonly emit: Emit,
  ) {
    this.stall = new CheckpointStall(o.pauseOnUnwrittenCheckpoints === true, o.commitIntervalMs, now, emit);
  }

  /**
   * Overflow mode: what waits in memory must go to the store now: the collector does not take it
   * fast enough (held bytes or age past the window), a backlog is being read (new records queue
   * behind it, so each session keeps its order), or delivery has stopped.
   */
  spillDue(): boolean {
    if (this.finishing) return true;
    const head = this.reader.ready.first();
    return this.pastWindow(head === undefined ? undefined : this.contents.sealedAt(head.id));
  }

  /**
   * The memory window, for a segment sealed at `sealedAt` (undefined: none waiting): a backlog is
   * being read (what is newer queues behind it, so each session keeps its order), memory holds
   * more than its bytes, or the segment is older than the age.
   */
  private pastWindow(sealedAt: number | undefined): boolean {
    if (this.reader.readingBacklog) return true;
    if (this.contents.memoryBytes + this.loop.pending.bytes > this.o.memoryMaxBytes) return true;
    return sealedAt !== undefined && this.now() - sealedAt > this.maxAgeMs;
  }

  /**
   * Whether a batch whose request keeps failing should leave memory for the store (Spool.handBack)
   * rather than wait in flight for the collector: it holds a memory segment that the window would
   * spill by now were it waiting instead (a backlog formed behind it, memory is over its bytes, or
   * the segment is older than the age). Held in flight, it holds its sessions' checkpoints back over
   * everything spilled behind it, and a kill -9 would have all of that delivered from the store and
   * read again from the service; on disk, the checkpoint moves over it with the rest. Not while
   * writes fail or the store has no room for it (handing it back would only restart its backoff),
   * nor once the spool is closing (finish() stores what memory holds).
   */
  belongsOnDisk(segments: readonly Segment[]): boolean {
    if (this.finishing || this.loop.closed || this.loop.commitError !== undefined || this.checkpointFailStreak > 0)
      return false;
    let oldest: number | undefined;
    let bytes = 0;
    for (const s of segments) {
      const at = s.id < 0 ? this.contents.sealedAt(s.id) : undefined;
      if (at === undefined) continue;
      bytes += s.payload.length;
      if (oldest === undefined || at < oldest) oldest = at;
    }
    if (oldest === undefined) return false;
    if (bytes > this.loop.room.limitBytes() - this.contents.storedBytes) return false;
    return this.pastWindow(oldest);
  }

  /**
   * Memory segments of a batch delivery gave back (belongsOnDisk; after a backoff, or at a spill
   * while its worker slept): the next commit spills them, or this one when a spill is under way.
   * Meanwhile no batch takes them: they are in neither the ready queue nor in flight.
   */
  handBack(segments: readonly Segment[]): void {
    this.handed.push(...segments);
  }

  /**
   * Calls `watcher` just before a commit spills what waits in memory, so that batches in flight
   * that belong on disk can be given back (handBack, synchronously) and spilled first, ahead of
   * what waits behind them.
   */
  watchSpill(watcher: () => void): void {
    this.spillWatchers.push(watcher);
  }

  /**
   * Overflow mode's commit: what is pending becomes memory segments (the ledger holds their
   * positions); then, when a spill is due, what waits in memory goes to the store with the
   * checkpoints it makes durable, else the checkpoints that acknowledgements moved are written.
   */
  async seal(): Promise<boolean> {
    this.sealPending();
    if (this.spillDue()) for (const w of this.spillWatchers) w();
    if (this.handed.length > 0) {
      // Put back in their place and spilled with everything older still waiting, so each session's
      // records reach the store in order; a backlog then exists, and what waits behind them follows.
      const handed = this.handed.filter((s) => this.contents.inMemory(s.id));
      this.handed = [];
      if (handed.length > 0) {
        this.reader.ready.unshift(handed);
        const newest = handed.reduce((a, b) => (b.id < a.id ? b : a));
        if (!(await this.spill(this.reader.ready.takeThrough(newest)))) return false;
      }
    }
    if (this.spillDue()) {
      // In transactions of bounded size, and only as far as the disk has room: what does not fit
      // stays in memory, over the window, and readers wait (full) until delivery or room frees some.
      while (this.spillDue() && !this.reader.ready.empty) {
        const room = Math.min(
          Math.max(COMMIT_MAX_BYTES, this.reader.ready.first()!.payload.length),
          this.loop.room.limitBytes() - this.contents.storedBytes,
        );
        const some = this.reader.ready.takeBytes(Math.max(0, room));
        if (some.length === 0) break;
        if (!(await this.spill(some))) return false;
      }
      return this.writeCheckpoints();
    }
    if (this.persisting.size > 0) {
      const some = this.reader.ready.drop(this.persisting);
      if (some.length > 0) return this.spill(some);
    }
    // The spill that failed, if one did, is not needed any more: the collector took what waited.
    this.loop.writeSucceeded();
    this.loop.room.recheck();
    return this.writeCheckpoints();
  }

  /** What is pending becomes memory segments in the ready queue, their positions held by the ledger. */
  private sealPending(): void {
    if (this.loop.pending.sessions === 0) return;
    const batch = this.loop.pending.take();
    this.loop.pending.committed(batch);
    const bySession = new Map<string, Segment>();
    const sealedAt = this.now();
    for (const seg of batch.segments) {
      const segment = this.contents.seal(seg, sealedAt);
      bySession.set(seg.sessionId, segment);
      this.reader.ready.push(segment);
    }
    for (const c of batch.checkpoints) this.ledger.hold(c, bySession.get(c.sessionId)?.id ?? null);
    if (batch.segments.length > 0) this.reader.wake();
    this.scheduleAgeCheck();
  }

  /**
   * Seals what is pending at once, outside the write loop's turn, while that turn waits on a
   * checkpoints-only write: sealing touches memory only, and a database that hangs (paused, a link
   * black-holed) held such a write until its query timed out (a third of the lease), with nothing
   * read meanwhile handed to delivery. Delivery from memory then goes on until the stall's pause
   * (CHECKPOINT_STALL_MS), as when the write fails at once. Not when a spill is due: what is read
   * must then follow the backlog to the store, in the loop's order. True when it sealed.
   */
  sealBesideCheckpointWrite(): boolean {
    if (!this.writingCheckpoints || this.loop.pending.sessions === 0 || this.finishing || this.spillDue()) return false;
    this.sealPending();
    return true;
  }

  /** Writes the checkpoints acknowledgements moved. A failure only delays them (and is retried). */
  private async writeCheckpoints(): Promise<boolean> {
    if (this.ledger.dirtyCount === 0) return true;
    // One write a second at most: each is a page of the database and its log, whatever it carries;
    // a crash then sends again at most that much more (what a second acknowledged). With a minimum
    // of bytes, a slow flow's moves wait for it, up to CHECKPOINT_MAX_WAIT_MS.
    const interval = Math.max(this.o.commitIntervalMs, CHECKPOINT_INTERVAL_MS);
    const since = this.now() - this.checkpointsWrittenAt;
    // A session's first position without a record (`start: latest`'s baseline) does not wait for
    // bytes: lost to a crash, the next start would take a new baseline past what came in between.
    const few =
      (this.o.checkpointMinBytes ?? 0) > 0 &&
      !this.ledger.firstPositions &&
      since < Math.max(interval, CHECKPOINT_MAX_WAIT_MS) &&
      this.reader.acknowledgedMemoryBytes - this.acknowledgedAtWrite < this.o.checkpointMinBytes!;
    if (!this.checkpointsNow && (since < interval || few)) {
      this.loop.scheduleCheckpoints();
      return true;
    }
    this.checkpointsNow = false;
    this.checkpointsWrittenAt = this.now();
    this.acknowledgedAtWrite = this.reader.acknowledgedMemoryBytes;
    // The loop's turn waits on the store from here: what sessions read meanwhile is sealed beside it.
    this.writingCheckpoints = true;
    let takenAt: number;
    let updates: CheckpointUpdate[];
    try {
      // Deletes first: on a volume that was full, what was freed must go to them.
      if (this.loop.deletes.size > 0) await this.loop.deletes.retryNow();
      takenAt = this.now();
      updates = this.ledger.pending();
      await this.o.store.commit([], updates);
    } catch (err) {
      if (err instanceof FencedError) {
        this.loop.fenced(err.sessionIds);
        return await this.writeCheckpoints();
      }
      this.checkpointFailStreak++;
      this.lastCheckpointError = (err as Error).message;
      this.emit({
        f: 'commit_failed',
        error: (err as Error).message,
        code: (err as { code?: string }).code,
        streak: this.checkpointFailStreak,
        checkpointsOnly: true,
      });
      this.loop.scheduleCheckpoints();
      return false;
    } finally {
      this.writingCheckpoints = false;
    }
    if (this.checkpointFailStreak > 0) this.emit({ f: 'commit_recovered' });
    this.checkpointFailStreak = 0;
    this.stall.written();
    this.ledger.written(updates, takenAt);
    this.wakeLedger();
    // Delivery from memory may have paused for this write.
    this.memoryDeliveryPaused();
    this.reader.wake();
    return true;
  }

  /** Overflow mode: memory segments go to the store, with the checkpoints that moves; they become backlog. */
  private async spill(segments: Segment[]): Promise<boolean> {
    if (segments.length === 0) return this.writeCheckpoints();
    if (this.loop.deletes.size > 0) await this.loop.deletes.retryNow();
    const ids = new Set(segments.map((s) => s.id));
    const takenAt = this.now();
    const updates = this.ledger.pending(ids);
    let stored: number[];
    try {
      stored = await this.o.store.commit(segments, updates);
    } catch (err) {
      // Still in memory, in order: delivery goes on taking them meanwhile.
      this.reader.ready.unshift(segments.filter((s) => this.contents.inMemory(s.id)));
      if (err instanceof FencedError) {
        this.loop.fenced(err.sessionIds);
        return this.seal();
      }
      this.loop.writeFailed(err as Error);
      return false;
    }
    this.loop.writeSucceeded();
    this.stall.written();
    for (let i = 0; i < segments.length; i++) {
      const s = segments[i]!;
      this.contents.dropMemory(s);
      this.ledger.settle(s.id);
      this.contents.stored(s.records, s.payload.length);
    }
    this.ledger.written(updates, takenAt);
    if (stored.length > 0) this.reader.backlogTo(stored[stored.length - 1]!);
    this.memoryDeliveryPaused();
    this.reader.wake();
    this.wakeLedger();
    this.loop.room.recheck();
    return true;
  }

  /** True while delivery must not take records from memory (checkpoint-stall.ts). */
  memoryDeliveryPaused(): boolean {
    return this.stall.paused(this.ledger.unwrittenSince, this.loop.closed);
  }

  /** The last checkpoint write's error while checkpoint writes fail (overflow mode), for readiness. */
  get checkpointError(): string | undefined {
    return this.checkpointFailStreak > 0 ? this.lastCheckpointError : undefined;
  }

  /** How long delivery from memory has been paused for stalled checkpoints (ms), for the status. */
  get memoryPausedForMs(): number | undefined {
    return this.stall.pausedForMs;
  }

  wakeLedger(): void {
    const w = this.ledgerWaiters;
    this.ledgerWaiters = [];
    for (const resolve of w) resolve();
  }

  /** Segments waiting in memory spill once they are older than the window, new records or not. */
  private scheduleAgeCheck(): void {
    if (this.ageTimer || this.loop.closed) return;
    this.ageTimer = setTimeout(
      () => {
        this.ageTimer = undefined;
        if (this.reader.ready.empty) return;
        if (this.spillDue()) void this.loop.flush(false);
        this.scheduleAgeCheck();
      },
      Math.max(this.o.commitIntervalMs, Math.min(this.maxAgeMs, 1000)),
    );
    this.ageTimer.unref();
  }

  /**
   * Resolves once every record of the session read so far is delivered or on disk and its
   * checkpoint written (what waits in memory is spilled now), so that recording its end cannot lose
   * its last records to a crash; or when the spool finishes.
   */
  async persist(sessionId: string): Promise<void> {
    this.persisting.add(sessionId);
    try {
      await this.loop.flush();
      while (this.ledger.holds(sessionId) && !this.finishing)
        await new Promise<void>((resolve) => this.ledgerWaiters.push(resolve));
      await this.loop.flush();
    } finally {
      this.persisting.delete(sessionId);
    }
  }

  /** Delivery stopped: everything still in memory goes to the store at the next commit. */
  finish(): void {
    this.finishing = true;
    this.wakeLedger();
    if (this.ageTimer) clearTimeout(this.ageTimer);
  }
}
