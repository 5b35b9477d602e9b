// Delivered batches whose deletion failed (disk full): delivery does not wait for them; they are
// retried here in the background, with backoff, until the store can delete again. Their records stay
// counted in the spool until then, and after a restart they would be sent once more.
import type { Store } from './store.js';
import type { Segment } from '../wire/segment-framing.js';

export interface Deletable {
  segments: Segment[];
  records: number;
  bytes: number;
}

export class DeferredDeletes {
  private queue: Deletable[] = [];
  private streak = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly onDeleted: (d: Deletable) => void,
    private readonly onError?: (err: Error, streak: number) => void,
  ) {}

  get size(): number {
    return this.queue.length;
  }

  /** Deletes now; on failure keeps it for the background retries. */
  async delete(d: Deletable): Promise<void> {
    try {
      await this.deleteOne(d);
    } catch (err) {
      this.queue.push(d);
      this.failed(err as Error);
      return;
    }
    this.onDeleted(d);
  }

  private deleteOne(d: Deletable): Promise<void> {
    return this.store.deleteSegments(
      d.segments.map((s) => s.id),
      { records: d.records, bytes: d.bytes },
    );
  }

  private failed(err: Error): void {
    this.streak++;
    this.onError?.(err, this.streak);
    if (this.timer) return;
    const delay = Math.min(100 * 2 ** Math.min(this.streak, 6), 5000);
    this.timer = setTimeout(() => void this.retry(), delay);
    this.timer.unref();
  }

  private retrying = false;

  private async retry(): Promise<void> {
    this.timer = undefined;
    if (this.retrying) return;
    this.retrying = true;
    try {
      while (this.queue.length > 0) {
        const d = this.queue[0]!;
        try {
          await this.deleteOne(d);
        } catch (err) {
          this.failed(err as Error);
          return;
        }
        this.queue.shift();
        this.onDeleted(d);
      }
      this.streak = 0;
    } finally {
      this.retrying = false;
    }
  }

  /** Tries the waiting deletes now (before a commit: freed space goes to deletes first). */
  async retryNow(): Promise<void> {
    if (this.queue.length === 0 || this.retrying) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.retry();
  }

  /** A last try at shutdown; what still fails is sent again after the next start. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length > 0) await this.retry();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
