// Steady background production for every session of one simulator, driven by a single shared
// timer: a thousand sessions at a few events/s each must not mean a thousand timers.
//
// State: idle (no producing session, no timer) ⇄ ticking (timer runs). Each tick gives every
// producing session rate × elapsed events, carrying the fractional remainder to the next tick, so
// the long-run rate is exact whatever the timer's jitter. A tick covers at most MAX_CATCHUP_MS: when
// the process cannot keep up (CPU-bound), the rate falls short instead of growing into batches so
// large that sockets and the control API starve between ticks. A session given a count stops by
// itself after that many events: a benchmark then knows exactly what was produced, however late the
// process that asked for it gets to say stop.

const TICK_MS = 50;
const MAX_CATCHUP_MS = 200;

export interface Producible {
  readonly ended: boolean;
  /** Generates and delivers `count` events in one batch. */
  produceBatch(count: number): void;
}

export class Producer {
  private readonly entries = new Map<Producible, { rate: number; carry: number; remaining: number }>();
  private timer: NodeJS.Timeout | undefined;
  private lastTick = 0;

  /** Sets the rate (events/s) of a session; 0 stops it. With `count`, it stops after that many more events. */
  set(target: Producible, ratePerSecond: number, count = Infinity): void {
    if (!Number.isFinite(ratePerSecond) || ratePerSecond < 0)
      throw new RangeError('rate must be a non-negative number');
    if (!(count >= 0)) throw new RangeError('count must be a non-negative number');
    if (ratePerSecond === 0 || count === 0) this.entries.delete(target);
    else {
      const existing = this.entries.get(target);
      if (existing) {
        existing.rate = ratePerSecond;
        existing.remaining = count;
      } else this.entries.set(target, { rate: ratePerSecond, carry: 0, remaining: count });
    }
    this.schedule();
  }

  delete(target: Producible): void {
    this.entries.delete(target);
    this.schedule();
  }

  stopAll(): void {
    this.entries.clear();
    this.schedule();
  }

  private schedule(): void {
    if (this.entries.size > 0 && !this.timer) {
      this.lastTick = performance.now();
      this.timer = setInterval(() => this.tick(), TICK_MS);
      // The HTTP server keeps the process alive; production alone must not.
      this.timer.unref();
    } else if (this.entries.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private tick(): void {
    const now = performance.now();
    const elapsed = Math.min(MAX_CATCHUP_MS, now - this.lastTick);
    this.lastTick = now;
    for (const [target, e] of this.entries) {
      if (target.ended) {
        this.entries.delete(target);
        continue;
      }
      e.carry += (e.rate * elapsed) / 1000;
      const n = Math.min(Math.floor(e.carry), e.remaining);
      if (n > 0) {
        e.carry -= n;
        e.remaining -= n;
        target.produceBatch(n);
      }
      if (e.remaining === 0) this.entries.delete(target);
    }
    this.schedule();
  }
}
