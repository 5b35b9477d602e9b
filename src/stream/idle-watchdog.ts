// The idle watchdog of one stream connection: `onIdle` once no byte arrived for `idleMs`.
//
// States: armed → (a byte: touch() only notes the time) → the timer fires → idle long enough? →
// onIdle, else armed again for what is left; pause() (a hold we caused: back-pressure, a repair)
// disarms it, resume() arms it afresh; stop() disarms it for good.
//
// A chunk only notes the time instead of refreshing a timer: with a thousand live streams and
// about one event per read, a timer refresh per chunk was a measurable share of the stream's cost.
export class IdleWatchdog {
  private lastByteAt = performance.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly idleMs: number,
    private readonly onIdle: () => void,
  ) {
    this.arm(idleMs);
  }

  /** A byte arrived. */
  touch(): void {
    this.lastByteAt = performance.now();
  }

  /** Silence from now on is ours, not the peer's. */
  pause(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Reading again: the idle time counts from now. */
  resume(): void {
    this.touch();
    this.arm(this.idleMs);
  }

  stop(): void {
    this.pause();
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.fire(), ms);
  }

  private fire(): void {
    const left = this.idleMs - (performance.now() - this.lastByteAt);
    if (left > 0) return this.arm(left);
    this.timer = undefined;
    this.onIdle();
  }
}
