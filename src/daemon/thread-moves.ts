// Sessions moving between threads: followed again from their checkpoints after an ingest worker
// died (refollow), or moved from this thread to the ingest workers once `workers: auto` started them
// (toWorkers). Apart from the supervisor because a move is its own sequence: stop, let what was
// read settle (delivered or spilled, and checkpointed), then follow again from the checkpoint the
// store holds, so nothing is read twice or skipped.
import type { Spool } from '../store/spool.js';
import type { SessionRow, Store } from '../store/store.js';
import type { IngestWorkers } from '../ingest/worker-group.js';
import type { FollowedSessions } from './followed-sessions.js';
import { MOVE_SETTLE_MS, settleWithin } from './lifecycle-recorder.js';

/** What a move needs of the supervisor. */
export interface MoveHost {
  active: FollowedSessions;
  spool: Spool;
  store: Store;
  ingest: IngestWorkers | undefined;
  /** True once the stop began: nothing is followed again. */
  stopping(): boolean;
  /** With the shared store the next ownership pass follows again what this replica still owns. */
  owned: boolean;
  /** Follows each row while there is room; the rest wait for it. */
  followOrWait(rows: readonly SessionRow[]): void;
  /** A move is over (its sessions followed again or given up): the run may be over now. */
  moved(): void;
}

export class ThreadMoves {
  constructor(private readonly h: MoveHost) {}

  /**
   * An ingest worker died with these sessions: what it posted is committed, and they are followed
   * again from the checkpoints the store now holds (what it had read and not posted is read again).
   */
  async refollow(ids: readonly string[]): Promise<void> {
    const h = this.h;
    // Moving until followed again: the commit below ends with the spool idle, and with the sessions
    // counted nowhere a run waiting for its sessions to end took that for its end.
    for (const id of ids) h.active.move(id);
    try {
      await h.spool.flush();
      // Shared store: the next ownership pass follows again whichever of them this replica still owns.
      if (h.owned) return;
      const rows = new Map((await h.store.sessions()).map((r) => [r.spec.id, r]));
      const again = ids.map((id) => rows.get(id)).filter((r): r is SessionRow => r?.lifecycle === 'active');
      if (!h.stopping()) h.followOrWait(again);
    } finally {
      h.active.moved(ids);
      h.moved();
    }
  }

  /**
   * The ingest workers started (worker-scaling.ts): the sessions this thread reads move to them,
   * each stopped, committed and followed again from its checkpoint, as after a worker's death.
   */
  async toWorkers(): Promise<void> {
    const h = this.h;
    if (h.stopping() || !h.ingest?.ready) return;
    const moving = h.active.onThisThread();
    if (moving.length === 0) return;
    // They are followed again from the durable checkpoint, so what they read must settle first
    // (delivered, or spilled, and checkpointed) or it is read twice. With the store failing or a
    // backlog waiting for the collector it would not settle in time: the move waits for health.
    const spool = h.spool;
    if (spool.commitError !== undefined || spool.onDisk.records > 0) {
      setTimeout(() => void this.toWorkers(), MOVE_SETTLE_MS).unref();
      return;
    }
    await Promise.all(moving.map((id) => h.active.get(id)!.stop()));
    await settleWithin(Promise.all(moving.map((id) => spool.persist(id))), MOVE_SETTLE_MS);
    await this.refollow(moving);
  }
}
