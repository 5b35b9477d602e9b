// The spool: the durable queue between the sessions (which append encoded records) and delivery
// (which claims segments, exports them and acknowledges them). It owns its room and back-pressure.
//
// A record's life: appended → pending (memory, per session) → committed (one transaction for every
// session's segment and checkpoint) → claimed (in flight) → acknowledged (deleted).
//
// Commits run when `commitMaxRecords` are pending or `commitIntervalMs` after the first pending
// record, one at a time. A failed commit (disk full, I/O error) keeps everything pending, is reported
// and retried with backoff. Freshly committed segments are handed to delivery from memory (the
// "ready" queue), so the common path never reads the disk back; only a backlog — what was spooled
// before this process started, or what piled up beyond `memoryMaxBytes` during an outage — is read
// from the store, in id order, up to `backlogUpTo`. Claims are serialized and always move forward in
// id order, so the ready queue and the backlog never overlap.
//
// Room: the spool is full while a commit is failing or due, while the process is over its memory
// budget, or while spooled + pending bytes reach `maxBytes` or what the volume's free space allows
// (disk-room.ts); then appenders wait in waitForRoom() (the service buffers meanwhile; what it
// evicts becomes a gap record). Commits and acknowledgements wake them. Failed deletes are retried
// in the background (deferred-deletes.ts) without holding delivery up; while any wait, the spool is
// full too, and each commit first retries them: space an operator frees on a full volume goes to
// deletes (and SQLite's log) before new segments, so one free is enough to recover.
//
// With a shared store, sessions come and go at run time: a commit refused because another replica
// owns some of its sessions now (FencedError) drops what was pending for those sessions and commits
// the rest; forget() drops a session given up; adopt() makes a claimed session's spool backlog.
import { FencedError, type Store } from './store.js';
import type { NewSegment, Segment } from '../wire/segment-framing.js';
import { DeferredDeletes } from './deferred-deletes.js';
import { DiskRoom, type FreeSpace } from './disk-room.js';
import { PendingSegments } from './pending-segments.js';
import { ReadyQueue } from './ready-queue.js';
import { once } from '../util/lifecycle.js';
import { ignoreFacts, type Emit } from '../vocabulary/facts.js';

/** Pending bytes that make a commit due (and readers wait for it): memory stays bounded with large records. */
export const COMMIT_MAX_BYTES = 8 * 1024 * 1024;

export interface SpoolOptions {
  store: Store;
  maxBytes: number;
  /** Committed segments kept in memory for delivery; beyond it they are read back from the store. */
  memoryMaxBytes: number;
  commitMaxRecords: number;
  commitIntervalMs: number;
  /** True while the process is over its memory budget: appenders wait as for a full spool. */
  memoryPressure?: () => boolean;
  /** Free and total bytes of the store's volume (see disk-room.ts). */
  freeBytes?: FreeSpace;
  /** Where the spool's facts go: failed and recovered commits, failed deletes, fenced writes. */
  emit?: Emit;
}

/** Segments claimed together for one export request. */
export interface Claim {
  segments: Segment[];
  records: number;
  bytes: number;
}

export class Spool {
  private readonly pending = new PendingSegments();
  private readonly disk: DiskRoom;
  private readonly deletes: DeferredDeletes;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private committing: Promise<boolean> | undefined;
  private failStreak = 0;
  private lastCommitError: string | undefined;
  private closed = false;
  private roomWaiters: Array<() => void> = [];
  private dataWaiters: Array<() => void> = [];
  private readonly fencedWatchers: Array<(sessionIds: readonly string[]) => void> = [];
  private readonly emit: Emit;

  private readonly ready = new ReadyQueue();
  /** Segments with id ≤ this exist only in the store; claims read them back first. */
  private backlogUpTo = 0;
  /** Highest segment id claimed so far. */
  private cursor = 0;
  private claiming: Promise<unknown> = Promise.resolve();

  /** Records and bytes committed and not yet acknowledged (what the size limit counts). */
  private spooledRecords = 0;
  private spooledBytes = 0;
  private inFlight = 0;

