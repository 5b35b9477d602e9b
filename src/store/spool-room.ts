// The spool's room: when appenders must stop reading, and waking them once they may go on.
//
// The spool is full while a needed write is failing or due, while the process is over its memory
// budget, or while what must go to disk reaches `maxBytes` or what the volume's free space allows
// (disk-room.ts); then appenders wait in waitForRoom() (the service buffers meanwhile; what it
// evicts becomes a gap record). In overflow mode the disk counts only when a spill is due: a full
// volume with a healthy collector costs nothing but checkpoint writes that are retried. Deletes that
// cannot be written count too: reading more would take the room they need.
import { DiskRoom, type FreeSpace } from './disk-room.js';
import { ignoreFacts, type Emit } from '../vocabulary/facts.js';

/** What the room is decided from, read from the writer and the spool's contents when asked. */
export interface RoomGauges {
  /** True while the process is over its memory budget. */
  memoryPressure?: () => boolean;
  /** A full commit is due. */
  commitDue(): boolean;
  /** The disk is in the way: always in `always` mode, in overflow mode only while a spill is due. */
  diskNeeded(): boolean;
  /** A needed write is failing (and retried). */
  writeFailing(): boolean;
  /** Delivered batches whose deletion still fails. */
  undeleted(): number;
  /** Bytes in the store, not yet acknowledged. */
  storedBytes(): number;
  /** Bytes pending a commit. */
  pendingBytes(): number;
  /** Bytes that must go to disk: the stored ones, the pending ones and, in overflow mode, what waits in memory. */
  mustStoreBytes(): number;
  /** The spool closed: nobody waits for room any more. */
  closed(): boolean;
}

export class SpoolRoom {
  private readonly disk: DiskRoom;
  private waiters: Array<() => void> = [];
  /** Times reading began to wait on a full volume; `saidFull` while that wait lasts. */
  private fullTimes = 0;
  private saidFull = false;

  constructor(
    private readonly maxBytes: number,
    freeBytes: FreeSpace | undefined,
    private readonly g: RoomGauges,
    private readonly emit: Emit = ignoreFacts,
  ) {
    this.disk = new DiskRoom(maxBytes, freeBytes);
  }

  /** True when appenders must stop reading. */
  get full(): boolean {
    if (this.g.memoryPressure?.()) return true;
    // Readers pause as soon as a full commit is due, until it is done: reading then runs at the pace
    // of the commits and cannot flood the event loop (with a thousand sessions, each overshoots by
    // at most the chunk it is parsing).
    if (this.g.commitDue()) return true;
    // Memory first and within its window: the disk is not in the way (a full volume included).
    if (!this.g.diskNeeded()) return false;
    if (this.g.writeFailing()) return true;
    // Deletes that cannot be written (a full volume): reading more would take the room they need.
    if (this.g.undeleted() > 0) return true;
    return this.g.mustStoreBytes() >= this.limitBytes();
  }

  /** The bytes the store may hold now: `maxBytes`, or less when the volume's free space says so. */
  limitBytes(): number {
    const stored = this.g.storedBytes();
    return this.disk.limit(stored, stored + this.g.pendingBytes(), () => {
      if (this.waiters.length > 0) setTimeout(() => this.recheck(), 1000).unref();
    });
  }

  /** True when the volume's free space, not max_bytes, is what limits the spool now. */
  get limitedByDisk(): boolean {
    return this.limitBytes() < this.maxBytes;
  }

  /**
   * What the volume had free at the last look (with the reserve kept of it) while the volume, not
   * `maxBytes`, is what keeps the spool full: reading waits for room on it. Undefined otherwise.
   */
  get heldByDisk(): { free: number; reserve: number } | undefined {
    if (!this.g.diskNeeded() || this.g.writeFailing() || this.g.undeleted() > 0) return undefined;
    const limit = this.limitBytes();
    if (limit >= this.maxBytes || this.g.mustStoreBytes() < limit) return undefined;
    return this.disk.lastLook();
  }

  /**
   * The volume holds reading back (heldByDisk) and delivering what is spooled would not free enough
   * of it: something else filled the volume, or it is smaller than the reserve. Only freeing space
   * there ends it, and no spool figure moves meanwhile. Not while records wait in memory to spill
   * (overflow mode): delivering them ends the need for the disk, as a collector outage ends.
   */
  get volumeFull(): { free: number; reserve: number } | undefined {
    const stored = this.g.storedBytes();
    if (this.g.mustStoreBytes() > stored + this.g.pendingBytes()) return undefined;
    const held = this.heldByDisk;
    return held && held.free + stored <= held.reserve ? held : undefined;
  }

  /** Resolves once there is room (or the spool closed). */
  waitForRoom(): Promise<void> {
    if (!this.full || this.g.closed()) return Promise.resolve();
    const full = this.saidFull ? undefined : this.volumeFull;
    if (full) {
      this.saidFull = true;
      this.emit({ f: 'volume_full', freeBytes: full.free, reserveBytes: full.reserve, times: ++this.fullTimes });
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Appenders currently paused in waitForRoom() (back-pressure in effect). */
  get paused(): number {
    return this.waiters.length;
  }

  /** Wakes appenders if there is room now (after memory pressure ended, for one). */
  recheck(): void {
    if (this.waiters.length === 0 || (this.full && !this.g.closed())) return;
    const w = this.waiters;
    this.waiters = [];
    if (this.saidFull) {
      this.saidFull = false;
      // Woken by the spool's close, reading does not go on: nothing to say.
      if (!this.g.closed()) this.emit({ f: 'volume_room', times: this.fullTimes });
    }
    for (const resolve of w) resolve();
  }
}
