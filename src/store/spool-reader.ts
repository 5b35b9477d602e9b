// The spool's reader: hands batches of segments to delivery and takes their acknowledgements.
//
// A segment waits in one of two places: the store's backlog (ids up to `backlogUpTo`, read back in
// id order) or the ready queue in memory (freshly committed segments in `always` mode, sealed memory
// segments with ids < 0 in overflow mode). A batch is taken from the backlog first and from the ready
// queue only once the backlog is read, so the two never overlap; batches are serialized. A taken
// batch is in flight until delivery either acknowledges it (memory segments are dropped and their
// ledger positions settled; stored ones are returned to be deleted), releases it (memory segments
// still held go back to the ready queue, in seal order; what is on disk stays there), or gives it
// back for the store (overflow mode, a request that keeps failing: its memory segments go to the
// writer, which spills them). In overflow mode
// the ready queue may be paused (`memoryPaused`: checkpoints are not being written, see
// overflow-writer.ts): batches then take nothing from it, and waiting for data waits for a wake().
// A deliverer that starts waiting with the ready queue empty says so (`starved`): in overflow mode
// the writer then seals what is pending for it instead of at the commit interval (delivery-seal.ts).
import type { Store } from './store.js';
import type { NewSegment, Segment } from '../wire/segment-framing.js';
import type { SpoolMode } from '../config/schema.js';
import type { Ledger } from './ledger.js';
import type { SpoolContents } from './spool-contents.js';
import { ReadyQueue } from './ready-queue.js';

/** Segments taken together for one export request: delivery's unit. */
export interface Batch {
  segments: Segment[];
  records: number;
  bytes: number;
}

/** The batch of `segments`, with their records and payload bytes counted. */
export function batchOf(segments: Segment[]): Batch {
  let records = 0;
  let bytes = 0;
  for (const s of segments) {
    records += s.records;
    bytes += s.payload.length;
  }
  return { segments, records, bytes };
}

export class SpoolReader {
  readonly ready = new ReadyQueue();
  /** Segments with id ≤ this exist only in the store; batches read them back first. */
  private backlogUpTo = 0;
  /** Highest segment id taken so far. */
  private cursor = 0;
  private taking: Promise<unknown> = Promise.resolve();
  private dataWaiters: Array<() => void> = [];
  /** Batches handed to delivery and not yet settled. */
  inFlight = 0;
  /** Bytes of memory segments acknowledged in this process (overflow mode), never going back. */
  acknowledgedMemoryBytes = 0;

  constructor(
    private readonly store: Store,
    private readonly contents: SpoolContents,
    private readonly ledger: Ledger,
    private readonly mode: SpoolMode,
    private readonly memoryMaxBytes: number,
    /** True while batches must take nothing from the ready queue (overflow mode's stalled checkpoints). */
    private readonly memoryPaused: () => boolean = () => false,
    /** A deliverer starts waiting with nothing to take (overflow mode seals for it: delivery-seal.ts). */
    private readonly starved: () => void = () => undefined,
  ) {}

  /** True while a deliverer waits and the ready queue is empty: what is pending is worth sealing now. */
  get starving(): boolean {
    return this.dataWaiters.length > 0 && this.ready.empty;
  }

  /** True while the store holds segments not yet taken (new records then queue behind them). */
  get readingBacklog(): boolean {
    return this.cursor < this.backlogUpTo;
  }

  /** Segments up to this store id were committed: they are read back from the store. */
  backlogTo(id: number): void {
    this.backlogUpTo = Math.max(this.backlogUpTo, id);
  }

  /**
   * Takes the next batch of segments (at least one, at most `maxRecords` records unless one segment
   * alone is larger) for one export, or null when nothing is waiting. Serialized: batches never overlap.
   */
  takeBatch(maxRecords: number, maxBytes = Number.POSITIVE_INFINITY): Promise<Batch | null> {
    const run = this.taking.then(() => this.takeBatchNow(maxRecords, maxBytes));
    this.taking = run.catch(() => undefined);
    return run;
  }

