// The shared-store side of the supervisor: turns the ownership loop's decisions (rebalancer.ts)
// into following and stopping sessions, moving their spool with them, and keeps the counters.
//
//   claimed     → the spool adopts the moved backlog (claimed and adopted with no commit of this
//                 spool in between: Spool.adoptClaimed), then the session is followed from its checkpoint
//   handed over → stop reading, commit what was read, release (no owner, new epoch), drop from memory
//   finished    → (removed or ended through any replica) the same as a hand-over
//   lost        → another replica owns it (our lease ran out): stop reading; nothing more can be
//                 written for it (fenced), what was pending is dropped, its spool stays with it
//   lease expired (local deadline) → every session is treated as lost; claimed afresh, at a new
//                 epoch, once the lease is renewed and placement gives them back
//   fenced write  → the store refused a commit for a session: lost, as above
//   paused        → the monotonic clock jumped (GC pause, SIGSTOP, a frozen VM): delivery sends
//                 nothing more (sendGate) until an ownership pass renewed the lease and learned
//                 which sessions were lost meanwhile; their claimed records are not sent
// These steps run one at a time (a queue): a session is never stopped for one reason while it is
// being started for another, so there is at most one reader per session in this process.
import type { Logger } from 'pino';
import type { Emit } from '../vocabulary/facts.js';
import { once } from '../util/lifecycle.js';
import { Lease } from './lease.js';
import { Rebalancer } from './rebalancer.js';
import { truncateDrainedGenerations } from '../store/pg-spool-rotation.js';
import type { Claimed, PgStore } from '../store/pg-store.js';
import { sessionsWithSpool } from './ownership-view.js';
import type { Spool } from '../store/spool.js';
import type { SendGate } from '../export/delivery.js';
import type { SessionRow } from '../store/store.js';

const READY: Promise<void> = Promise.resolve();

/** How often drained spool generations are looked for. */
const ROTATION_INTERVAL_MS = 15_000;

export interface OwnedSessionsHost {
  follow(row: SessionRow): void;
  /** Stops reading the session (if followed here) and forgets its pipeline; `finished`: removed or ended. */
  unfollow(id: string, finished?: boolean): Promise<void>;
  isFollowed(id: string): boolean;
  /** Applies a spec changed through another replica (attributes, db) to a followed session. */
  respecify(row: SessionRow): void;
  /** After every ownership pass. */
  ticked?(): void;
}

export interface OwnershipOptions {
  store: PgStore;
  spool: Spool;
  leaseMs: number;
  /** Where lease and hand-over facts go (metrics and log lines). */
  emit: Emit;
  log: Logger;
  host: OwnedSessionsHost;
}

export class Ownership {
  readonly lease: Lease;
  private readonly rebalancer: Rebalancer;
  /** Active sessions in the store at the last tick (for `run --until-ended`); -1 before the first. */
  activeSessions = -1;
  private stopped = false;
  private rotation: NodeJS.Timeout | undefined;
  /** A gap in the monotonic clock longer than this is a pause after which the lease is checked. */
  private readonly pauseMs: number;
  private lastBeat = performance.now();
  private heartbeat: NodeJS.Timeout | undefined;
  /** The longest pause seen and not yet checked (0: none). */
  private pausedMs = 0;
  private checking: Promise<void> | undefined;
  /** Everything given up (close): nothing is owned, so nothing can be sent; stop checking. */
  private closed = false;

  /** What delivery waits for before each send: after a pause, the lease checked; what is still owned. */
  readonly sendGate: SendGate = {
    ready: () => this.readyToSend(),
    owns: (id) => this.o.store.ownedSessions().has(id),
  };

