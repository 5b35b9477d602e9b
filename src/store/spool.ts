// The spool: the queue between the sessions (which append encoded records) and delivery (which
// takes batches, exports them and acknowledges them). It owns its room and back-pressure. This
// file is its face; the parts behind it, along the lines of a disk buffer's writer, reader and
// ledger (docs/design.md "Delivery semantics"):
//   - spool-writer.ts: the write loop: commits one at a time, `always` mode's commit, retries,
//     fenced writes, and what runs between commits (forget, resync, adopt);
//   - overflow-writer.ts: overflow mode's seals, spills and checkpoint writes;
//   - spool-room.ts: when appenders must wait (back-pressure);
//   - spool-reader.ts: batches from the backlog and the ready queue, acknowledgements, releases;
//   - spool-contents.ts: the memory segments and the stored records, counted;
//   - ledger.ts: where each session's checkpoint may move in overflow mode.
import type { SpoolMode } from '../config/schema.js';
import { Ledger } from './ledger.js';
import type { RecordToAppend } from './pending-segments.js';
import { SpoolContents } from './spool-contents.js';
import type { SpoolOptions } from './spool-options.js';
import { SpoolReader, type Batch } from './spool-reader.js';
import { SpoolWriter } from './spool-writer.js';
import type { Segment } from '../wire/segment-framing.js';
import { steadyNow } from '../util/steady-clock.js';

export { CHECKPOINT_INTERVAL_MS, CHECKPOINT_MIN_BYTES } from './checkpoint-timing.js';
export { COMMIT_MAX_BYTES, type SpoolOptions } from './spool-options.js';
export type { Batch } from './spool-reader.js';

export class Spool {
  private readonly contents = new SpoolContents();
  private readonly ledger: Ledger;
  private readonly reader: SpoolReader;
  private readonly writer: SpoolWriter;
  private readonly mode: SpoolMode;

  private constructor(o: SpoolOptions) {
    this.mode = o.mode ?? 'overflow';
    this.ledger = new Ledger(o.now ?? steadyNow);
    this.reader = new SpoolReader(
      o.store,
      this.contents,
      this.ledger,
      this.mode,
      o.memoryMaxBytes,
      () => this.writer.overflow.memoryDeliveryPaused(),
      () => this.writer.sealForDelivery(),
    );
    this.writer = new SpoolWriter(o, this.contents, this.ledger, this.reader);
  }

  /** Calls `watcher` whenever the store refuses a commit because another replica owns these sessions now. */
  watchFenced(watcher: (sessionIds: readonly string[]) => void): void {
    this.writer.watchFenced(watcher);
  }

  /**
   * Calls `watcher` whenever a commit finished, or a delete retried in the background is done: what
   * makes `idle` true may have settled then.
   */
  watchCommitsDone(watcher: () => void): void {
    this.writer.watchCommitsDone(watcher);
  }

  /** Opens the spool over a store; what the store already holds is the backlog. */
  static async open(o: SpoolOptions): Promise<Spool> {
    const s = new Spool(o);
    const t = await o.store.spoolTotals();
    s.contents.recount(t);
    s.reader.backlogTo(t.maxId);
    return s;
  }

  /**
   * Appends one encoded record of a session (or, with `record` null, only moves its checkpoint: a
   * filtered event). The checkpoint becomes durable with the transaction that carries the record;
   * `spans` captures the session's span state when its batch is sealed, to be written with it.
   */
  append(a: RecordToAppend): void {
    this.writer.append(a);
  }

  /** True when appenders must stop reading. */
  get full(): boolean {
    return this.writer.room.full;
  }

  /** True when the volume's free space, not max_bytes, is what limits the spool now. */
  get limitedByDisk(): boolean {
    return this.writer.room.limitedByDisk;
  }

  /** What the spool may hold now: maxBytes, or less when the volume's free space says so. */
  get limitBytes(): number {
    return this.writer.room.limitBytes();
  }

  /** The volume's free space (and the reserve kept of it) while only freeing space there lets reading go on. */
  get volumeFull(): { free: number; reserve: number } | undefined {
    return this.writer.room.volumeFull;
  }

  /** Resolves once there is room (or the spool closed). */
  waitForRoom(): Promise<void> {
    return this.writer.room.waitForRoom();
  }

