// The spool: the queue between the sessions (which append encoded records) and delivery (which
// claims batches, exports them and acknowledges them). It owns its room and back-pressure.
//
// Two modes (`spool.mode`, docs/design.md "Delivery semantics"):
//   - overflow (the default): the service can replay, so records wait in memory. A record's life:
//     appended → pending (memory, per session) → sealed (a memory segment, id < 0, in the ready
//     queue) → in flight → acknowledged; its session's checkpoint moves only then (ledger.ts) and
//     is written, for every session that moved, once per commit interval. When the collector does
//     not take records fast enough (what memory holds passes `memoryMaxBytes`, or the oldest
//     waiting segment is older than `memoryMaxAgeMs`), what waits in memory spills to the store in
//     one transaction with the checkpoints it makes durable, and becomes the backlog; while a
//     backlog exists new records spill too, so each session's records keep their order. A kill -9
//     loses memory only: the service replays from the checkpoint (its ring buffer, then the archive).
//   - always: every record is committed to the store before its checkpoint moves (one transaction
//     for every session's segment and checkpoint); freshly committed segments are handed to
//     delivery from memory and read back from the store only as a backlog.
//
// Commits (seals) run when `commitMaxRecords` are pending or `commitIntervalMs` after the first
// pending record, one at a time. A failed write (disk full, I/O error) keeps everything where it
// was, is reported and retried with backoff. Claims are serialized: the store's backlog, in id
// order up to `backlogUpTo`, goes before the ready queue, so the two never overlap.
//
// Room: the spool is full while a needed write is failing or due, while the process is over its
// memory budget, or while what must go to disk reaches `maxBytes` or what the volume's free space
// allows (disk-room.ts); then appenders wait in waitForRoom() (the service buffers meanwhile; what
// it evicts becomes a gap record). In overflow mode the disk counts only when a spill is due: a
// full volume with a healthy collector costs nothing but checkpoint writes that are retried. Failed
// deletes are retried in the background (deferred-deletes.ts) without holding delivery up; each
// commit first retries them: space an operator frees on a full volume goes to deletes (and
// SQLite's log) before new segments, so one free is enough to recover.
//
// With a shared store, sessions come and go at run time: a write refused because another replica
// owns some of its sessions now (FencedError) drops what is held for those sessions and writes the
// rest; forget() drops a session given up; adopt() makes a claimed session's spool backlog.
import { FencedError, type Store } from './store.js';
import type { NewSegment, Segment } from '../wire/segment-framing.js';
import { DeferredDeletes } from './deferred-deletes.js';
import { DiskRoom, type FreeSpace } from './disk-room.js';
import { PendingSegments } from './pending-segments.js';
import { ReadyQueue } from './ready-queue.js';
import { Ledger } from './ledger.js';
import type { SpoolMode } from '../config/schema.js';
import { once } from '../util/lifecycle.js';
import { ignoreFacts, type Emit } from '../vocabulary/facts.js';

/** Overflow mode: moved checkpoints are written at most this often (or at each commit, if that is rarer). */
export const CHECKPOINT_INTERVAL_MS = 1000;

/** Pending bytes that make a commit due (and readers wait for it): memory stays bounded with large records. */
export const COMMIT_MAX_BYTES = 8 * 1024 * 1024;

export interface SpoolOptions {
  store: Store;
  /** overflow (default): memory first, the store takes what the collector cannot; always: every record on disk first. */
  mode?: SpoolMode;
  maxBytes: number;
  /**
   * always: committed segments kept in memory for delivery; beyond it they are read back from the
   * store. overflow: the bytes records may hold in memory (waiting and in flight) before they spill.
   */
  memoryMaxBytes: number;
  /** overflow: a segment waiting longer than this spills (the collector falls behind). Default 10 s. */
  memoryMaxAgeMs?: number;
  /** The clock, epoch ms (tests inject one). */
  now?: () => number;
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

  private readonly mode: SpoolMode;
  private readonly now: () => number;
  private readonly maxAgeMs: number;
  /** Overflow mode: the sealed memory segments not yet delivered (waiting or in flight), by id (< 0). */
  private readonly memory = new Map<number, { segment: Segment; sealedAt: number }>();
  private memoryRecords = 0;
  private memoryBytes = 0;
  private nextMemoryId = -1;
  private readonly ledger = new Ledger();
  /** Sessions whose records must reach the disk at the next commit (their end is about to be recorded). */
  private readonly persisting = new Set<string>();
  private ledgerWaiters: Array<() => void> = [];
  /** After delivery stopped: everything still in memory goes to the store. */
  private finishing = false;
  private checkpointFailStreak = 0;
  private checkpointsWrittenAt = 0;
  /** Set by an explicit flush: the next commit writes the moved checkpoints whatever their interval. */
  private checkpointsNow = false;
  private ageTimer: NodeJS.Timeout | undefined;

