// The ownership loop of one replica on the shared store. Every tick:
//   1. renew the lease (a failed renewal ends the tick; the lease's local deadline stops reading);
//   2. read the live replicas and the active sessions with their owners (database clock);
//   3. for each session this replica owns: lost (another owner or epoch: stop following it),
//      no longer active (removed or ended through any replica: stop following it, and release it
//      once its spool is delivered — until then it stays owned, so its segments stay readable here),
//      or preferred elsewhere (hand it over: stop reading, commit, release);
//   4. claim the sessions with no live owner that prefer this replica, and orphans that nobody
//      claimed within `orphanGraceMs` (their preferred replica may be unable to), FOR UPDATE SKIP
//      LOCKED so replicas racing for one session never block each other.
// The supervisor does the following and stopping (hooks); this file only decides.
import { preferredOwner } from './placement.js';
import type { Lease } from './lease.js';
import type { Claimed, PgStore } from '../store/pg-store.js';
import { readOwnershipView } from './ownership-view.js';

export interface RebalancerHooks {
  /** Sessions claimed (their spool already adopted by `claim`): follow them. */
  acquired(claimed: Claimed): Promise<void>;
  /** Sessions another replica took: stop following them (their writes are fenced already). */
  lost(ids: string[]): Promise<void>;
  /** Sessions removed or ended (possibly through another replica): stop following; release once their spool is delivered. */
  finished(ids: string[]): Promise<void>;
  /** Sessions that prefer another live replica: stop reading, commit, release. */
  handOver(ids: string[]): Promise<void>;
  /** Owned, active sessions preferred here: they must be followed. */
  kept(ids: string[]): Promise<void>;
  /** Owned sessions whose spec was changed (a PUT on any replica): apply the new one. */
  respecified(ids: string[]): Promise<void>;
  /** After every pass: how many sessions are active in the store. */
  ticked?(activeSessions: number): void;
}

export interface RebalancerOptions {
  store: PgStore;
  lease: Lease;
  intervalMs: number;
  orphanGraceMs: number;
  hooks: RebalancerHooks;
  /** Claims in the store and adopts the moved spool as one step (Spool.adoptClaimed); default: store.claim alone. */
  claim?: (ids: string[]) => Promise<Claimed>;
  onError?: (err: Error) => void;
  /** Called as each pass starts, before the lease is renewed (Ownership: notices a pause first). */
  beforePass?: () => void;
}

export class Rebalancer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Live replicas seen at the last tick (for status surfaces). */
  replicas: string[] = [];
  /** Spec revision of every owned session as last applied. */
  private readonly specRevs = new Map<string, number>();

  constructor(private readonly o: RebalancerOptions) {}

  start(): void {
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.exclusive()
        .catch((err: unknown) => this.o.onError?.(err as Error))
        .finally(() => {
          this.running = undefined;
          this.schedule(this.o.intervalMs);
        });
    }, ms);
  }

  private passes: Promise<unknown> = Promise.resolve();

  /** Runs one pass after any under way: passes never overlap. */
  private exclusive(): Promise<void> {
    const run = this.passes.then(() => this.tick());
    this.passes = run.catch(() => undefined);
    return run;
  }

  /** One more pass now (after a pause: renew the lease and learn which sessions were lost meanwhile). */
  passNow(): Promise<void> {
    return this.exclusive();
  }

  /** One pass (exported for tests); never runs twice at once when started. */
  async tick(): Promise<void> {
    const { store, lease, hooks } = this.o;
    this.o.beforePass?.();
    if (!(await lease.renew())) return;
    const me = store.replicaId;
    const live = await lease.liveReplicas();
    if (!live.includes(me)) live.push(me);
    live.sort();
    this.replicas = live;
    const view = await readOwnershipView(store.db, store.replicaId);
    const owned = new Map(store.ownedSessions());
    const lost: string[] = [];
    const finished: string[] = [];
    const handOver: string[] = [];
    const claim: string[] = [];
    const respecified: string[] = [];
    const kept: string[] = [];
    for (const row of view) {
      const epoch = owned.get(row.id);
      owned.delete(row.id);
      const preferred = preferredOwner(row.id, live);
      if (epoch !== undefined) {
        if (row.owner !== me || row.leaseEpoch !== epoch) lost.push(row.id);
        else if (row.lifecycle !== 'active') finished.push(row.id);
        else if (preferred !== me) handOver.push(row.id);
        else {
          kept.push(row.id);
          if (this.specRevs.get(row.id) !== row.specRev) {
            respecified.push(row.id);
            this.specRevs.set(row.id, row.specRev);
          }
        }
      } else if (
        (row.lifecycle === 'active' || row.hasSpool) &&
        (row.owner === null || row.owner === me || !row.ownerLive)
      ) {
        // An ended or removed session with undelivered segments is claimed only to deliver them.
        // A row naming this replica that it does not hold (a previous incarnation with the same
        // name, or a release whose answer was lost) is claimed whatever the placement says: no
        // other replica would take it while this one is live; a hand-over follows if it prefers another.
        if (preferred === me || row.owner === me || row.orphanMs > this.o.orphanGraceMs) claim.push(row.id);
      }
    }
    // Owned here but gone from the view: the row is no longer ours (or no longer exists).
    lost.push(...owned.keys());
    if (lost.length > 0) {
      for (const id of lost) store.forget(id);
      await hooks.lost(lost);
    }
    if (finished.length > 0) await hooks.finished(finished);
    if (handOver.length > 0) await hooks.handOver(handOver);
    if (kept.length > 0) await hooks.kept(kept);
    if (respecified.length > 0) await hooks.respecified(respecified);
    for (const id of this.specRevs.keys()) if (!store.ownedSessions().has(id)) this.specRevs.delete(id);
    if (claim.length > 0 && lease.valid) {
      const got = await (this.o.claim ? this.o.claim(claim) : store.claim(claim));
      for (const [id, rev] of got.specRevs) this.specRevs.set(id, rev);
      if (got.sessions.length > 0) await hooks.acquired(got);
    }
    hooks.ticked?.(view.filter((r) => r.lifecycle === 'active').length);
  }

  /** Stops ticking; waits for a tick under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
