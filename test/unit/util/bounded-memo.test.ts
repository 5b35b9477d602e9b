import { describe, expect, it } from 'vitest';
import { boundedMemo } from '../../../src/util/bounded-memo.js';

describe('boundedMemo', () => {
  it('computes a key once while it is remembered', () => {
    const calls: string[] = [];
    const f = boundedMemo(4, (k) => (calls.push(k), k.length));
    expect([f('a'), f('bb'), f('a'), f('bb')]).toEqual([1, 2, 1, 2]);
    expect(calls).toEqual(['a', 'bb']);
  });

  it('starts over past its limit and still answers right', () => {
    const calls: string[] = [];
    const f = boundedMemo(2, (k) => (calls.push(k), k.toUpperCase()));
    expect(['a', 'b', 'c', 'a', 'c'].map(f)).toEqual(['A', 'B', 'C', 'A', 'C']);
    // 'c' cleared the memo (a, b gone), so 'a' is computed again; 'c' was kept.
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
  });

  it('remembers falsy values (false, 0, empty string)', () => {
    let n = 0;
    const f = boundedMemo(8, (k) => (n++, k === 'f' ? false : k === 'z' ? 0 : ''));
    for (let i = 0; i < 3; i++) for (const k of ['f', 'z', 'e']) f(k);
    expect(n).toBe(3);
  });
});