  /** Appenders currently paused in waitForRoom() (back-pressure in effect). */
  get pausedReaders(): number {
    return this.writer.room.paused;
  }

  get pendingCount(): number {
    return this.writer.pending.records;
  }

  /** Records read and not yet acknowledged (in memory or on disk), with their bytes; in-flight ones included. */
  get spooled(): { records: number; bytes: number } {
    const c = this.contents;
    return { records: c.storedRecords + c.memoryRecords, bytes: c.storedBytes + c.memoryBytes };
  }

  /** What of it is in the store (spilled, or every record in `always` mode). */
  get onDisk(): { records: number; bytes: number } {
    return { records: this.contents.storedRecords, bytes: this.contents.storedBytes };
  }

  /** Event time of the oldest record held only in memory (Unix microseconds), null when none. */
  get oldestInMemoryTsMicros(): number | null {
    return this.contents.oldestInMemoryTsMicros;
  }

  /** The mode the spool runs in. */
  get spoolMode(): SpoolMode {
    return this.mode;
  }

  /** Bytes of records this spool holds in memory: pending a commit, and committed but waiting for delivery. */
  get heldBytes(): { pending: number; ready: number } {
    return { pending: this.writer.pending.bytes, ready: this.reader.ready.bytes };
  }

  /** Batches handed to delivery and not yet settled. */
  get batchesInFlight(): number {
    return this.reader.inFlight;
  }

  /** Nothing pending, nothing spooled, nothing in flight: everything read was delivered. */
  get idle(): boolean {
    return (
      this.writer.pending.records === 0 &&
      this.contents.storedRecords === 0 &&
      this.contents.memoryRecords === 0 &&
      this.reader.inFlight === 0 &&
      this.writer.committing === undefined
    );
  }

  /** Wakes appenders if there is room now (after memory pressure ended, for one). */
  recheckRoom(): void {
    this.writer.room.recheck();
  }

  /**
   * Commits everything pending now (after a commit in progress). Resolves false when it failed (it
   * is retried). Overflow mode: an explicit flush also writes the checkpoints acknowledgements
   * moved; the spool's own timers write them at most once per CHECKPOINT_INTERVAL_MS.
   */
  flush(checkpoints = true): Promise<boolean> {
    return this.writer.flush(checkpoints);
  }

  /**
   * Takes the next batch of segments (at least one, at most `maxRecords` records unless one segment
   * alone is larger) for one export, or null when nothing is waiting. Serialized: batches never overlap.
   */
  takeBatch(maxRecords: number, maxBytes = Number.POSITIVE_INFINITY): Promise<Batch | null> {
    return this.reader.takeBatch(maxRecords, maxBytes);
  }

  /** Resolves when segments were committed since, or at once when some are waiting to be taken. */
  waitForData(): Promise<void> {
    return this.reader.waitForData();
  }

  /**
   * Deletes a delivered (or rejected) batch. A failed delete (disk full) does not hold delivery up:
   * the batch is settled, and its deletion retried in the background until it succeeds. Its
   * records stay counted in the spool until then; after a restart they would be sent once more.
   */
  async acknowledge(batch: Batch): Promise<void> {
    const stored = this.reader.acknowledge(batch);
    if (this.ledger.dirtyCount > 0) this.writer.scheduleCheckpoints();
    this.writer.overflow.wakeLedger();
    this.writer.room.recheck();
    if (stored) await this.writer.deletes.delete(stored);
  }

  /**
   * How long delivery from memory has been paused because checkpoints are not being written (shared
   * store, overflow mode: overflow-writer.ts), in ms; undefined when it is not paused.
   */
  get memoryDeliveryPausedMs(): number | undefined {
    return this.writer.overflow.memoryPausedForMs;
  }

  /** The last commit's error while commits fail (disk full, store down), for readiness: no probe needed. */
  get commitError(): string | undefined {
    return this.writer.commitError;
  }

  /** Overflow mode: the last checkpoint write's error while they fail (commits of records may still succeed or not be due). */
  get checkpointError(): string | undefined {
    return this.writer.overflow.checkpointError;
  }