  private async takeBatchNow(maxRecords: number, maxBytes: number): Promise<Batch | null> {
    let segments: Segment[] = [];
    if (this.cursor < this.backlogUpTo) {
      // The bound as read: adopt() may raise it while the read is under way.
      const upTo = this.backlogUpTo;
      segments = await this.store.readSegments(this.cursor, upTo, maxRecords, maxBytes);
      if (segments.length === 0) this.cursor = Math.max(this.cursor, upTo);
    }
    if (segments.length === 0 && !this.memoryPaused()) segments = this.ready.take(maxRecords, maxBytes);
    if (segments.length === 0) return null;
    // Memory segments (ids < 0) are not in the store: only store ids move the cursor.
    this.cursor = Math.max(this.cursor, segments[segments.length - 1]!.id);
    this.inFlight++;
    return batchOf(segments);
  }

  /** Resolves when segments were committed since, or at once when some are waiting to be taken. */
  waitForData(): Promise<void> {
    if ((!this.ready.empty && !this.memoryPaused()) || this.cursor < this.backlogUpTo) return Promise.resolve();
    const waiting = new Promise<void>((resolve) => this.dataWaiters.push(resolve));
    this.starved();
    return waiting;
  }

  /** Wakes the deliverers waiting in waitForData(). */
  wake(): void {
    const w = this.dataWaiters;
    this.dataWaiters = [];
    for (const resolve of w) resolve();
  }

  /** `always` mode: committed segments go to the ready queue while it has room; otherwise they become backlog. */
  handOver(segments: NewSegment[], ids: number[]): void {
    if (segments.length === 0) return;
    let bytes = 0;
    for (const s of segments) bytes += s.payload.length;
    if (this.ready.bytes + bytes > this.memoryMaxBytes) {
      // Everything not taken is in the store: read it back in order instead of holding it here.
      this.ready.clear();
      this.backlogUpTo = ids[ids.length - 1]!;
    } else {
      for (let i = 0; i < segments.length; i++) this.ready.push({ ...segments[i]!, id: ids[i]! });
    }
    this.wake();
  }

  /**
   * A delivered (or rejected) batch: its memory segments are dropped and their positions settled
   * in the ledger. Returns what of it is in the store, to be deleted (the batch itself when all is).
   */
  acknowledge(batch: Batch): Batch | undefined {
    this.inFlight--;
    let stored: Batch | undefined;
    for (const s of batch.segments) {
      if (s.id < 0) {
        this.contents.dropMemory(s);
        this.ledger.settle(s.id);
        this.acknowledgedMemoryBytes += s.payload.length;
      } else {
        stored ??= { segments: [], records: 0, bytes: 0 };
        stored.segments.push(s);
        stored.records += s.records;
        stored.bytes += s.payload.length;
      }
    }
    return stored && stored.segments.length === batch.segments.length ? batch : stored;
  }

  /**
   * A batch that will not be acknowledged (shutdown, or its sessions were handed over): what is on
   * disk stays there; memory segments still held go back to the front of the queue (finish() then
   * spills them).
   */
  release(batch: Batch): void {
    this.inFlight--;
    this.ready.unshift(batch.segments.filter((s) => s.id < 0 && this.contents.inMemory(s.id)));
  }

  /**
   * The segments of a batch delivery gives up on for the store (Spool.giveBack): no longer in
   * flight; returns its memory segments still held, which the writer spills instead of queueing
   * them where the next batch would take them from memory again. A batch taken from memory holds
   * nothing else.
   */
  giveBack(segments: readonly Segment[]): Segment[] {
    this.inFlight--;
    return segments.filter((s) => s.id < 0 && this.contents.inMemory(s.id));
  }

  /** Drops the segments not yet taken of sessions given up; stored ones stop counting here (they move on). */
  forget(sessionIds: ReadonlySet<string>): void {
    for (const s of this.ready.drop(sessionIds)) {
      if (s.id < 0) continue;
      this.contents.unstored(s.records, s.payload.length);
    }
  }

  /**
   * A claimed session's spool came along (renumbered after every id this spool has seen): read it
   * back as backlog. Everything not taken is in the store, so the ready queue is read back with it.
   */
  adopt(moved: { records: number; bytes: number; maxId: number }): void {
    // Overflow mode: the ready queue holds memory segments only (the store has no copy); they stay.
    const lastReady = this.mode === 'always' ? this.ready.lastId : 0;
    if (this.mode === 'always') this.ready.clear();
    this.backlogUpTo = Math.max(this.backlogUpTo, moved.maxId, lastReady);
    this.contents.stored(moved.records, moved.bytes);
    this.wake();
  }
}
