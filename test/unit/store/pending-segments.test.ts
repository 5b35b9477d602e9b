import { describe, expect, it } from 'vitest';
import { PendingSegments } from '../../../src/store/pending-segments.js';

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
