// The ledger of the overflow mode: where each session's durable checkpoint may move.
//
// In `spool.mode: overflow` records wait in memory, so a checkpoint may not move when they are read
// (a kill -9 would lose them): it moves over a position only once the records before it are
// delivered or durably spilled. Per session the ledger keeps the positions the session handed over,
// in read order, one per sealed batch: held (its segment is in memory, waiting or in flight) →
// settled (delivered, spilled to the store, or a batch that carried no record: filtered events). The
// checkpoint moves over the settled run at the head only (Vector's acknowledgements: finalized in
// source order, the checkpoint moves over a contiguous acknowledged run), so it never passes a
// record that is neither delivered nor on disk. Moved checkpoints are "dirty" until the spool writes
// them, all together, once per commit interval. With traces on, a position whose span state was
// not captured (`uncaptured`, session/span-tap.ts) is held and settled like any other, but the
// checkpoint moves only to captured ones: over it to the next captured position once that settles.
// A restart from the checkpoint then always continues the spans from the state of that position. The ledger also knows since when the oldest of
// those moves has waited for its write (`unwrittenSince`): what a crash or a successor would send
// again is what was acknowledged since then, so the spool bounds it by that age (overflow-writer.ts).
import { movableTo, type CheckpointUpdate } from './store.js';

/** Where a checkpoint stands. */
interface Position {
  epoch: number;
  checkpoint: number;
}

interface Entry {
  update: CheckpointUpdate;
  segmentId: number | null;
  settled: boolean;
}

export class Ledger {
  private readonly bySession = new Map<string, Entry[]>();
  private readonly bySegment = new Map<number, Entry>();
  private readonly dirty = new Map<string, CheckpointUpdate>();
  /**
   * The highest position each session's checkpoint reached in this process: it never moves back.
   * The position alone, not the update: an update carries the session's span state (with traces on,
   * the worker's mirror of its spans), which would otherwise stay reachable for as long as the
   * process runs. Dropped by release() once the session's end is recorded.
   */
  private readonly high = new Map<string, Position>();
  private oldestUnwritten: number | undefined;
  /**
   * Sessions whose first move in this process came without a record: written at the next commit,
   * not after the embedded store's wait for bytes (overflow-writer.ts). Two kinds arrive here:
   * - `start: latest`'s baseline (session-records.ts), the one that needs it. Unwritten, a crash
   *   leaves the session unpositioned and the next start takes a new baseline, past whatever the
   *   service sent in between: a loss, not a duplicate (test/integration/delivery/baseline-kill-9).
   * - a session resumed from its stored checkpoint whose first batch here carried no record (its
   *   events filtered out by `mapping.filters`, say). Lost to a crash, it would only be
   *   read again; it is written early because telling it from a baseline here would need the
   *   session's start, and one early write per session and process costs a page.
   */
  private readonly firsts = new Set<string>();

  /** `now`: the clock (epoch ms) that dates moves not yet written. */
  constructor(private readonly now: () => number = Date.now) {}

  /** Records a sealed batch of a session: `segmentId` its memory segment, null when it carried no record. */
  hold(update: CheckpointUpdate, segmentId: number | null): void {
    const q = this.bySession.get(update.sessionId);
    if (segmentId === null && !q) {
      const to = movableTo(update);
      if (to && !this.high.has(update.sessionId)) this.firsts.add(update.sessionId);
      if (to) this.moveTo(to);
      return;
    }
    const e: Entry = { update, segmentId, settled: segmentId === null };
    if (q) q.push(e);
    else this.bySession.set(update.sessionId, [e]);
    if (segmentId !== null) this.bySegment.set(segmentId, e);
  }

  /** The segment was delivered or is on disk now; false when the ledger does not know it (forgotten). */
  settle(segmentId: number): boolean {
    const e = this.bySegment.get(segmentId);
    if (!e) return false;
    this.bySegment.delete(segmentId);
    e.settled = true;
    this.advance(e.update.sessionId);
    return true;
  }

  private advance(sessionId: string): void {
    const q = this.bySession.get(sessionId);
    if (!q) return;
    let last: CheckpointUpdate | undefined;
    while (q.length > 0 && q[0]!.settled) {
      const e = q.shift()!;
      last = movableTo(e.update) ?? last;
    }
    if (q.length === 0) this.bySession.delete(sessionId);
    if (last) this.moveTo(last);
  }

