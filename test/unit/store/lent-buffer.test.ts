// An ingest worker's batch buffer is lent to the main thread and given back for reuse once nothing
// there reads it (store/lent-buffer.ts). Given back too early, the worker writes new records over
// bytes still to be delivered; so every give-back here scribbles over the buffer, and what is
// delivered or stored afterwards must still be intact. Given back never, the buffer is only
// collected instead of reused: the common paths (delivered, spilled, copied into a joined segment)
// must give it back, exactly once.
import { describe, expect, it } from 'vitest';
import { LentBuffer } from '../../../src/store/lent-buffer.js';
import { PendingSegments } from '../../../src/store/pending-segments.js';
import { Spool } from '../../../src/store/spool.js';
import { SqliteStore } from '../../../src/store/sqlite-store.js';
import { splitRecords, type NewSegment } from '../../../src/wire/segment-framing.js';

function framed(body: string): Buffer {
  const b = Buffer.from(body);
  return Buffer.concat([Buffer.from([0x12, b.length]), b]);
}

/** One worker batch: the records back to back in one buffer, lent; `given` counts its give-backs. */
function batch(records: Array<[session: string, seq: number]>): {
  lent: LentBuffer;
  given: () => number;
  appends: Array<{ sessionId: string; seq: number; record: Buffer }>;
} {
  const parts = records.map(([s, q]) => framed(`${s}:${q}`));
  const buf = Buffer.concat(parts);
  let given = 0;
  const lent = new LentBuffer(() => {
    given++;
    buf.fill(0xee);
  });
  let off = 0;
  const appends = records.map(([sessionId, seq], i) => {
    const record = buf.subarray(off, off + parts[i]!.length);
    off += record.length;
    return { sessionId, seq, record };
  });
  return { lent, given: () => given, appends };
}

const bodies = (segments: readonly NewSegment[]): string[] =>
  segments.flatMap((s) => splitRecords(s.payload).map((r) => r.subarray(2).toString()));

describe('lent buffers: given back once nothing reads them', () => {
  it('counts the views borrowed; the hand-over itself holds it until done()', () => {
    let given = 0;
    const lent = new LentBuffer(() => given++);
    lent.borrow(2);
    lent.done();
    lent.release();
    expect(given).toBe(0);
    lent.release();
    expect(given).toBe(1);
    const unused = new LentBuffer(() => given++);
    unused.done();
    expect(given).toBe(2);
  });

  it("a run's segment carries its loan: released once (however many copies of the segment), then given back", () => {
    const p = new PendingSegments();
    const b = batch([
      ['a', 1],
      ['a', 2],
    ]);
    for (const a of b.appends) p.append({ ...a, epoch: 0, tsMicros: 1, lent: b.lent });
    b.lent.done();
    const taken = p.take();
    p.committed(taken);
    expect(b.given()).toBe(0);
    const [seg] = taken.segments;
    expect(bodies([seg!])).toEqual(['a:1', 'a:2']);
    const copy = { ...seg!, id: -1 };
    copy.loan?.release();
    seg!.loan?.release();
    expect(b.given()).toBe(1);
  });

  it('records joined from several batches are released when their commit is done with them, not at the seal', () => {
    const p = new PendingSegments();
    const one = batch([['a', 1]]);
    const two = batch([['a', 2]]);
    for (const b of [one, two]) {
      for (const a of b.appends) p.append({ ...a, epoch: 0, tsMicros: 1, lent: b.lent });
      b.lent.done();
    }
    const failed = p.take();
    expect(failed.segments[0]!.loan).toBeUndefined();
    // A failed commit puts the records back: still read (by the next take), nothing given back.
    p.restore(failed);
    expect([one.given(), two.given()]).toEqual([0, 0]);
    const taken = p.take();
    expect(bodies(taken.segments)).toEqual(['a:1', 'a:2']);
    p.committed(taken);
    expect([one.given(), two.given()]).toEqual([1, 1]);
    expect(bodies(taken.segments)).toEqual(['a:1', 'a:2']);
  });

  it('overflow mode: the buffer goes back once every segment over it was delivered, not while one is in flight', async () => {
    const store = new SqliteStore(':memory:');
    const spool = await Spool.open({
      store,
      mode: 'overflow',
      maxBytes: 1 << 30,
      memoryMaxBytes: 1 << 30,
      commitMaxRecords: 100_000,
      commitIntervalMs: 60_000,
    });
    const b = batch([
      ['a', 1],
      ['b', 1],
      ['a', 2],
    ]);
    for (const a of b.appends) spool.append({ ...a, epoch: 0, tsMicros: 1, lent: b.lent });
    b.lent.done();
    await spool.flush();
    const first = await spool.takeBatch(1);
    const second = await spool.takeBatch(1);
    expect([first?.segments.length, second?.segments.length]).toEqual([1, 1]);
    await spool.acknowledge(first!);
    expect(b.given()).toBe(0);
    expect(bodies(second!.segments)).toEqual(['b:1']);
    await spool.acknowledge(second!);
    expect(b.given()).toBe(1);
    await spool.close();
  });

  it('overflow mode: a spill gives the buffer back once the store holds the records', async () => {
    const store = new SqliteStore(':memory:');
    const spool = await Spool.open({
      store,
      mode: 'overflow',
      maxBytes: 1 << 30,
      // Every seal is over the window: what waits in memory spills at once.
      memoryMaxBytes: 1,
      commitMaxRecords: 100_000,
      commitIntervalMs: 60_000,
    });
    await store.putSession({ id: 'a', attributes: {} }, 'config');
    const b = batch([
      ['a', 1],
      ['a', 2],
    ]);
    for (const a of b.appends) spool.append({ ...a, epoch: 0, tsMicros: 1, lent: b.lent });
    b.lent.done();
    await spool.flush();
    expect(b.given()).toBe(1);
    expect(spool.onDisk.records).toBe(2);
    const stored = await spool.takeBatch(100);
    expect(bodies(stored!.segments)).toEqual(['a:1', 'a:2']);
    await spool.acknowledge(stored!);
    await spool.close();
  });
});
