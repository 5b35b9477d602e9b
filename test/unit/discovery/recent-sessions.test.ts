// The walk of the newest sessions, as pure decisions: when the next page is wanted (only a list
// shown newest first stops early, at its cutoff) and which sessions of a page are taken.
import { describe, expect, it } from 'vitest';
import { initialOrder, readOnPast, recentOf } from '../../../src/discovery/recent-sessions.js';
import type { ListedSession } from '../../../src/upstream/browser-list.js';

const s = (createdAt: number | undefined, deletedAt?: number): ListedSession => ({
  id: `s${createdAt}-${deletedAt}`,
  tags: {},
  ...(createdAt !== undefined ? { createdAt } : {}),
  ...(deletedAt !== undefined ? { deletedAt } : {}),
});

describe('readOnPast', () => {
  const CUT = 100;
  it.each([
    { what: 'newest first, still above the cutoff', pages: [[s(300), s(200), s(150)]], wanted: true },
    { what: 'newest first, reaches the cutoff exactly', pages: [[s(300), s(100)]], wanted: true },
    { what: 'newest first, below the cutoff', pages: [[s(300), s(99)]], wanted: false },
    {
      what: 'below the cutoff on the second page',
      pages: [
        [s(300), s(200)],
        [s(200), s(50)],
      ],
      wanted: false,
    },
    { what: 'one session only: the order is not shown', pages: [[s(50)]], wanted: true },
    { what: 'all at the same time: the order is not shown', pages: [[s(50), s(50), s(50)]], wanted: true },
    { what: 'oldest first', pages: [[s(50), s(60), s(70)]], wanted: true },
    {
      what: 'rising across pages',
      pages: [
        [s(300), s(200)],
        [s(250), s(10)],
      ],
      wanted: true,
    },
    { what: 'an undated session', pages: [[s(300), s(undefined), s(10)]], wanted: true },
  ])('$what → next page wanted: $wanted', ({ pages, wanted }) => {
    const st = initialOrder();
    let last = true;
    for (const p of pages) last = readOnPast(st, p, CUT);
    expect(last).toBe(wanted);
  });

  it('keeps the latest created_at read, whatever the order', () => {
    const st = initialOrder();
    readOnPast(st, [s(5), s(900), s(undefined), s(7)], 0);
    expect(st.newest).toBe(900);
    expect(st.broken).toBe(true);
  });
});

describe('recentOf', () => {
  it.each([
    { what: 'live, old', item: s(10), taken: true },
    { what: 'deleted, created since the cutoff', item: s(150, 160), taken: true },
    { what: 'deleted since the cutoff, created before', item: s(10, 120), taken: true },
    { what: 'deleted at the cutoff', item: s(10, 100), taken: true },
    { what: 'deleted before the cutoff', item: s(10, 99), taken: false },
    { what: 'deleted before the cutoff, undated creation', item: s(undefined, 50), taken: false },
  ])('$what → taken: $taken', ({ item, taken }) => {
    expect(recentOf([item], 100)).toEqual(taken ? [item] : []);
  });
});