  constructor(private readonly o: OwnershipOptions) {
    const { emit, log } = o;
    this.pauseMs = Math.max(200, Math.min(2000, o.leaseMs / 10));
    let failing = false;
    this.lease = new Lease({
      db: o.store.leaseDb,
      replicaId: o.store.replicaId,
      leaseMs: o.leaseMs,
      onRenewed: () => {
        emit({ f: 'lease_renewed', recovered: failing });
        failing = false;
      },
      onRenewFailed: (err) => {
        emit({ f: 'lease_renewal_failed', error: err.message, first: !failing });
        failing = true;
      },
      onExpired: () => {
        // Said at once; the sessions are stopped in turn with the other ownership steps.
        emit({ f: 'lease_expired', sessions: o.store.ownedSessions().size });
        void this.serial(() => this.expired());
      },
    });
    // Stop reading what we may no longer write.
    o.spool.watchFenced((ids) => this.fenced(ids));
    this.rebalancer = new Rebalancer({
      store: o.store,
      lease: this.lease,
      intervalMs: Math.max(200, Math.floor(o.leaseMs / 5)),
      orphanGraceMs: o.leaseMs,
      // A pass due at the thaw runs before the first send asks: the pause is said before what it finds.
      beforePass: () => this.beat(),
      hooks: {
        acquired: (c) => this.serial(() => this.acquired(c)),
        lost: (ids) => this.serial(() => this.lost(ids, 'another replica owns them now')),
        finished: (ids) => this.serial(() => this.finished(ids)),
        handOver: (ids) => this.serial(() => this.release(ids)),
        kept: (ids) => this.serial(() => this.kept(ids)),
        respecified: (ids) =>
          this.serial(async () => {
            for (const row of await o.store.specs(ids)) o.host.respecify(row);
          }),
        ticked: (n) => {
          this.activeSessions = n;
          o.host.ticked?.();
        },
      },
      claim: (ids) => o.spool.adoptClaimed(() => o.store.claim(ids)),
      onError: (err) => log.warn({ error: err.message }, 'ownership pass failed; retried'),
    });
  }

  private queue: Promise<unknown> = Promise.resolve();

  private serial(fn: () => Promise<void>): Promise<void> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The store refused writes for these sessions: another replica owns them now. A write already
   * under way when this replica gave them up (its lease ran out) is refused too: those were lost
   * then, and counted then; counted again here they were two losses of one session.
   */
  fenced(ids: readonly string[]): void {
    void this.serial(async () => {
      const held = ids.filter((id) => this.o.store.ownedSessions().has(id));
      if (held.length > 0) await this.lost(held, 'the store refused a write: another replica owns them now');
      // Given up before: the spool dropped what the refused write carried, so it is made to agree
      // with the store again, as after a loss, without a second one.
      const gone = ids.filter((id) => !held.includes(id));
      if (gone.length > 0) {
        this.o.spool.forget(gone);
        await this.o.spool.resync().catch(() => undefined);
      }
    }).catch(() => undefined);
  }

  /** Live replicas at the last pass. */
  get replicas(): string[] {
    return this.rebalancer.replicas;
  }

  start(): void {
    // Notices a pause even when nothing is sent for a while (the gap is seen at the first beat after it).
    this.lastBeat = performance.now();
    this.heartbeat = setInterval(() => this.beat(), Math.max(50, this.pauseMs / 4));
    this.heartbeat.unref();
    this.lease.start();
    this.rebalancer.start();
    // Every replica tries; the partition lock makes concurrent attempts harmless.
    this.rotation = setInterval(() => {
      truncateDrainedGenerations(this.o.store.db).then(
        (gs) => {
          if (gs.length > 0) this.o.log.debug({ generations: gs }, 'truncated drained spool generations');
        },
        () => undefined,
      );
    }, ROTATION_INTERVAL_MS);
    this.rotation.unref();
  }

  private async acquired(c: Claimed): Promise<void> {
    if (this.stopped) {
      const ids = c.sessions.map((r) => r.spec.id);
      for (const id of ids) await this.o.store.release(id).catch(() => undefined);
      this.o.spool.forget(ids);
      await this.o.spool.resync().catch(() => undefined);
      return;
    }
    // An ended or removed session came only for its undelivered spool: nothing to read. One lost
    // again meanwhile (the lease ran out) is not ours to read either.
    const owned = this.o.store.ownedSessions();
    for (const row of c.sessions) if (row.lifecycle === 'active' && owned.has(row.spec.id)) this.o.host.follow(row);
    this.o.emit({
      f: 'sessions_claimed',
      sessions: c.sessions.length,
      backlogRecords: c.records,
      replica: this.o.store.replicaId,
    });
  }

  private beat(): void {
    const now = performance.now();
    const gap = now - this.lastBeat;
    if (gap > this.pauseMs) {
      // Said as the pause is first seen (a beat, a pass or a send, whichever runs first after the
      // thaw), before the ownership pass logs what was lost meanwhile: said after those lines, it
      // read as if the sessions were still this replica's. The check starts here too, so that a
      // replica with nothing to send also says when it is done (and the next pause is said again).
      if (this.pausedMs === 0) this.o.emit({ f: 'paused_checking_lease', pausedMs: gap });
      this.pausedMs = Math.max(this.pausedMs, gap);
      if (!this.stopped) this.checking ??= this.checkLease().finally(() => (this.checking = undefined));
    }
    this.lastBeat = now;
  }

