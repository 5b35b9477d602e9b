// Read pacing: while an ingest worker is busy with many small reads, it lets its streams' bytes
// gather in the kernel for a moment before it reads them again, so that one read takes every frame
// a stream received meanwhile (upstream.read_pacing, 200 ms by default).
//
// Why: at hundreds of live sessions × 20 events/s nearly every socket read carries one frame, and
// what a read costs apart from its frame is about as much as the frame's parse: the epoll wake-up,
// the read system call and the ACK it sends, the call into JavaScript, the HTTP chunk and SSE
// framing, a turn of the event loop with its timers and microtasks, a batch posted to the main
// thread. bench/read-micro.ts, 400 sessions × 20 events/s: 22–24 µs of CPU an event reading one
// frame a read, 13.5–15.5 µs with reads paced at 100 ms (two frames a read).
//
//   off ──paceReads(ms)──▶ watching ──a read──▶ a check is scheduled (setImmediate: after this turn's I/O)
//                             ▲                         │
//                             │                         ▼
//                             └── the check: were the reads since the last check many and small?
//                                 (at least BUSY_READS_PER_SECOND, none of them a full buffer)
//                                 yes: the thread sleeps until `ms` after the last check; no: on at once
//                                 │
//                                 └── the turn right after a sleep had many full reads (HELD_BACK_SHARE
//                                     of its reads): the sleep held the streams back ──▶ suspended (no
//                                     sleep for SUSPEND_MS, extended by every such turn) ──▶ watching
//
// The sleep blocks the whole thread (Atomics.wait), which is the point: no socket is read, no timer
// runs, and messages from the main thread wait, for at most `ms`. It is only taken right after a
// busy turn. A quiet thread (a few sessions, a stream now and then) is woken by its sockets as
// before and adds no latency; an idle one is not woken at all (a check is scheduled by a read); a
// turn with a backlog (a read that filled the buffer) never sleeps, since a full read already
// carries all it can.
//
// Catching up (a replay, a backlog) needs more than that: a worker that reads faster than a
// catching-up service sends also makes many small reads, sleeps, and during the sleep the
// streams' TCP windows fill and their sender stops: the turn after finds full reads, the one after
// small ones again, and throughput falls to a window per interval (`npm run bench -- burst`, 4
// sessions × 50,000 events: 6,600 events/s instead of 36,600). Full reads right after a sleep are
// the sign, when they are many of the turn's reads: a live session rarely sends 64 KiB in an
// interval (20 events/s of ~2 KB; now and then a screenshot and a few events more), so among a
// thousand live streams one or two fill a read after a sleep, while streams held back by their
// windows all do. Pacing then stays off for SUSPEND_MS, and as long as such turns keep coming. (A
// single full read after a sleep was the first rule tried: the heavy mix met it often enough that
// pacing was off half the time, 44.6 µs an event.)
//
// Only ingest workers pace: their main thread owns delivery, the spool and the HTTP surface, which
// must never sleep, and `tail` reads as bytes arrive.

/** Reads since the last check at this rate or more make a turn busy. */
export const BUSY_READS_PER_SECOND = 1000;
/** Fewer reads than this never make a turn busy, however short it was (one stream's burst). */
export const MIN_BUSY_READS = 4;
/** How long a sleep that held the streams back turns pacing off (each such turn meanwhile extends it). */
export const SUSPEND_MS = 5000;
/** The share of a turn's reads that, full, says the streams were held back (a quarter). */
export const HELD_BACK_SHARE = 0.25;

/** What the pacer needs of the world; the tests give it a fake one. */
export interface PacingClock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Blocks the thread for `ms`. */
  sleep(ms: number): void;
  /** Runs `fn` once the current turn's I/O is handled. */
  afterIo(fn: () => void): void;
}

/** What the pacer did so far (the worker reports the differences). */
export interface PacingCounts {
  reads: number;
  sleeps: number;
  sleptMs: number;
}

export class ReadPacer {
  readonly counts: PacingCounts = { reads: 0, sleeps: 0, sleptMs: 0 };
  private reads = 0;
  /** Reads since the last check that filled the buffer. */
  private fulls = 0;
  /** The last check slept: many full reads in the turn after mean the sleep held the streams back. */
  private slept = false;
  /** No sleep before this time (a sleep held a stream back). */
  private suspendedUntil = -Infinity;
  private lastCheck: number;
  private scheduled = false;
  private readonly check = (): void => this.checkNow();

  constructor(
    readonly intervalMs: number,
    private readonly clock: PacingClock,
  ) {
    this.lastCheck = clock.now();
  }

  /** A stream read a chunk; `full`: the read filled the buffer (more is waiting). */
  read(full: boolean): void {
    this.reads++;
    if (full) this.fulls++;
    if (!this.scheduled) {
      this.scheduled = true;
      this.clock.afterIo(this.check);
    }
  }

  private checkNow(): void {
    this.scheduled = false;
    const { reads } = this;
    this.counts.reads += reads;
    const now = this.clock.now();
    const since = now - this.lastCheck;
    const heldBack = this.fulls > 0 && this.fulls >= reads * HELD_BACK_SHARE;
    if (heldBack && (this.slept || now < this.suspendedUntil)) this.suspendedUntil = now + SUSPEND_MS;
    const busy =
      this.fulls === 0 &&
      now >= this.suspendedUntil &&
      reads >= MIN_BUSY_READS &&
      reads * 1000 >= since * BUSY_READS_PER_SECOND;
    const wait = this.intervalMs - since;
    this.slept = busy && wait >= 1;
    if (this.slept) {
      this.clock.sleep(wait);
      this.counts.sleeps++;
      this.counts.sleptMs += wait;
    }
    this.reads = 0;
    this.fulls = 0;
    this.lastCheck = this.clock.now();
  }
}

let cell: Int32Array | undefined;
const threadClock: PacingClock = {
  now: () => performance.now(),
  sleep: (ms) => {
    cell ??= new Int32Array(new SharedArrayBuffer(4));
    // Nothing ever notifies this cell: the wait always runs out its time.
    Atomics.wait(cell, 0, 0, ms);
  },
  afterIo: (fn) => setImmediate(fn),
};

/** This thread's pacer; undefined: reads are not paced (the default, and every main thread). */
let pacer: ReadPacer | undefined;

/** Paces this thread's reads at `ms` while it is busy; 0 turns pacing off. Returns the pacer, if any. */
export function paceReads(ms: number): ReadPacer | undefined {
  pacer = ms > 0 ? new ReadPacer(ms, threadClock) : undefined;
  return pacer;
}

/** A stream of this thread read a chunk (stream/connection-reader.ts). */
export function noteRead(full: boolean): void {
  pacer?.read(full);
}
