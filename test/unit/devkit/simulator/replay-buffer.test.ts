import { describe, expect, it } from 'vitest';
import { ReplayBuffer } from '../../../../src/devkit/simulator/replay-buffer.js';

describe('ReplayBuffer', () => {
  it('is empty at first: oldest is lastSeq + 1', () => {
    const b = new ReplayBuffer<string>(3);
    expect([b.oldestSeq, b.lastSeq, b.size]).toEqual([1, 0, 0]);
    expect(b.get(1)).toBeUndefined();
  });

  it('evicts the oldest when full and looks seqs up in place', () => {
    const b = new ReplayBuffer<string>(3);
    for (let s = 1; s <= 7; s++) b.push(s, `f${s}`);
    expect([b.oldestSeq, b.lastSeq, b.size]).toEqual([5, 7, 3]);
    expect([b.get(4), b.get(5), b.get(6), b.get(7), b.get(8)]).toEqual([undefined, 'f5', 'f6', 'f7', undefined]);
  });

  it('rejects out-of-order seqs and resets for a new epoch', () => {
    const b = new ReplayBuffer<string>(2);
    b.push(1, 'a');
    expect(() => b.push(3, 'c')).toThrow();
    b.reset(1);
    expect([b.oldestSeq, b.lastSeq]).toEqual([1, 0]);
    b.push(1, 'z');
    expect(b.get(1)).toBe('z');
    expect(() => new ReplayBuffer<string>(0)).toThrow();
  });
});
