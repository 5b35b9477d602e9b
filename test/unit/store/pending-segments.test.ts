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

  // A worker's batch: records side by side in one buffer. Copying them once more made the main
  // thread's garbage collector run several times a second (pending-segments.ts).
  const batch = Buffer.from(new TextEncoder().encode('..abcdef..ghij').buffer);
  /** True when `payload` is the very memory of `record` (not a copy). */
  const sameBytes = (payload: Buffer, record: Buffer) =>
    payload.buffer === record.buffer && payload.byteOffset === record.byteOffset;
  it.each([
    ['a record of its own is kept as it is', [Buffer.alloc(4, 'solo')], 'solo', true],
    ['one view into a larger buffer is kept as it is', [batch.subarray(2, 4)], 'ab', true],
    [
      'records side by side in one buffer become one view over them',
      [batch.subarray(2, 4), batch.subarray(4, 5), batch.subarray(5, 8)],
      'abcdef',
      true,
    ],
    [
      'records with a gap between them are joined in a buffer of their own',
      [batch.subarray(2, 4), batch.subarray(10, 12)],
      'abgh',
      false,
    ],
    ['records out of order in one buffer are joined', [batch.subarray(4, 6), batch.subarray(2, 4)], 'cdab', false],
    ['records in different buffers are joined', [batch.subarray(2, 4), Buffer.from('xy')], 'abxy', false],
  ])('%s', (_name, records, text, view) => {
    const p = new PendingSegments();
    records.forEach((record, i) =>
      p.append({ sessionId: 'a', seq: i + 1, epoch: 0, tsMicros: 1, record, sourceId: undefined }),
    );
    const seg = p.take().segments[0]!;
    expect(seg.payload.toString()).toBe(text);
    expect(seg.records).toBe(records.length);
    expect(sameBytes(seg.payload, records[0]!)).toBe(view);
  });

  it('a failed batch put back in front keeps one view only when the newer records continue its run', () => {
    for (const [newer, view] of [
      [batch.subarray(4, 6), true],
      [batch.subarray(10, 12), false],
    ] as const) {
      const p = new PendingSegments();
      p.append({ sessionId: 'a', seq: 1, epoch: 0, tsMicros: 1, record: batch.subarray(2, 4) });
      const failed = p.take();
      p.append({ sessionId: 'a', seq: 2, epoch: 0, tsMicros: 1, record: newer });
      p.restore(failed);
      const seg = p.take().segments[0]!;
      expect(seg.payload.toString()).toBe(`ab${newer.toString()}`);
      expect(sameBytes(seg.payload, batch.subarray(2, 4))).toBe(view);
    }
  });
});
