import { describe, expect, it } from 'vitest';
import { SeenSet } from '../../../bench/seen-set.js';

describe('SeenSet', () => {
  it('counts each (session, seq) once and the repeats as duplicates', () => {
    const s = new SeenSet();
    const results = ['a:1', 'a:2', 'b:1', 'a:1', 'a:100000', 'b:1', 'a:b:3', 'a:b:3'].map((u) => s.add(u));
    expect(results).toEqual(['new', 'new', 'new', 'duplicate', 'new', 'duplicate', 'new', 'duplicate']);
    expect({ unique: s.unique, duplicates: s.duplicates }).toEqual({ unique: 5, duplicates: 3 });
  });

  it('rejects uids without a numeric seq', () => {
    const s = new SeenSet();
    expect(['', 'a', ':1', 'a:', 'a:x', 'a:-1', 'a:1.5'].map((u) => s.add(u))).toEqual(Array(7).fill('invalid'));
    expect(s.unique).toBe(0);
  });
});