  private constructor(private readonly o: SpoolOptions) {
    this.mode = o.mode ?? 'overflow';
    this.now = o.now ?? Date.now;
    this.maxAgeMs = o.memoryMaxAgeMs ?? 10_000;
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
    if (this.o.memoryPressure?.()) return true;
    // Readers pause as soon as a full commit is due, until it is done: reading then runs at the pace
    // of the commits and cannot flood the event loop (with a thousand sessions, each overshoots by
    // at most the chunk it is parsing).
    if (this.commitDue) return true;
    // Memory first and within its window: the disk is not in the way (a full volume included).
    if (this.mode === 'overflow' && !this.spillDue()) return false;
    if (this.failStreak > 0) return true;
    // Deletes that cannot be written (a full volume): reading more would take the room they need.
    if (this.deletes.size > 0) return true;
    return (
      this.spooledBytes + this.ready.bytes * (this.mode === 'overflow' ? 1 : 0) + this.pending.bytes >=
      this.limitBytes()
    );
  }

  /**
   * Overflow mode: what waits in memory must go to the store now: the collector does not take it
   * fast enough (held bytes or age past the window), a backlog is being read (new records queue
   * behind it, so each session keeps its order), or delivery has stopped.
   */
  private spillDue(): boolean {
    if (this.finishing) return true;
    if (this.cursor < this.backlogUpTo) return true;
    if (this.memoryBytes + this.pending.bytes > this.o.memoryMaxBytes) return true;
    const head = this.ready.first();
    return head !== undefined && this.now() - (this.memory.get(head.id)?.sealedAt ?? Infinity) > this.maxAgeMs;
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

  /** Records read and not yet acknowledged (in memory or on disk), with their bytes; in-flight ones included. */
  get spooled(): { records: number; bytes: number } {
    return { records: this.spooledRecords + this.memoryRecords, bytes: this.spooledBytes + this.memoryBytes };
  }

  /** What of it is in the store (spilled, or every record in `always` mode). */
  get onDisk(): { records: number; bytes: number } {
    return { records: this.spooledRecords, bytes: this.spooledBytes };
  }

  /** Event time of the oldest record held only in memory (Unix microseconds), null when none. */
  get oldestInMemoryTsMicros(): number | null {
    let oldest: number | null = null;
    for (const { segment } of this.memory.values())
      if (oldest === null || segment.oldestTsMicros < oldest) oldest = segment.oldestTsMicros;
    return oldest;
  }

  /** The mode the spool runs in. */
  get spoolMode(): SpoolMode {
    return this.mode;
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
      this.pending.records === 0 &&
      this.spooledRecords === 0 &&
      this.memoryRecords === 0 &&
      this.inFlight === 0 &&
      this.committing === undefined
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
          void this.flush(false);
        });
      }
    } else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(false), this.o.commitIntervalMs);
    }
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
  }

  /**
   * Commits everything pending now (after a commit in progress). Resolves false when it failed (it
   * is retried). Overflow mode: an explicit flush also writes the checkpoints acknowledgements
   * moved; the spool's own timers write them at most once per CHECKPOINT_INTERVAL_MS.
   */
  flush(checkpoints = true): Promise<boolean> {
    if (checkpoints) this.checkpointsNow = true;
    this.clearTimer();
    const run = (this.committing ?? Promise.resolve(true)).then(() => this.commitNow());
    const tracked: Promise<boolean> = run.finally(() => {
      if (this.committing === tracked) this.committing = undefined;
    });
    this.committing = tracked;
    return tracked;
  }

  private async commitNow(): Promise<boolean> {
    if (this.mode === 'overflow') return this.sealNow();
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
      this.writeFailed(err as Error);
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

  private writeFailed(err: Error): void {
    this.failStreak++;
    this.lastCommitError = err.message;
    this.emit({
      f: 'commit_failed',
      error: err.message,
      code: (err as { code?: string }).code,
      streak: this.failStreak,
    });
    if (!this.closed || this.finishing) {
      this.clearTimer();
      const delay = Math.min(100 * 2 ** Math.min(this.failStreak, 6), 5000);
      this.timer = setTimeout(() => void this.flush(false), delay);
    }
  }

  /**
   * Overflow mode's commit: what is pending becomes memory segments (the ledger holds their
   * positions); then, when a spill is due, what waits in memory goes to the store with the
   * checkpoints it makes durable, else the checkpoints that acknowledgements moved are written.
   */
  private async sealNow(): Promise<boolean> {
    if (this.pending.sessions > 0) {
      const batch = this.pending.take();
      this.pending.committed(batch);
      const bySession = new Map<string, Segment>();
      const sealedAt = this.now();
      for (const seg of batch.segments) {
        const segment: Segment = { ...seg, id: this.nextMemoryId-- };
        bySession.set(seg.sessionId, segment);
        this.memory.set(segment.id, { segment, sealedAt });
        this.memoryRecords += segment.records;
        this.memoryBytes += segment.payload.length;
        this.ready.push(segment);
      }
      for (const c of batch.checkpoints) this.ledger.hold(c, bySession.get(c.sessionId)?.id ?? null);
      if (batch.segments.length > 0) this.wakeReaders();
      this.scheduleAgeCheck();
    }
    if (this.spillDue()) {
      // In transactions of bounded size, and only as far as the disk has room: what does not fit
      // stays in memory, over the window, and readers wait (full) until delivery or room frees some.
      while (this.spillDue() && !this.ready.empty) {
        const room = Math.min(
          Math.max(COMMIT_MAX_BYTES, this.ready.first()!.payload.length),
          this.limitBytes() - this.spooledBytes,
        );
        const some = this.ready.takeBytes(Math.max(0, room));
        if (some.length === 0) break;
        if (!(await this.spill(some))) return false;
      }
      return this.writeCheckpoints();
    }
    if (this.persisting.size > 0) {
      const some = this.ready.drop(this.persisting);
      if (some.length > 0) return this.spill(some);
    }
    if (this.failStreak > 0) {
      // The spill that failed is not needed any more: the collector took what waited.
      this.failStreak = 0;
      this.emit({ f: 'commit_recovered' });
    }
    this.recheckRoom();
    return this.writeCheckpoints();
  }

  /** Writes the checkpoints acknowledgements moved. A failure only delays them (and is retried). */
  private async writeCheckpoints(): Promise<boolean> {
    if (this.ledger.dirtyCount === 0) return true;
    // One write a second at most: each is a page of the database and its log, whatever it carries;
    // a crash then sends again at most that much more (what a second acknowledged).
    const interval = Math.max(this.o.commitIntervalMs, CHECKPOINT_INTERVAL_MS);
    if (!this.checkpointsNow && this.now() - this.checkpointsWrittenAt < interval) {
      this.scheduleCheckpoints();
      return true;
    }
    this.checkpointsNow = false;
    this.checkpointsWrittenAt = this.now();
    // Deletes first: on a volume that was full, what was freed must go to them.
    if (this.deletes.size > 0) await this.deletes.retryNow();
    const updates = this.ledger.pending();
    try {
      await this.o.store.commit([], updates);
    } catch (err) {
      if (err instanceof FencedError) {
        this.fenced(err.sessionIds);
        return this.writeCheckpoints();
      }
      this.checkpointFailStreak++;
      this.emit({
        f: 'commit_failed',
        error: (err as Error).message,
        code: (err as { code?: string }).code,
        streak: this.checkpointFailStreak,
        checkpointsOnly: true,
      });
      this.scheduleCheckpoints();
      return false;
    }
    if (this.checkpointFailStreak > 0) this.emit({ f: 'commit_recovered' });
    this.checkpointFailStreak = 0;
    this.ledger.written(updates);
    this.wakeLedger();
    return true;
  }

  /** Overflow mode: memory segments go to the store, with the checkpoints that moves; they become backlog. */
  private async spill(segments: Segment[]): Promise<boolean> {
    if (segments.length === 0) return this.writeCheckpoints();
    if (this.deletes.size > 0) await this.deletes.retryNow();
    const ids = new Set(segments.map((s) => s.id));
    const updates = this.ledger.pending(ids);
    let stored: number[];
    try {
      stored = await this.o.store.commit(segments, updates);
    } catch (err) {
      // Still in memory, in order: delivery goes on taking them meanwhile.
      this.ready.unshift(segments.filter((s) => this.memory.has(s.id)));
      if (err instanceof FencedError) {
        this.fenced(err.sessionIds);
        return this.sealNow();
      }
      this.writeFailed(err as Error);
      return false;
    }
    if (this.failStreak > 0) this.emit({ f: 'commit_recovered' });
    this.failStreak = 0;
    for (let i = 0; i < segments.length; i++) {
      const s = segments[i]!;
      const held = this.memory.get(s.id);
      if (held) {
        this.memory.delete(s.id);
        this.memoryRecords -= s.records;
        this.memoryBytes -= s.payload.length;
      }
      this.ledger.settle(s.id);
      this.spooledRecords += s.records;
      this.spooledBytes += s.payload.length;
    }
    this.ledger.written(updates);
    if (stored.length > 0) this.backlogUpTo = Math.max(this.backlogUpTo, stored[stored.length - 1]!);
    this.wakeReaders();
    this.wakeLedger();
    this.recheckRoom();
    return true;
  }

  private fenced(sessionIds: readonly string[]): void {
    // Not ours any more: what we read of them is the new owner's to read again from the checkpoint.
    this.forget(sessionIds);
    this.emit({ f: 'writes_fenced', sessions: sessionIds });
    for (const w of this.fencedWatchers) w(sessionIds);
  }

  private wakeReaders(): void {
    const w = this.dataWaiters;
    this.dataWaiters = [];
    for (const resolve of w) resolve();
  }

  private wakeLedger(): void {
    const w = this.ledgerWaiters;
    this.ledgerWaiters = [];
    for (const resolve of w) resolve();
  }

  /** A commit after the interval when acknowledgements moved checkpoints and nothing else is due. */
  private scheduleCheckpoints(): void {
    if (this.timer || this.immediate || (this.closed && !this.finishing)) return;
    this.timer = setTimeout(() => void this.flush(false), this.o.commitIntervalMs);
  }

  /** Segments waiting in memory spill once they are older than the window, new records or not. */
  private scheduleAgeCheck(): void {
    if (this.ageTimer || this.closed) return;
    this.ageTimer = setTimeout(
      () => {
        this.ageTimer = undefined;
        if (this.ready.empty || this.mode !== 'overflow') return;
        if (this.spillDue()) void this.flush(false);
        this.scheduleAgeCheck();
      },
      Math.max(this.o.commitIntervalMs, Math.min(this.maxAgeMs, 1000)),
    );
    this.ageTimer.unref();
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
    // Memory segments (ids < 0) are not in the store: only store ids move the cursor.
    this.cursor = Math.max(this.cursor, segments[segments.length - 1]!.id);
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
    this.inFlight--;
    let stored: Claim | undefined;
    for (const s of claim.segments) {
      if (s.id < 0) {
        this.dropMemory(s);
        this.ledger.settle(s.id);
      } else {
        stored ??= { segments: [], records: 0, bytes: 0 };
        stored.segments.push(s);
        stored.records += s.records;
        stored.bytes += s.payload.length;
      }
    }
    if (this.ledger.dirtyCount > 0) this.scheduleCheckpoints();
    this.wakeLedger();
    this.recheckRoom();
    if (stored) await this.deletes.delete(stored.segments.length === claim.segments.length ? claim : stored);
  }

  private dropMemory(s: Segment): void {
    if (!this.memory.delete(s.id)) return;
    this.memoryRecords -= s.records;
    this.memoryBytes -= s.payload.length;
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

  /**
   * A claim that will not be acknowledged (shutdown, or its sessions were handed over): what is on
   * disk stays there; memory segments still held go back to the front of the queue (finish() then
   * spills them).
   */
  release(claim: Claim): void {
    this.inFlight--;
    this.ready.unshift(claim.segments.filter((s) => s.id < 0 && this.memory.has(s.id)));
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
      if (s.id < 0) continue;
      this.spooledRecords = Math.max(0, this.spooledRecords - s.records);
      this.spooledBytes = Math.max(0, this.spooledBytes - s.payload.length);
    }
    // Memory segments of those sessions, waiting or in flight: the new owner reads them again.
    for (const { segment } of [...this.memory.values()]) if (gone.has(segment.sessionId)) this.dropMemory(segment);
    this.ledger.forget(gone);
    this.wakeLedger();
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
      // Overflow mode: the ready queue holds memory segments only (the store has no copy); they stay.
      const lastReady = this.mode === 'always' ? this.ready.lastId : 0;
      if (this.mode === 'always') this.ready.clear();
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
    this.persisting.add(sessionId);
    try {
      await this.flush();
      while (this.ledger.holds(sessionId) && !this.finishing)
        await new Promise<void>((resolve) => this.ledgerWaiters.push(resolve));
      await this.flush();
    } finally {
      this.persisting.delete(sessionId);
    }
  }

  /** Final commit; wakes every reader waiting for room so it can exit. Delivery may go on draining. Idempotent. */
  readonly close = once(async (): Promise<boolean> => {
    const ok = await this.flush();
    this.closed = true;
    this.clearTimer();
    this.recheckRoom();
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
    this.finishing = true;
    this.wakeLedger();
    if (this.ageTimer) clearTimeout(this.ageTimer);
    const ok = await this.flush();
    this.clearTimer();
    await this.deletes.close();
    return ok;
  });
}
