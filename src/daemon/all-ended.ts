// `run --until-ended`: who waits for every session to be over, and when that is. Apart from the
// supervisor because "over" is a condition of several components (the followed sessions, the ends
// still being recorded, the spool, and with the shared store every replica's sessions), checked
// whenever one of them settles. A waiter may add a condition of its own (until-ended.ts: with
// discovery, not before a first session was followed).

interface Waiter {
  ready: () => boolean;
  resolve: () => void;
}

/** Resolves waiters once `over()` holds; `check()` is called whenever something that decides it settled. */
export class AllEnded {
  private waiters: Waiter[] = [];

  constructor(private readonly over: () => boolean) {}

  /** Resolves once no session is followed any more and everything read was delivered, and `ready()` holds. */
  wait(ready: () => boolean = () => true): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ ready, resolve });
      this.check();
    });
  }

  check(): void {
    // Asked often (every delivery, every end): free while nobody waits.
    if (this.waiters.length === 0 || !this.over()) return;
    const due = this.waiters.filter((w) => w.ready());
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((w) => !due.includes(w));
    for (const w of due) w.resolve();
  }
}