  /** Delivered batches whose deletion still fails (disk full): readiness reports them. */
  get undeletedBatches(): number {
    return this.writer.deletes.size;
  }

  /**
   * A batch that will not be acknowledged (shutdown, or its sessions were handed over): what is on
   * disk stays there; memory segments still held go back to the front of the queue (finish() then
   * spills them).
   */
  release(batch: Batch): void {
    this.reader.release(batch);
  }

  /**
   * Overflow mode: whether the segments of a batch whose request keeps failing should go to the
   * store rather than wait in flight for the collector (overflow-writer.ts belongsOnDisk): they are
   * past the memory window, and in flight they would hold back their sessions' checkpoints over all
   * that spills behind them. Always false in `always` mode: every record there is on disk already.
   */
  belongsOnDisk(segments: readonly Segment[]): boolean {
    return this.mode === 'overflow' && this.writer.overflow.belongsOnDisk(segments);
  }

  /**
   * Takes back a batch that delivery gives up on for now (belongsOnDisk): given back, then spilled
   * to the store at a commit now, ahead of what waits behind it, with the checkpoints that moves.
   * Delivery takes its records again from the store's backlog. Resolves false when the write failed
   * (the records go back to the ready queue, where delivery may take them again).
   */
  handBack(batch: Batch): Promise<boolean> {
    this.giveBack(batch.segments);
    return this.writer.flush(false);
  }

  /**
   * handBack's first half, for a spill under way (watchSpill): the batch of `segments` is no longer
   * in flight, and the commit that is about to spill stores it ahead of what waits behind it.
   */
  giveBack(segments: readonly Segment[]): void {
    this.writer.overflow.handBack(this.reader.giveBack(segments));
  }

  /**
   * Overflow mode: calls `watcher` just before a commit spills what waits in memory. Delivery gives
   * back then (giveBack) the batches asleep in their backoff that belong on disk: in flight, they
   * would hold back the checkpoints of what spills behind them, and given back later they would
   * reach the store after it.
   */
  watchSpill(watcher: () => void): void {
    this.writer.overflow.watchSpill(watcher);
  }

  /**
   * Drops what this spool holds in memory for sessions it no longer owns: pending records (never
   * committed; the new owner reads them again from the checkpoint) and committed segments not yet
   * taken (they stay in the store and move to the new owner). Call resync() afterwards.
   */
  forget(sessionIds: readonly string[]): void {
    this.writer.forget(sessionIds);
  }

  /** Recounts the spooled records from the store (after sessions came or went), between commits. */
  resync(): Promise<void> {
    return this.writer.resync();
  }

  /**
   * A claimed session's spool came along (renumbered after every id this spool has seen): read it
   * back as backlog. Everything not taken is in the store, so the ready queue is read back with it.
   */
  adopt(moved: { records: number; bytes: number; maxId: number }): Promise<void> {
    return this.writer.adopt(moved);
  }

  /** Claims sessions in the store and adopts their moved spool with no commit of this spool in between. */
  adoptClaimed<T extends { records: number; bytes: number; maxId: number }>(claim: () => Promise<T>): Promise<T> {
    return this.writer.adoptClaimed(claim);
  }

  /**
   * Overflow mode: resolves once every record of the session read so far is delivered or on disk
   * and its checkpoint written, so that recording its end cannot lose its last records to a crash;
   * or when the spool finishes. `always`: one commit.
   */
  persist(sessionId: string): Promise<void> {
    return this.writer.persist(sessionId);
  }

  /**
   * The session's end or removal is recorded (after persist()): the spool forgets the position it
   * remembered for it, so sessions that come and go leave nothing behind. Followed again, the
   * session starts from its stored checkpoint.
   */
  ended(sessionId: string): void {
    this.ledger.release(sessionId);
  }

  /** Final commit; wakes every reader waiting for room so it can exit. Delivery may go on draining. Idempotent. */
  readonly close = (): Promise<boolean> => this.writer.close();

  /**
   * After delivery stopped (overflow mode): what is still in memory goes to the store with the
   * checkpoints it moves, and the moved checkpoints are written, so the next start sends it.
   * Resolves false when that failed (the service then replays it from the checkpoint). Idempotent.
   */
  readonly finish = (): Promise<boolean> => this.writer.finish();
}
