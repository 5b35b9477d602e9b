// A shared store's bound on what a successor sends again (overflow mode): while checkpoint writes
// fail or hang (a replica cut off from PostgreSQL, the database paused), delivery from memory
// pauses once the oldest acknowledged move has waited the stall (checkpointStallMs) for its write,
// and resumes when a write goes through, the spool closes, or the sessions waited for are given up.
//
// States: running → paused (the oldest unwritten move is older than the stall; said once, with how
// long it waited) → running (said once, with how long the pause lasted and why it ended). The
// embedded store never pauses: a full disk must not stop delivery, and no other process takes the
// sessions over meanwhile.
import type { Emit } from '../vocabulary/facts.js';
import { checkpointStallMs } from './checkpoint-timing.js';

export class CheckpointStall {
  /** Since when delivery from memory has been paused (the spool's clock). */
  private pausedAt: number | undefined;
  /** When a checkpoint write last went through: whether a pause ended by one. */
  private writtenAt = Number.NEGATIVE_INFINITY;

  constructor(
    /** Pauses at all (the shared store's `pauseOnUnwrittenCheckpoints`). */
    private readonly enabled: boolean,
    private readonly commitIntervalMs: number,
    private readonly now: () => number,
    private readonly emit: Emit,
  ) {}

  /** A checkpoint write (alone, or with a spill) went through. */
  written(): void {
    this.writtenAt = this.now();
  }

  /**
   * Whether delivery must not take records from memory now: the oldest acknowledged move not yet
   * written (`unwrittenSince`) has waited longer than the stall. Never once the spool is `closed`:
   * delivery then drains for the grace period, and the checkpoints wait for finish().
   */
  paused(unwrittenSince: number | undefined, closed: boolean): boolean {
    const now = this.now();
    const paused =
      this.enabled &&
      !closed &&
      unwrittenSince !== undefined &&
      now - unwrittenSince > checkpointStallMs(this.commitIntervalMs);
    if (paused && this.pausedAt === undefined) {
      this.pausedAt = now;
      this.emit({ f: 'delivery_paused', waitedMs: now - unwrittenSince });
    } else if (!paused && this.pausedAt !== undefined) {
      // Not always a write that went through: the stop's drain, or the waiting sessions given up (a
      // lease that ran out, writes refused) leave nothing to wait for while the store is still down,
      // its writes failing or hanging.
      const why = closed ? 'closing' : this.writtenAt >= this.pausedAt ? 'written' : 'given_up';
      this.emit({ f: 'delivery_resumed', pausedMs: now - this.pausedAt, why });
      this.pausedAt = undefined;
    }
    return paused;
  }

  /** How long delivery from memory has been paused (ms), for the status; undefined while it runs. */
  get pausedForMs(): number | undefined {
    return this.pausedAt === undefined ? undefined : this.now() - this.pausedAt;
  }
}
