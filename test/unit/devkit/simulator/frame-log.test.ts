// The frame log's slabs: frames stay where they were written, a frame larger than a slab gets one of
// its own, and slabs are released once no retained frame lies in them.
import { describe, expect, it } from 'vitest';
import { FrameLog } from '../../../../src/devkit/simulator/frame-log.js';

describe('FrameLog', () => {
  it('keeps the last `retain` frames with their ts and category, by absolute index', () => {
    const log = new FrameLog(3);
    for (let i = 0; i < 5; i++) log.pushText(`frame ${i}`, 1000 + i, i % 2 === 0 ? 'even' : 'odd');
    expect([log.first, log.end]).toEqual([2, 5]);
    expect([2, 3, 4].map((i) => [log.frame(i).toString(), log.ts(i), log.category(i)])).toEqual([
      ['frame 2', 1002, log.codeOf('even')],
      ['frame 3', 1003, log.codeOf('odd')],
      ['frame 4', 1004, log.codeOf('even')],
    ]);
    expect(log.codeOf('never')).toBe(-1);
    expect(() => new FrameLog(0)).toThrow();
  });

  it('writes UTF-8 and keeps 16-digit microsecond timestamps exactly', () => {
    const log = new FrameLog(2);
    log.pushText('ünï 🚀', 1_795_000_000_123_456, 'c');
    log.push(Buffer.from([1, 2, 3]), 0, 'c');
    expect([log.frame(0).toString(), log.byteLength(0), log.ts(0)]).toEqual(['ünï 🚀', 10, 1_795_000_000_123_456]);
    expect([...log.frame(1)]).toEqual([1, 2, 3]);
  });

  it('a frame larger than a slab gets one of its own; whole slabs go once nothing retained lies in them', () => {
    const log = new FrameLog(4);
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    log.push(big, 0, 'c');
    log.pushText('small', 0, 'c');
    expect(log.frame(0).equals(big)).toBe(true);
    expect(log.slabCount).toBe(2);
    for (let i = 0; i < 4; i++) log.pushText(`s${i}`, 0, 'c');
    // The big frame and 'small' were dropped; only the slab of the last four remains.
    expect([log.first, log.slabCount]).toEqual([2, 1]);
  });

  it('a view handed out keeps its bytes when the log moves on', () => {
    const log = new FrameLog(1);
    log.pushText('first', 0, 'c');
    const held = log.frame(0);
    for (let i = 0; i < 5000; i++) log.pushText(`frame number ${i} `.repeat(20), 0, 'c');
    expect(held.toString()).toBe('first');
  });

  it('the bulk path writes in place: append() gives the offset in writeSlab', () => {
    const log = new FrameLog(100);
    for (let i = 0; i < 50; i++) {
      const bytes = Buffer.from(`frame-${i}-`.repeat(200));
      const at = log.append(bytes.length, i, 'c');
      bytes.copy(log.writeSlab, at);
    }
    for (let i = 0; i < 50; i++) expect(log.frame(i).toString()).toBe(`frame-${i}-`.repeat(200));
  });
});
