// How many large archive pages a reader holds at once: repairs of many sessions at the same moment
// read their small pages (a tail of a few events) all at once, while pages that grow past
// LARGE_PAGE_BYTES as they are read (up to 128 MiB each) wait for a permit and hold it until they
// have been handed on. A failed try gives its permit back.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ArchiveReader, CONCURRENT_PAGES, LARGE_PAGE_BYTES } from '../../../src/upstream/archive.js';
import type { ArchivePageResult } from '../../../src/upstream/client.js';
import type { LargeBodyGate } from '../../../src/upstream/read-body.js';

/** A fake archive whose pages are `bytes` long: as the real client does, it enters the gate past its threshold. */
function world(bytes: number, failFirst = false) {
  let reading = 0;
  let peak = 0;
  let calls = 0;
  const pending: Array<() => void> = [];
  const client = {
    listEvents: async (
      id: string,
      _q: unknown,
      _signal?: AbortSignal,
      gate?: LargeBodyGate,
    ): Promise<ArchivePageResult> => {
      calls++;
      if (gate && bytes > gate.aboveBytes) await gate.enter();
      reading++;
      peak = Math.max(peak, reading);
      await new Promise<void>((r) => pending.push(r));
      if (failFirst && calls <= 20) {
        reading--;
        throw new Error('cut short');
      }
      return {
        kind: 'ok',
        items: [{ seq: 1, event: { type: 'x', category: 'system', ts: 1, source: { kind: 'api' }, data: { id } } }],
        hasMore: false,
      };
    },
  };
  const reader = new ArchiveReader(client, pino({ level: 'silent' }), { mode: 'auto', retryDelayMs: 0 });
  return {
    reader,
    peak: () => peak,
    handedOn: () => reading--,
    async run(n: number): Promise<string[]> {
      const handed: string[] = [];
      const scans = Array.from({ length: n }, (_, i) =>
        reader.scan(`s${i}`, {
          sinceMicros: 0,
          onPage: () => {
            handed.push(`s${i}`);
            reading--; // the page is let go once handed on
            return true;
          },
        }),
      );
      while (handed.length < n) {
        await new Promise((r) => setImmediate(r));
        pending.shift()?.();
      }
      expect((await Promise.all(scans)).every((r) => r.kind === 'ok')).toBe(true);
      return handed;
    },
  };
}

describe('archive reader memory', () => {
  it(`twenty repairs of large pages at once: at most ${CONCURRENT_PAGES} held at any moment`, async () => {
    const w = world(LARGE_PAGE_BYTES + 1);
    expect(await w.run(20)).toHaveLength(20);
    expect(w.peak()).toBe(CONCURRENT_PAGES);
  });

  it('twenty repairs of small pages at once: all read together, none waits', async () => {
    const w = world(10_000);
    await w.run(20);
    expect(w.peak()).toBe(20);
  });

  it('large pages cut on their first try: the permit is given back, every repair completes', async () => {
    const w = world(LARGE_PAGE_BYTES + 1, true);
    expect(await w.run(20)).toHaveLength(20);
    expect(w.peak()).toBeLessThanOrEqual(CONCURRENT_PAGES);
  });
});
