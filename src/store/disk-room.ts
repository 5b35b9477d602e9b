// How much the spool may hold on its volume: max_bytes, or less when the volume has less free space
// than that. A default larger than the volume must not fill it: then nothing, not even a delete or a
// checkpoint, can be written any more. Free space comes from the caller (statfs of the state
// directory plus the pages SQLite can reuse) and is looked up once a second, or sooner when a burst
// used a good part of what was free.

import { steadyNow } from '../util/steady-clock.js';

const EVERY_MS = 1000;

/** Kept free for SQLite's own needs (WAL, deletes, checkpoints): a sixth of the volume, 8 to 64 MiB. */
const reserveFor = (total: number): number => Math.min(64 * 1024 * 1024, Math.max(8 * 1024 * 1024, total / 6));

export type FreeSpace = () => { free: number; total: number } | undefined;

export class DiskRoom {
  private checkedAt = 0;
  private usedAtCheck = 0;
  private free: { free: number; total: number } | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly freeSpace: FreeSpace | undefined,
  ) {}

  /**
   * The limit for spooled bytes, given what is spooled (on disk) and used (spooled + pending).
   * `looked` is told when free space was looked up anew (waiters may recheck a second later).
   */
  limit(spooled: number, used: number, looked?: () => void): number {
    if (!this.freeSpace) return this.maxBytes;
    // The steady clock: a wall clock stepped back must not hold the last look for the step's length.
    const now = steadyNow();
    const stale =
      this.free === undefined || used - this.usedAtCheck > (this.free.free - reserveFor(this.free.total)) / 4;
    if (now - this.checkedAt >= EVERY_MS || (stale && now !== this.checkedAt)) {
      this.checkedAt = now;
      this.usedAtCheck = used;
      this.free = this.freeSpace();
      if (this.free !== undefined) looked?.();
    }
    if (this.free === undefined) return this.maxBytes;
    // A third of what is free beyond the reserve: until the WAL is checkpointed a record takes its
    // bytes twice (WAL and database), and a checkpoint needs room to grow the database meanwhile.
    const usable = Math.max(0, this.free.free - reserveFor(this.free.total)) / 3;
    return Math.min(this.maxBytes, spooled + usable);
  }

  /** The volume as the last look found it, with the reserve kept of it; undefined before a look or when unknown. */
  lastLook(): { free: number; reserve: number } | undefined {
    return this.free && { free: this.free.free, reserve: reserveFor(this.free.total) };
  }
}
