// Batches spool writes of every session into few transactions (DESIGN.md "Performance envelope":
// no SQL commit per event) and applies back-pressure.
//
// Cycle: enqueue → pending (memory, bounded) → commit (one transaction: records + checkpoints)
// → durable. A commit runs when `commitMaxRecords` are pending or `commitIntervalMs` after the first
// pending entry. A failed commit (disk full, I/O error) keeps everything pending, is logged once per
// streak and retried with backoff; while it fails, or while spool + pending reach `maxBytes`, the
// writer is "full" and subscribers wait in `waitForRoom()` instead of reading more (the service
// buffers meanwhile; what it evicts becomes a gap record).
import type { BridgeLogRecord } from '../mapping/log-record.js';
import type { CheckpointUpdate, SpoolEntry, Store } from './store.js';

export interface SpoolWriterOptions {
  store: Store;
  maxBytes: number;
  commitMaxRecords: number;
  commitIntervalMs: number;
  onCommitError?: (err: Error, streak: number) => void;
  onCommitRecovered?: () => void;
}

export class SpoolWriter {
  private entries: SpoolEntry[] = [];
  private pendingBytes = 0;
  private checkpoints = new Map<string, CheckpointUpdate>();
  private timer: NodeJS.Timeout | undefined;
  private failStreak = 0;
  private waiters: Array<() => void> = [];
  private committedListeners: Array<() => void> = [];
  private closed = false;
  /** Pending entries above this many make the writer full even with room on disk: memory stays bounded. */
  private readonly maxPending: number;

  constructor(private readonly opts: SpoolWriterOptions) {
    this.maxPending = opts.commitMaxRecords * 4;
  }

  /**
   * Queues a record (or, for a filtered event, only the checkpoint move). The checkpoint becomes
   * durable with the transaction that carries the record.
   */
  enqueue(sessionId: string, seq: number, epoch: number, record: BridgeLogRecord | null): void {
    if (record) {
      const payload = JSON.stringify(record);
      // UTF-8 bytes, not UTF-16 units: the limit is about the disk, and non-ASCII text is common.
      const bytes = Buffer.byteLength(payload);
      this.entries.push({ sessionId, seq, tsMicros: record.tsMicros, payload, bytes });
      this.pendingBytes += bytes;
    }
    const cp = this.checkpoints.get(sessionId);
    if (cp) {
      cp.checkpoint = seq;
      cp.epoch = epoch;
    } else {
      this.checkpoints.set(sessionId, { sessionId, checkpoint: seq, epoch });
    }
    this.schedule();
  }

  /** True when the subscribers must stop reading. */
  get full(): boolean {
    if (this.failStreak > 0) return true;
    if (this.entries.length >= this.maxPending) return true;
    return this.opts.store.spoolBytes() + this.pendingBytes >= this.opts.maxBytes;
  }

  get pendingRecords(): number {
    return this.entries.length;
  }

  /** Readers currently paused in waitForRoom() (back-pressure in effect). */
  get pausedReaders(): number {
    return this.waiters.length;
  }

  /** Resolves once the writer has room (after a commit that freed memory, or after the exporter acked). */
  waitForRoom(): Promise<void> {
    if (!this.full || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Called after records left the spool, and after commits: wakes subscribers waiting for room. */
  recheck(): void {
    if (this.waiters.length === 0 || (this.full && !this.closed)) return;
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  }

  onCommitted(listener: () => void): void {
    this.committedListeners.push(listener);
  }

  private schedule(): void {
    if (this.entries.length >= this.opts.commitMaxRecords) {
      this.clearTimer();
      // Let the current burst of frames finish being parsed, then commit them together.
      this.timer = setTimeout(() => this.flush(), 0);
    } else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.opts.commitIntervalMs);
    }
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Commits everything pending now. Returns false when the commit failed (it is retried). */
  flush(): boolean {
    this.clearTimer();
    if (this.entries.length === 0 && this.checkpoints.size === 0) return true;
    const entries = this.entries;
    const checkpoints = [...this.checkpoints.values()];
    try {
      this.opts.store.commit(entries, checkpoints);
    } catch (err) {
      this.failStreak++;
      this.opts.onCommitError?.(err as Error, this.failStreak);
      if (!this.closed) {
        const delay = Math.min(100 * 2 ** Math.min(this.failStreak, 6), 5000);
        this.timer = setTimeout(() => this.flush(), delay);
      }
      return false;
    }
    if (this.failStreak > 0) this.opts.onCommitRecovered?.();
    this.failStreak = 0;
    this.entries = [];
    this.pendingBytes = 0;
    this.checkpoints.clear();
    for (const l of this.committedListeners) l();
    this.recheck();
    return true;
  }

  /** Final commit at shutdown; wakes any waiter so subscribers can exit. */
  close(): boolean {
    const ok = this.flush();
    this.closed = true;
    this.clearTimer();
    this.recheck();
    return ok;
  }
}