  private constructor(private readonly o: SpoolOptions) {
    this.emit = o.emit ?? ignoreFacts;
    this.disk = new DiskRoom(o.maxBytes, o.freeBytes);
    this.deletes = new DeferredDeletes(
      o.store,
      (claim) => this.deleted(claim),
      (err, streak) => this.emit({ f: 'delete_failed', error: err.message, streak }),
    );
  }

  /** Calls `watcher` whenever the store refuses a commit because another replica owns these sessions now. */
  watchFenced(watcher: (sessionIds: readonly string[]) => void): void {
    this.fencedWatchers.push(watcher);
  }

  /** Opens the spool over a store; what the store already holds is the backlog. */
  static async open(o: SpoolOptions): Promise<Spool> {
    const s = new Spool(o);
    const t = await o.store.spoolTotals();
    s.spooledRecords = t.records;
    s.spooledBytes = t.bytes;
    s.backlogUpTo = t.maxId;
    return s;
  }

  /**
   * Appends one encoded record of a session (or, with `record` null, only moves its checkpoint: a
   * filtered event). The checkpoint becomes durable with the transaction that carries the record.
   */
  append(
    sessionId: string,
    seq: number,
    epoch: number,
    tsMicros: number,
    record: Buffer | null,
    sourceId?: string,
  ): void {
    this.pending.append(sessionId, seq, epoch, tsMicros, record, sourceId);
    this.schedule();
  }

  private get commitDue(): boolean {
    return this.pending.records >= this.o.commitMaxRecords || this.pending.bytes >= COMMIT_MAX_BYTES;
  }

  /** True when appenders must stop reading. */
  get full(): boolean {
    if (this.failStreak > 0) return true;
    // Deletes that cannot be written (a full volume): reading more would take the room they need.
    if (this.deletes.size > 0) return true;
    if (this.o.memoryPressure?.()) return true;
    // Readers pause as soon as a full commit is due, until it is done: reading then runs at the pace
    // of the commits and cannot flood the event loop (with a thousand sessions, each overshoots by
    // at most the chunk it is parsing).
    if (this.commitDue) return true;
    return this.spooledBytes + this.pending.bytes >= this.limitBytes();
  }

  private limitBytes(): number {
    return this.disk.limit(this.spooledBytes, this.spooledBytes + this.pending.bytes, () => {
      if (this.roomWaiters.length > 0) setTimeout(() => this.recheckRoom(), 1000).unref();
    });
  }

  /** True when the volume's free space, not max_bytes, is what limits the spool now. */
  get limitedByDisk(): boolean {
    return this.limitBytes() < this.o.maxBytes;
  }

  /** Resolves once there is room (or the spool closed). */
  waitForRoom(): Promise<void> {
    if (!this.full || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /** Appenders currently paused in waitForRoom() (back-pressure in effect). */
  get pausedReaders(): number {
    return this.roomWaiters.length;
  }

  get pendingCount(): number {
    return this.pending.records;
  }

  /** Records committed and not yet acknowledged, with their bytes; in-flight ones included. */
  get spooled(): { records: number; bytes: number } {
    return { records: this.spooledRecords, bytes: this.spooledBytes };
  }

  /** Bytes of records this spool holds in memory: pending a commit, and committed but waiting for delivery. */
  get heldBytes(): { pending: number; ready: number } {
    return { pending: this.pending.bytes, ready: this.ready.bytes };
  }

  /** Claims handed to delivery and not yet settled. */
  get claimsInFlight(): number {
    return this.inFlight;
  }

  /** Nothing pending, nothing spooled, nothing in flight: everything read was delivered. */
  get idle(): boolean {
    return (
      this.pending.records === 0 && this.spooledRecords === 0 && this.inFlight === 0 && this.committing === undefined
    );
  }

  /** Wakes appenders if there is room now (after memory pressure ended, for one). */
  recheckRoom(): void {
    if (this.roomWaiters.length === 0 || (this.full && !this.closed)) return;
    const w = this.roomWaiters;
    this.roomWaiters = [];
    for (const resolve of w) resolve();
  }

  private schedule(): void {
    if (this.closed && this.pending.sessions === 0) return;
    if (this.commitDue) {
      // Let the chunks already read in this turn of the event loop be parsed, then commit them
      // together (setImmediate runs right after I/O; a timer would wait for the next loop turn).
      if (!this.immediate) {
        this.immediate = setImmediate(() => {
          this.immediate = undefined;
          void this.flush();
        });
      }
    } else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.o.commitIntervalMs);
    }
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
  }

