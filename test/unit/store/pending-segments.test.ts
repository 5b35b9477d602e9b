import { describe, expect, it } from 'vitest';
import { PendingSegments, UNCAPTURED, type SpanStateSource } from '../../../src/store/pending-segments.js';

describe('pending segments', () => {
  it("one session's records become one segment, and every append moves its checkpoint", () => {
    const p = new PendingSegments();
    p.append({ sessionId: 'a', seq: 1, epoch: 0, tsMicros: 10, record: Buffer.from('ab'), sourceId: undefined });
    p.append({ sessionId: 'a', seq: 2, epoch: 0, tsMicros: 9, record: null, sourceId: 'src' });
    p.append({ sessionId: 'a', seq: 3, epoch: 0, tsMicros: 11, record: Buffer.from('c'), sourceId: undefined });
    const batch = p.take();
    expect(batch.segments).toHaveLength(1);
    expect(batch.segments[0]).toMatchObject({
      sessionId: 'a',
      records: 2,
      firstSeq: 1,
      lastSeq: 3,
      oldestTsMicros: 10,
    });
    expect(batch.segments[0]!.payload.toString()).toBe('abc');
    expect(batch.checkpoints).toEqual([{ sessionId: 'a', checkpoint: 3, epoch: 0, sourceId: 'src' }]);
  });

  it('traces on: the span state is captured when the batch is sealed, and a batch without one is flagged uncaptured', () => {
    const p = new PendingSegments();
    const captured = () => () => 'state';
    const missed = () => undefined;
    p.append({ sessionId: 'a', seq: 1, epoch: 0, tsMicros: 1, record: Buffer.from('a'), spans: missed });
    p.append({ sessionId: 'a', seq: 2, epoch: 0, tsMicros: 1, record: Buffer.from('b'), spans: captured });
    p.append({ sessionId: 'b', seq: 7, epoch: 0, tsMicros: 1, record: Buffer.from('c'), spans: captured });
    p.append({ sessionId: 'b', seq: 8, epoch: 0, tsMicros: 1, record: Buffer.from('d'), spans: missed });
    const [a, b] = p.take().checkpoints;
    expect(a!.spans?.()).toBe('state'); // the last append's source decides
    expect(a!.uncaptured).toBeUndefined();
    expect(b).toEqual({ sessionId: 'b', checkpoint: 8, epoch: 0, uncaptured: true });
  });

  it("traces on, a worker's batches: a captured position followed by UNCAPTURED appends in one seal keeps its move", () => {
    const p = new PendingSegments();
    const worker = () => () => 'state at 2';
    const append = (seq: number, spans: SpanStateSource, sourceId?: string) =>
      p.append({ sessionId: 'a', seq, epoch: 0, tsMicros: 1, record: Buffer.from('r'), sourceId, spans });
    append(1, UNCAPTURED);
    append(2, worker, 'src-1');
    append(3, UNCAPTURED, 'src-2');
    append(4, UNCAPTURED);
    const batch = p.take();
    // The move to 4 is flagged; the checkpoint may move to 2 instead, with the state captured there.
    const [c] = batch.checkpoints;
    expect({ ...c, capturedBefore: undefined }).toEqual({
      sessionId: 'a',
      checkpoint: 4,
      epoch: 0,
      sourceId: 'src-2',
      uncaptured: true,
      capturedBefore: undefined,
    });
    const before = c!.capturedBefore!;
    expect({ ...before, spans: before.spans?.() }).toEqual({
      sessionId: 'a',
      checkpoint: 2,
      epoch: 0,
      sourceId: 'src-1',
      spans: 'state at 2',
    });
    expect(batch.records).toBe(4);
    // A captured append after them forgets the earlier point: the end is captured.
    append(5, UNCAPTURED);
    append(6, worker);
    expect(p.take().checkpoints.map((c) => [c.checkpoint, c.capturedBefore])).toEqual([[6, undefined]]);
  });

  it('a failed batch put back keeps its captured point in front of uncaptured appends made meanwhile', () => {
    const p = new PendingSegments();
    const worker = () => () => 'state';
    const append = (seq: number, spans: SpanStateSource) =>
      p.append({ sessionId: 'a', seq, epoch: 0, tsMicros: 1, record: Buffer.from('r'), spans });
    append(1, worker);
    const failed = p.take();
    append(2, UNCAPTURED);
    p.restore(failed);
    expect(p.take().checkpoints.map((c) => [c.checkpoint, c.uncaptured, c.capturedBefore?.checkpoint])).toEqual([
      [2, true, 1],
    ]);
  });

  it.each([
    ['a record of its own is kept as it is', () => Buffer.alloc(4, 'solo'), true],
    [
      "a small view into a larger buffer (a worker's batch) is copied, so the batch can be freed",
      () => {
        const batch = Buffer.alloc(64, 'x');
        batch.write('solo', 10);
        return batch.subarray(10, 14);
      },
      false,
    ],
  ])('%s', (_name, make, same) => {
    const p = new PendingSegments();
    const rec = make();
    p.append({ sessionId: 'a', seq: 1, epoch: 0, tsMicros: 1, record: rec, sourceId: undefined });
    const payload = p.take().segments[0]!.payload;
    expect(payload.toString()).toBe('solo');
    expect(payload.buffer === rec.buffer).toBe(same);
  });
});
