import { describe, expect, it } from 'vitest';
import { preferredOwner } from '../../../src/cluster/placement.js';

const sessions = Array.from({ length: 3000 }, (_, i) => `session-${i}`);
const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `replica-${i}`);
const place = (replicas: string[]): Map<string, string> =>
  new Map(sessions.map((s) => [s, preferredOwner(s, replicas)!]));

describe('rendezvous placement', () => {
  it('has no owner without replicas and the only one with one', () => {
    expect(preferredOwner('s', [])).toBeUndefined();
    expect(preferredOwner('s', ['r'])).toBe('r');
  });

  // Every replica, of whatever version, must compute the same owner: these are the owners the
  // hash gave when they were pinned (non-ASCII ids hash by UTF-16 unit, as JavaScript holds them).
  it.each([
    ['', 'replica-2'],
    ['a', 'replica-0'],
    ['s1', 'replica-3'],
    ['session-42', 'replica-4'],
    ['f3b1c2d4-0000-4a5b-9c8d-123456789abc', 'replica-3'],
    ['café', 'replica-2'],
    ['会话-7', 'replica-2'],
    ['emoji-😀', 'replica-0'],
  ])('places %j on %s, as every version before', (session, owner) => {
    expect(preferredOwner(session, names(5))).toBe(owner);
  });

  it('does not depend on the order replicas are listed in', () => {
    for (const s of sessions.slice(0, 200))
      expect(preferredOwner(s, ['a', 'b', 'c'])).toBe(preferredOwner(s, ['c', 'a', 'b']));
  });

  it.each([2, 3, 5])('spreads sessions evenly over %i replicas (within 15 %%)', (n) => {
    const counts = new Map<string, number>();
    for (const owner of place(names(n)).values()) counts.set(owner, (counts.get(owner) ?? 0) + 1);
    for (const c of counts.values())
      expect(Math.abs(c - sessions.length / n)).toBeLessThan((0.15 * sessions.length) / n);
  });

  // Scaling 2 → 3 → 5 → 3: only the sessions the newcomers win (or the leavers held) move.
  it.each([
    [2, 3],
    [3, 5],
    [5, 3],
  ])('moves about the minimum when scaling %i → %i replicas', (from, to) => {
    const before = place(names(from));
    const after = place(names(to));
    let moved = 0;
    for (const s of sessions) if (before.get(s) !== after.get(s)) moved++;
    const ideal = Math.abs(to - from) / Math.max(from, to);
    expect(moved / sessions.length).toBeGreaterThan(ideal - 0.05);
    expect(moved / sessions.length).toBeLessThan(ideal + 0.05);
  });
});