  /** Resolves at once unless a pause was seen or the lease is not valid; then once an ownership pass checked it. */
  private readyToSend(): Promise<void> {
    this.beat();
    if (this.pausedMs === 0 && this.lease.valid && this.checking === undefined) return READY;
    this.checking ??= this.checkLease().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async checkLease(): Promise<void> {
    let paused = 0;
    for (;;) {
      // A pause seen during the pass is checked by the next one, and reported with the longest.
      paused = Math.max(paused, this.pausedMs);
      this.pausedMs = 0;
      // Renews the lease and reads who owns what: sessions taken meanwhile are forgotten here.
      await this.rebalancer.passNow().catch(() => undefined);
      if ((this.lease.valid && this.pausedMs === 0) || this.closed) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    if (paused > 0)
      this.o.emit({ f: 'lease_checked_after_pause', pausedMs: paused, stillOwned: this.o.store.ownedSessions().size });
  }

  /** Owned, active and preferred here: followed (again, after a hand-over that could not finish). */
  private async kept(ids: string[]): Promise<void> {
    const missing = ids.filter((id) => !this.o.host.isFollowed(id));
    if (missing.length === 0 || this.stopped) return;
    const owned = this.o.store.ownedSessions();
    for (const row of await this.o.store.specs(missing))
      if (row.lifecycle === 'active' && owned.has(row.spec.id)) this.o.host.follow(row);
  }

  private async lost(ids: string[], why: string): Promise<void> {
    for (const id of ids) this.o.store.forget(id);
    await Promise.all(ids.map((id) => this.o.host.unfollow(id)));
    this.o.spool.forget(ids);
    await this.o.spool.resync().catch(() => undefined);
    this.o.emit({ f: 'sessions_lost', sessions: ids, why });
  }

  /** Flushed hand-over: stop reading, commit, release; the spool goes with the session. */
  private async release(ids: string[]): Promise<void> {
    await Promise.all(ids.map((id) => this.o.host.unfollow(id)));
    await this.o.spool.flush();
    for (const id of ids) await this.o.store.release(id);
    this.o.spool.forget(ids);
    await this.o.spool.resync();
    this.o.emit({ f: 'sessions_handed_over', sessions: ids.length });
  }

  /**
   * Removed or ended: stop reading at once, but keep owning the session until its spool is
   * delivered — released earlier, its segments would belong to nobody (nobody claims a session
   * that is not active unless it has a spool, and then only to deliver it).
   */
  private async finished(ids: string[]): Promise<void> {
    // Still read here: another replica recorded the end or removal (a DELETE there, a replica whose
    // configuration no longer lists them). An end read here stopped the session before it was recorded.
    const elsewhere = ids.filter((id) => this.o.host.isFollowed(id));
    await Promise.all(ids.map((id) => this.o.host.unfollow(id, true)));
    if (elsewhere.length > 0) {
      this.o.log.info(
        { sessions: elsewhere.length, sample: elsewhere.slice(0, 10) },
        'stopped following sessions another replica removed or recorded as ended',
      );
    }
    await this.o.spool.flush();
    const undelivered = await sessionsWithSpool(this.o.store.db, ids);
    const done = ids.filter((id) => !undelivered.has(id));
    for (const id of done) await this.o.store.release(id);
  }

  private async expired(): Promise<void> {
    // Renewed again meanwhile: what is still owned here was claimed afresh, at a new epoch.
    if (this.lease.valid) return;
    const ids = this.o.store.forgetAll();
    if (ids.length > 0) await this.lost(ids, 'the lease ran out');
  }

  /** Stops claiming and renewing; the sessions and the lease are still held (close() gives them up). */
  readonly stop = once(async (): Promise<void> => {
    this.stopped = true;
    if (this.rotation) clearInterval(this.rotation);
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.rebalancer.stop();
    this.lease.stop();
  });

  /** After the spool was delivered: gives every session and the lease up, for the other replicas to claim at once. */
  readonly close = once(async (): Promise<void> => {
    await this.stop();
    this.closed = true;
    for (const id of [...this.o.store.ownedSessions().keys()]) await this.o.store.release(id).catch(() => undefined);
    await this.lease.drop().catch(() => undefined);
  });
}
