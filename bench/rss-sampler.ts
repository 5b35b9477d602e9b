// Peak resident memory of this process (the bridge runs in it), sampled every `everyMs` on a timer.
// A timer cannot fire while the event loop is blocked, so a peak inside one long synchronous stretch
// can be missed by up to one interval's growth; at 100 ms that is noise next to what is measured.

export class RssSampler {
  /** Highest RSS seen, bytes. */
  peak = 0;
  /** Highest RSS since the last startWindow(), bytes (the peak of one phase of a scenario). */
  windowPeak = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(everyMs = 100) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  /** Takes a sample now (also raising the peak) and returns it in bytes. */
  sample(): number {
    const rss = process.memoryUsage.rss();
    if (rss > this.peak) this.peak = rss;
    if (rss > this.windowPeak) this.windowPeak = rss;
    return rss;
  }

  startWindow(): void {
    this.windowPeak = 0;
    this.sample();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export const mib = (bytes: number): number => Math.round(bytes / 1048576);
