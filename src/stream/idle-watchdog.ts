// The idle watchdog of one stream connection: `onIdle` once no byte arrived for `idleMs`.
//
// States: armed → (a byte: touch() only notes the time) → the timer fires → idle long enough? →
// one turn later (below), still? → onIdle, else armed again for what is left; paused (a hold we caused: back-pressure, a repair):
// the timer stays armed, and when it fires it only arms itself again for a whole `idleMs`;
// resume() notes the time, so the idle time counts afresh from it; stop() disarms it for good.
//
// A chunk only notes the time instead of refreshing a timer: with a thousand live streams and
// about one event per read, a timer refresh per chunk was a measurable share of the stream's cost.
// A hold does not touch the timer either: with a thousand sessions held and resumed together
// whenever the spool's room runs out, clearing and arming a timer each time was a cost per hold.
//
// The verdict waits one turn (setImmediate runs after the poll phase that reads the sockets): when
// the process could not run for longer than idleMs (SIGSTOP, a frozen VM, a loop blocked), the timer
// comes due before the bytes that arrived meanwhile are read, and every stream would be dropped as
// idle with its data waiting in the socket, a thousand reconnects at once after each pause.
export class IdleWatchdog {
  private lastByteAt = performance.now();
  private timer: NodeJS.Timeout | undefined;
  private verdict: NodeJS.Immediate | undefined;
  private paused = false;

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
    this.paused = true;
  }

  /** Reading again: the idle time counts from now. */
  resume(): void {
    this.paused = false;
    this.touch();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    clearImmediate(this.verdict);
    this.verdict = undefined;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.fire(), ms);
  }

  private fire(): void {
    this.timer = undefined;
    if (this.paused) return this.arm(this.idleMs);
    const left = this.idleMs - (performance.now() - this.lastByteAt);
    if (left > 0) return this.arm(left);
    // One turn for the bytes waiting in the socket (see the top of the file).
    this.verdict = setImmediate(() => {
      this.verdict = undefined;
      this.settle();
    });
  }

  private settle(): void {
    if (this.paused) return this.arm(this.idleMs);
    const left = this.idleMs - (performance.now() - this.lastByteAt);
    if (left > 0) return this.arm(left);
    this.onIdle();
  }
}
