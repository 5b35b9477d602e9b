// What the spool holds, counted: the sealed memory segments (overflow mode; ids < 0, the store has
// no copy) and the records committed to the store and not yet acknowledged. The writer and the
// reader both move records in and out of it; the room and the status read its counts.
import type { NewSegment, Segment } from '../wire/segment-framing.js';

export class SpoolContents {
  /** Records and bytes committed and not yet acknowledged (what the size limit counts). */
  storedRecords = 0;
  storedBytes = 0;
  /** Overflow mode: the sealed memory segments not yet delivered (waiting or in flight), by id (< 0). */
  private readonly memory = new Map<number, { segment: Segment; sealedAt: number }>();
  memoryRecords = 0;
  memoryBytes = 0;
  private nextMemoryId = -1;

  /** Keeps a sealed segment in memory under the next memory id. */
  seal(seg: NewSegment, sealedAt: number): Segment {
    const segment: Segment = { ...seg, id: this.nextMemoryId-- };
    this.memory.set(segment.id, { segment, sealedAt });
    this.memoryRecords += segment.records;
    this.memoryBytes += segment.payload.length;
    return segment;
  }

  /** True while the memory segment is held (not delivered, spilled or forgotten). */
  inMemory(id: number): boolean {
    return this.memory.has(id);
  }

  /** When the memory segment was sealed, undefined when it is not held. */
  sealedAt(id: number): number | undefined {
    return this.memory.get(id)?.sealedAt;
  }

  /** The memory segment was delivered, spilled or given up. */
  dropMemory(s: Segment): void {
    if (!this.memory.delete(s.id)) return;
    this.memoryRecords -= s.records;
    this.memoryBytes -= s.payload.length;
  }

  /** Drops the memory segments, waiting or in flight, of these sessions. */
  forgetMemory(sessionIds: ReadonlySet<string>): void {
    for (const { segment } of [...this.memory.values()])
      if (sessionIds.has(segment.sessionId)) this.dropMemory(segment);
  }

  stored(records: number, bytes: number): void {
    this.storedRecords += records;
    this.storedBytes += bytes;
  }

  /** Never below zero: a batch of a session given up meanwhile was already taken off by a recount. */
  unstored(records: number, bytes: number): void {
    this.storedRecords = Math.max(0, this.storedRecords - records);
    this.storedBytes = Math.max(0, this.storedBytes - bytes);
  }

  /** The store's own count (at open, and after sessions came or went). */
  recount(t: { records: number; bytes: number }): void {
    this.storedRecords = t.records;
    this.storedBytes = t.bytes;
  }

  /** Event time of the oldest record held only in memory (Unix microseconds), null when none. */
  get oldestInMemoryTsMicros(): number | null {
    let oldest: number | null = null;
    for (const { segment } of this.memory.values())
      if (oldest === null || segment.oldestTsMicros < oldest) oldest = segment.oldestTsMicros;
    return oldest;
  }
}
