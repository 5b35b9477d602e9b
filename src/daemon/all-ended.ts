// When every session of the run is over (`run --until-ended`, and tests that wait for a run to
// finish), and who waits for it. Apart from the supervisor because "over" is a condition of several
// components, checked whenever one of them settles:
//   nothing followed here, no end or removal waiting to be written (lifecycle-recorder.ts), the
//   spool idle, and with the shared store no session active anywhere (at the last ownership pass).
// A waiter may also ask that a session was followed first (until-ended.ts: with discovery, a run
// that has followed nothing yet is not over); with the shared store a session active anywhere at
// an ownership pass counts, as it may be followed by another replica.

/** What decides "over", read when it is asked. */
export interface RunState {
  /** Sessions followed here now. */
  followed(): number;
  /** Ends and removals not yet written. */
  settling(): number;
  /** The spool holds nothing pending or in flight. */
  spoolIdle(): boolean;
  /** Shared store: sessions active anywhere at the last ownership pass (-1 before the first); absent with the embedded store. */
  activeAnywhere?: () => number;
}

interface Waiter {
  firstSession: boolean;
  resolve: () => void;
}

export class AllEnded {
  private waiters: Waiter[] = [];
  /** A session was followed in this run (shared store: active anywhere at an ownership pass). */
  private sawSession = false;
  /** Waiting for the next ownership pass (nextOwnershipPass). */
  private passWaiters: Array<() => void> = [];

  constructor(private readonly s: RunState) {}

  /** A session is followed here. */
  sessionFollowed(): void {
    this.sawSession = true;
  }

  /** Shared store: an ownership pass counted the sessions active anywhere. */
  ownershipPassed(): void {
    if ((this.s.activeAnywhere?.() ?? 0) > 0) this.sawSession = true;
    const waiters = this.passWaiters;
    this.passWaiters = [];
    for (const w of waiters) w();
    this.check();
  }

  /** Whether a session was followed during this run. */
  get followedAny(): boolean {
    return this.sawSession;
  }

  /** Over now, with a session followed first. */
  isOver(): boolean {
    return this.sawSession && this.over();
  }

  /** Resolves once the run is over; with `firstSession`, not before a session was followed. */
  wait(o: { firstSession?: boolean } = {}): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ firstSession: o.firstSession === true, resolve });
      this.check();
    });
  }

  /** Resolves after the shared store's next ownership pass; at once without it. */
  nextOwnershipPass(): Promise<void> {
    if (!this.s.activeAnywhere) return Promise.resolve();
    return new Promise((resolve) => this.passWaiters.push(resolve));
  }

  /** Something that decides "over" settled: answers the waiters it satisfies. */
  check(): void {
    // Asked often (every delivery, every end): free while nobody waits.
    if (this.waiters.length === 0 || !this.over()) return;
    const due = this.waiters.filter((w) => !w.firstSession || this.sawSession);
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((w) => !due.includes(w));
    for (const w of due) w.resolve();
  }

  private over(): boolean {
    if (this.s.followed() > 0 || this.s.settling() > 0 || !this.s.spoolIdle()) return false;
    // Shared store: done only once no session anywhere is active (not merely none owned here).
    return this.s.activeAnywhere === undefined || this.s.activeAnywhere() === 0;
  }
}
