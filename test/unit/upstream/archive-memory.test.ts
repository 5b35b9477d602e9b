// How many archive pages a reader holds at once: repairs of many sessions at the same moment read
// their pages a few at a time (each page may be 128 MiB), and each is handed on before its permit
// is given back.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ArchiveReader, CONCURRENT_PAGES } from '../../../src/upstream/archive.js';
import type { ArchivePageResult } from '../../../src/upstream/client.js';

describe('archive reader memory', () => {
  it(`twenty repairs at once: at most ${CONCURRENT_PAGES} pages read or being handed on at any moment`, async () => {
    let inFlight = 0;
    let peak = 0;
    const pending: Array<() => void> = [];
    const client = {
      listEvents: async (id: string): Promise<ArchivePageResult> => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise<void>((r) => pending.push(r));
        return {
          kind: 'ok',
          items: [{ seq: 1, event: { type: 'x', category: 'system', ts: 1, source: { kind: 'api' }, data: { id } } }],
          hasMore: false,
        };
      },
    };
    const reader = new ArchiveReader(client, pino({ level: 'silent' }), { mode: 'auto' });
    const handed: string[] = [];
    const scans = Array.from({ length: 20 }, (_, i) =>
      reader.scan(`s${i}`, {
        sinceMicros: 0,
        onPage: () => {
          handed.push(`s${i}`);
          inFlight--; // the page is let go once handed on
          return true;
        },
      }),
    );
    while (handed.length < 20) {
      await new Promise((r) => setImmediate(r));
      pending.shift()?.();
    }
    await Promise.all(scans);
    expect(peak).toBe(CONCURRENT_PAGES);
  });
});
