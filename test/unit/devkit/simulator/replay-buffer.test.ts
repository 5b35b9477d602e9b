// The replay buffer is a view on the session's frame log: the last `capacity` frames of the
// current epoch, looked up by seq.
import { describe, expect, it } from 'vitest';
import { FrameLog } from '../../../../src/devkit/simulator/frame-log.js';
import { ReplayBuffer } from '../../../../src/devkit/simulator/replay-buffer.js';

function setup(capacity: number, retain = capacity): { log: FrameLog; b: ReplayBuffer; push: (text: string) => void } {
  const log = new FrameLog(retain);
  return { log, b: new ReplayBuffer(log, capacity), push: (text) => log.pushText(text, 0, 'c') };
}

const text = (f: Buffer | undefined): string | undefined => f?.toString();

describe('ReplayBuffer', () => {
  it('is empty at first: oldest is lastSeq + 1', () => {
    const { b } = setup(3);
    expect([b.oldestSeq, b.lastSeq, b.size]).toEqual([1, 0, 0]);
    expect(b.get(1)).toBeUndefined();
  });

  it('evicts the oldest when full and looks seqs up in place', () => {
    const { b, push } = setup(3);
    for (let s = 1; s <= 7; s++) push(`f${s}`);
    expect([b.oldestSeq, b.lastSeq, b.size]).toEqual([5, 7, 3]);
    expect([4, 5, 6, 7, 8].map((s) => text(b.get(s)))).toEqual([undefined, 'f5', 'f6', 'f7', undefined]);
  });

  it('keeps its own window when the log keeps more (the archive)', () => {
    const { log, b, push } = setup(2, 10);
    for (let s = 1; s <= 5; s++) push(`f${s}`);
    expect([log.first, b.oldestSeq, b.lastSeq, text(b.get(3)), text(b.get(4))]).toEqual([0, 4, 5, undefined, 'f4']);
  });

  it('resets for a new epoch: seq starts again, the old epoch stays in the log only', () => {
    const { log, b, push } = setup(2, 10);
    push('a');
    push('b');
    b.reset(1);
    expect([b.oldestSeq, b.lastSeq, b.size]).toEqual([1, 0, 0]);
    push('z');
    expect([text(b.get(1)), text(b.get(2)), log.end]).toEqual(['z', undefined, 3]);
    expect(() => new ReplayBuffer(log, 0)).toThrow();
    expect(() => new ReplayBuffer(log, 11)).toThrow();
  });

  it('serves a frame replaced on the wire until it leaves the buffer or the epoch ends', () => {
    const { b, push } = setup(2);
    push('a');
    push('b');
    b.replaceOnWire(2, Buffer.from('torn'));
    const parts: Buffer[] = [];
    expect(b.spans(1, 2, 1 << 20, parts)).toBe(2);
    const chunks: Buffer[] = [];
    expect(b.chunks(1, 2, 1 << 20, chunks)).toBe(2);
    expect([text(b.get(2)), Buffer.concat(parts).toString(), Buffer.concat(chunks).toString()]).toEqual([
      'torn',
      'atorn',
      '1\r\na\r\n4\r\ntorn\r\n',
    ]);
    push('c');
    push('d');
    expect([text(b.get(3)), text(b.get(4))]).toEqual(['c', 'd']);
    b.reset(1);
    push('e');
    expect(text(b.get(1))).toBe('e');
  });

  it('hands out consecutive frames as HTTP chunks in one view, and stops once the byte budget is reached', () => {
    const { b, push } = setup(10);
    for (let s = 1; s <= 6; s++) push(`f${s};`);
    const chunks: Buffer[] = [];
    expect(b.chunks(2, 6, 1 << 20, chunks)).toBe(6);
    expect(chunks.map((p) => p.toString())).toEqual(['3\r\nf2;\r\n3\r\nf3;\r\n3\r\nf4;\r\n3\r\nf5;\r\n3\r\nf6;\r\n']);
    const frames: Buffer[] = [];
    // Frames are taken while the total is below the budget: 3 + 3 < 7, then 9 ≥ 7.
    expect(b.spans(2, 6, 7, frames)).toBe(4);
    expect(frames.map((p) => p.toString())).toEqual(['f2;', 'f3;', 'f4;']);
  });
});