  private moveTo(u: CheckpointUpdate): void {
    const h = this.high.get(u.sessionId);
    // A session followed again from an older checkpoint (a worker died) re-reads what it had read.
    // A move to the same position that carries a span state is written for that state: the
    // session's end closed its spans after its last batch (session-records.ts capture).
    const same = h !== undefined && h.epoch === u.epoch && h.checkpoint === u.checkpoint;
    if (h && (h.epoch > u.epoch || (h.epoch === u.epoch && h.checkpoint > u.checkpoint) || (same && !u.spans))) return;
    this.high.set(u.sessionId, { epoch: u.epoch, checkpoint: u.checkpoint });
    if (this.dirty.size === 0) this.oldestUnwritten = this.now();
    this.dirty.set(u.sessionId, u);
  }

  /**
   * The checkpoints to write: every dirty one, and where the sessions of `spilling` would stand once
   * those segments are on disk (written in the same transaction as they are). Changes nothing.
   */
  pending(spilling: ReadonlySet<number> = new Set()): CheckpointUpdate[] {
    const out = new Map(this.dirty);
    const sessions = new Set<string>();
    for (const id of spilling) {
      const e = this.bySegment.get(id);
      if (e) sessions.add(e.update.sessionId);
    }
    for (const sessionId of sessions) {
      let last: CheckpointUpdate | undefined;
      for (const e of this.bySession.get(sessionId) ?? []) {
        if (!e.settled && !(e.segmentId !== null && spilling.has(e.segmentId))) break;
        last = movableTo(e.update) ?? last;
      }
      const h = this.high.get(sessionId);
      if (last && !(h && (h.epoch > last.epoch || (h.epoch === last.epoch && h.checkpoint >= last.checkpoint))))
        out.set(sessionId, last);
    }
    return [...out.values()];
  }

  /**
   * These checkpoints are in the store: they are no longer dirty unless they moved on meanwhile.
   * `takenAt` is when they were taken from pending(): whatever is still dirty moved after that.
   */
  written(updates: readonly CheckpointUpdate[], takenAt: number): void {
    for (const u of updates) {
      const d = this.dirty.get(u.sessionId);
      if (d && d.epoch === u.epoch && d.checkpoint === u.checkpoint) this.dirty.delete(u.sessionId);
      this.firsts.delete(u.sessionId);
    }
    if (this.dirty.size === 0) this.oldestUnwritten = undefined;
    else if (this.oldestUnwritten !== undefined) this.oldestUnwritten = Math.max(this.oldestUnwritten, takenAt);
  }

  /** When the oldest move not yet written happened (epoch ms); undefined when every move is written. */
  get unwrittenSince(): number | undefined {
    return this.oldestUnwritten;
  }

  /** A dirty move is a session's first position, come without a record: to be written now. */
  get firstPositions(): boolean {
    return this.firsts.size > 0;
  }

  get dirtyCount(): number {
    return this.dirty.size;
  }

  /** True while the session has records neither delivered nor on disk. */
  holds(sessionId: string): boolean {
    return this.bySession.has(sessionId);
  }

  /**
   * The session's end is recorded (every record of it delivered or on disk, its checkpoint written):
   * what the ledger still knows of it goes, so that a process following sessions that come and go
   * does not keep one entry for every session it ever followed. Followed again, the session starts
   * from its stored checkpoint, the position dropped here. Kept while anything of it is held or
   * unwritten (it was followed again meanwhile).
   */
  release(sessionId: string): void {
    if (this.bySession.has(sessionId) || this.dirty.has(sessionId)) return;
    this.high.delete(sessionId);
    this.firsts.delete(sessionId);
  }

  /** How many sessions the ledger knows anything of (for the tests: ended ones must not stay). */
  get sessionsKnown(): number {
    return new Set([...this.bySession.keys(), ...this.dirty.keys(), ...this.high.keys(), ...this.firsts]).size;
  }

  /** Drops sessions given up: their new owner (or the next follow) starts from the stored checkpoint. */
  forget(sessionIds: ReadonlySet<string>): void {
    for (const id of sessionIds) {
      for (const e of this.bySession.get(id) ?? []) if (e.segmentId !== null) this.bySegment.delete(e.segmentId);
      this.bySession.delete(id);
      this.dirty.delete(id);
      this.high.delete(id);
      this.firsts.delete(id);
    }
    if (this.dirty.size === 0) this.oldestUnwritten = undefined;
  }
}
