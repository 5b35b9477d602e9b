// The walk of the list: the next page is asked for while the previous one is being handed on (a
// page of 100 new sessions costs one round trip, not a round trip plus recording them), pages are
// still handed on one at a time and in order, and a handler's failure ends the walk.
import { describe, expect, it } from 'vitest';
import { walkList, type ListClient } from '../../../src/discovery/list-sessions.js';

function pagedClient(pages: number, asked: number[]): ListClient {
  return {
    listBrowsers: async (q) => {
      asked.push(q.offset);
      const n = q.offset / 100;
      return {
        kind: 'ok',
        sessions: [{ id: `s${n}`, tags: {} }],
        invalid: 0,
        nextOffset: n + 1 < pages ? q.offset + 100 : undefined,
      };
    },
  };
}

describe('walkList', () => {
  it('reads the next page while a page is handed on, and hands pages on one at a time, in order', async () => {
    const asked: number[] = [];
    const handed: string[] = [];
    let inHandler = 0;
    let maxInHandler = 0;
    const r = await walkList(pagedClient(3, asked), { tags: {} }, undefined, async (page) => {
      inHandler++;
      maxInHandler = Math.max(maxInHandler, inHandler);
      const askedWhenHanded = asked.length;
      // Hold the page until the next one has been asked for (the last page: nothing more to ask).
      for (let i = 0; i < 50 && asked.length === askedWhenHanded && handed.length < 2; i++) await Promise.resolve();
      handed.push(`${page[0]!.id}:${asked.length}`);
      inHandler--;
    });
    expect(r).toMatchObject({ kind: 'ok', pages: 3, matched: 3 });
    expect(handed).toEqual(['s0:2', 's1:3', 's2:3']);
    expect(maxInHandler).toBe(1);
  });

  it('a handler that fails ends the walk with its error', async () => {
    const asked: number[] = [];
    await expect(
      walkList(pagedClient(5, asked), { tags: {} }, undefined, async () => {
        throw new Error('store down');
      }),
    ).rejects.toThrow('store down');
    expect(asked.length).toBeLessThanOrEqual(2);
  });
});
