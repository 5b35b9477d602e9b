// How long the demo waits for its daemon to finish. A fixed budget measured the machine, not the
// bridge: the README's larger variant (7 sessions × 10,000 events) took 41 s on a quiet two-core
// machine and over 65 s on a loaded one, and was then stopped and reported as "events missing"
// while it was still delivering them. The demo waits at least the run's own length, then for as
// long as records keep arriving; a daemon that delivers nothing new for `stallMs` is stopped.
//
// State: waiting (new records seen within stallMs, or the minimum not reached) → over.

export class Patience {
  private lastCount = -1;
  private lastProgressAt: number;

  /** `startedAt` and the times given later are one clock's milliseconds. */
  constructor(
    private readonly startedAt: number,
    private readonly minMs: number,
    readonly stallMs: number,
  ) {
    this.lastProgressAt = startedAt;
  }

  /** The receiver holds `delivered` records at `now`: more than before is progress. */
  observe(now: number, delivered: number): void {
    if (delivered > this.lastCount) {
      this.lastCount = delivered;
      this.lastProgressAt = now;
    }
  }

  /** Whether to stop waiting: past the minimum, and nothing new arrived for stallMs. */
  over(now: number): boolean {
    return now - this.startedAt >= this.minMs && now - this.lastProgressAt >= this.stallMs;
  }
}
