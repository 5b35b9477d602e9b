// `run --until-ended`: who waits for every session to be over, and when that is. Apart from the
// supervisor because "over" is a condition of several components (the followed sessions, the ends
// still being recorded, the spool, and with the shared store every replica's sessions), checked
// whenever one of them settles.

/** Resolves waiters once `over()` holds; `check()` is called whenever something that decides it settled. */
export class AllEnded {
  private waiters: Array<() => void> = [];

  constructor(private readonly over: () => boolean) {}

  /** Resolves once no session is followed any more and everything read was delivered. */
  wait(): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.check();
    });
  }

  check(): void {
    // Asked often (every delivery, every end): free while nobody waits.
    if (this.waiters.length === 0 || !this.over()) return;
    const w = this.waiters;
    this.waiters = [];
    for (const r of w) r();
  }
}