  /** Commits everything pending now (after a commit in progress). Resolves false when it failed (it is retried). */
  flush(): Promise<boolean> {
    this.clearTimer();
    const run = (this.committing ?? Promise.resolve(true)).then(() => this.commitNow());
    const tracked: Promise<boolean> = run.finally(() => {
      if (this.committing === tracked) this.committing = undefined;
    });
    this.committing = tracked;
    return tracked;
  }

  private async commitNow(): Promise<boolean> {
    if (this.pending.sessions === 0) return true;
    // Deletes first: on a volume that was full, what was freed must go to them, not to new segments.
    if (this.deletes.size > 0) await this.deletes.retryNow();
    const batch = this.pending.take();
    let ids: number[];
    try {
      ids = await this.o.store.commit(batch.segments, batch.checkpoints);
    } catch (err) {
      this.pending.restore(batch);
      if (err instanceof FencedError) {
        // Not ours any more: what we read of them is the new owner's to read again from the checkpoint.
        this.forget(err.sessionIds);
        this.emit({ f: 'writes_fenced', sessions: err.sessionIds });
        for (const w of this.fencedWatchers) w(err.sessionIds);
        return this.commitNow();
      }
      this.failStreak++;
      this.lastCommitError = (err as Error).message;
      this.emit({
        f: 'commit_failed',
        error: (err as Error).message,
        code: (err as { code?: string }).code,
        streak: this.failStreak,
      });
      if (!this.closed) {
        this.clearTimer();
        const delay = Math.min(100 * 2 ** Math.min(this.failStreak, 6), 5000);
        this.timer = setTimeout(() => void this.flush(), delay);
      }
      return false;
    }
    if (this.failStreak > 0) this.emit({ f: 'commit_recovered' });
    this.failStreak = 0;
    this.pending.committed(batch);
    this.spooledRecords += batch.records;
    this.spooledBytes += batch.bytes;
    this.handOver(batch.segments, ids);
    this.recheckRoom();
    return true;
  }

  /** Committed segments go to the ready queue while it has room; otherwise they become backlog. */
  private handOver(segments: NewSegment[], ids: number[]): void {
    if (segments.length === 0) return;
    let bytes = 0;
    for (const s of segments) bytes += s.payload.length;
    if (this.ready.bytes + bytes > this.o.memoryMaxBytes) {
      // Everything unclaimed is in the store: read it back in order instead of holding it here.
      this.ready.clear();
      this.backlogUpTo = ids[ids.length - 1]!;
    } else {
      for (let i = 0; i < segments.length; i++) this.ready.push({ ...segments[i]!, id: ids[i]! });
    }
    const w = this.dataWaiters;
    this.dataWaiters = [];
    for (const resolve of w) resolve();
  }

  /**
   * Claims the next segments (at least one, at most `maxRecords` records unless one segment alone
   * is larger) for one export, or null when nothing is waiting. Serialized: claims never overlap.
   */
  claim(maxRecords: number, maxBytes = Number.POSITIVE_INFINITY): Promise<Claim | null> {
    const run = this.claiming.then(() => this.claimNow(maxRecords, maxBytes));
    this.claiming = run.catch(() => undefined);
    return run;
  }

  private async claimNow(maxRecords: number, maxBytes: number): Promise<Claim | null> {
    let segments: Segment[] = [];
    if (this.cursor < this.backlogUpTo) {
      // The bound as read: adopt() may raise it while the read is under way.
      const upTo = this.backlogUpTo;
      segments = await this.o.store.readSegments(this.cursor, upTo, maxRecords, maxBytes);
      if (segments.length === 0) this.cursor = Math.max(this.cursor, upTo);
    }
    if (segments.length === 0) segments = this.ready.take(maxRecords, maxBytes);
    if (segments.length === 0) return null;
    this.cursor = segments[segments.length - 1]!.id;
    let records = 0;
    let bytes = 0;
    for (const s of segments) {
      records += s.records;
      bytes += s.payload.length;
    }
    this.inFlight++;
    return { segments, records, bytes };
  }

