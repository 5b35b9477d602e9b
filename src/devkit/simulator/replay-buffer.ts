// The per-session replay buffer (docs/service-api.md "Limits": bounded, the oldest events are
// evicted; "Stream telemetry events" rule 3). A ring of already-formatted frames: seqs inside one service epoch
// are contiguous, so the frame of seq s sits at a fixed offset from the oldest and lookup is O(1).
// Each envelope is serialised exactly once, when pushed; every connection shares the frame.

export class ReplayBuffer<Frame = Buffer> {
  private readonly frames: Array<Frame | undefined>;
  private head = 0; // ring index of the oldest retained frame
  private count = 0;
  private first = 1; // seq of the oldest retained frame

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('bufferSize must be a positive integer');
    this.frames = new Array<Frame | undefined>(capacity);
  }

  /** Seq of the oldest retained frame; lastSeq + 1 when empty. */
  get oldestSeq(): number {
    return this.first;
  }

  get lastSeq(): number {
    return this.first + this.count - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Appends the frame of seq lastSeq + 1, evicting the oldest when full. */
  push(seq: number, frame: Frame): void {
    if (seq !== this.lastSeq + 1) throw new Error(`replay buffer expects seq ${this.lastSeq + 1}, got ${seq}`);
    if (this.count === this.capacity) {
      this.frames[this.head] = undefined;
      this.head = (this.head + 1) % this.capacity;
      this.first++;
      this.count--;
    }
    this.frames[(this.head + this.count) % this.capacity] = frame;
    this.count++;
  }

  /** The frame of `seq`, or undefined when evicted or not yet assigned. */
  get(seq: number): Frame | undefined {
    const offset = seq - this.first;
    if (offset < 0 || offset >= this.count) return undefined;
    return this.frames[(this.head + offset) % this.capacity];
  }

  /** Forgets everything; the next pushed seq is `nextSeq` (a service restart starts again at 1). */
  reset(nextSeq = 1): void {
    this.frames.fill(undefined);
    this.head = 0;
    this.count = 0;
    this.first = nextSeq;
  }
}