  /** Resolves when segments were committed since, or at once when some are waiting to be claimed. */
  waitForData(): Promise<void> {
    if (!this.ready.empty || this.cursor < this.backlogUpTo) return Promise.resolve();
    return new Promise((resolve) => this.dataWaiters.push(resolve));
  }

  /**
   * Deletes a delivered (or rejected) claim. A failed delete (disk full) does not hold delivery up:
   * the claim is settled, and its deletion retried in the background until it succeeds. Its
   * records stay counted in the spool until then; after a restart they would be sent once more.
   */
  async acknowledge(claim: Claim): Promise<void> {
    this.settle();
    await this.deletes.delete(claim);
  }

  private deleted(claim: Claim): void {
    // Never below zero: a claim of a session given up meanwhile was already taken off by resync().
    this.spooledRecords = Math.max(0, this.spooledRecords - claim.records);
    this.spooledBytes = Math.max(0, this.spooledBytes - claim.bytes);
    this.recheckRoom();
  }

  /** The last commit's error while commits fail (disk full, store down), for readiness: no probe needed. */
  get commitError(): string | undefined {
    return this.failStreak > 0 ? this.lastCommitError : undefined;
  }

  /** Delivered claims whose deletion still fails (disk full): readiness reports them. */
  get undeletedClaims(): number {
    return this.deletes.size;
  }

  /** A claim that will not be acknowledged in this process (shutdown): it stays in the store. */
  settle(): void {
    this.inFlight--;
  }

  /**
   * Drops what this spool holds in memory for sessions it no longer owns: pending records (never
   * committed; the new owner reads them again from the checkpoint) and committed segments not yet
   * claimed (they stay in the store and move to the new owner). Call resync() afterwards.
   */
  forget(sessionIds: readonly string[]): void {
    const gone = new Set(sessionIds);
    this.pending.drop(gone);
    for (const s of this.ready.drop(gone)) {
      this.spooledRecords = Math.max(0, this.spooledRecords - s.records);
      this.spooledBytes = Math.max(0, this.spooledBytes - s.payload.length);
    }
    this.recheckRoom();
  }

  /** Recounts the spooled records from the store (after sessions came or went), between commits. */
  resync(): Promise<void> {
    return this.between(async () => {
      const t = await this.o.store.spoolTotals();
      this.spooledRecords = t.records;
      this.spooledBytes = t.bytes;
      this.recheckRoom();
    });
  }

  /**
   * A claimed session's spool came along (renumbered after every id this spool has seen): read it
   * back as backlog. Everything unclaimed is in the store, so the ready queue is read back with it.
   */
  adopt(moved: { records: number; bytes: number; maxId: number }): Promise<void> {
    return this.between(async () => this.adoptNow(moved));
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
      if (claimed.maxId > 0 || claimed.records > 0) this.adoptNow(claimed);
    }).then(() => claimed!);
  }

  private adoptNow(moved: { records: number; bytes: number; maxId: number }): void {
    {
      const lastReady = this.ready.lastId;
      this.ready.clear();
      this.backlogUpTo = Math.max(this.backlogUpTo, moved.maxId, lastReady);
      this.spooledRecords += moved.records;
      this.spooledBytes += moved.bytes;
      const w = this.dataWaiters;
      this.dataWaiters = [];
      for (const resolve of w) resolve();
    }
  }

  /** Runs `fn` between commits: after the one in progress, before the next. */
  private between(fn: () => Promise<void>): Promise<void> {
    const run = (this.committing ?? Promise.resolve(true)).then(fn);
    const tracked: Promise<boolean> = run
      .then(
        () => true,
        () => false,
      )
      .finally(() => {
        if (this.committing === tracked) this.committing = undefined;
      });
    this.committing = tracked;
    return run;
  }

  /** Final commit; wakes every reader waiting for room so it can exit. Delivery may go on draining. Idempotent. */
  readonly close = once(async (): Promise<boolean> => {
    const ok = await this.flush();
    this.closed = true;
    this.clearTimer();
    this.recheckRoom();
    await this.deletes.close();
    return ok;
  });
}
