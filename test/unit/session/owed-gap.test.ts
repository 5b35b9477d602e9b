// An owed gap (session/owed-gap.ts) on an injected clock: an archive that cannot be read is read again
// with backoff for a bounded time; the events come back when it answers within it, the gap (its
// reason unchanged) only when it does not; an archive that answers is never asked twice.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { OWED_FOR_MS, repairOwedGap } from '../../../src/session/owed-gap.js';
import type { GapItem, StreamItem } from '../../../src/stream/sequenced-stream.js';
import { ArchiveReader } from '../../../src/upstream/archive.js';
import type { ArchivePageResult } from '../../../src/upstream/client.js';
import { silentLogger } from '../../../src/util/logger.js';

const env = (seq: number) => ({
  seq,
  event: { ts: 1_000_000 + seq, type: 'api_call', category: 'control', source: { kind: 'kernel_api' } },
});
const GAP: GapItem = { kind: 'gap', first: 3, last: 5, reason: 'evicted', epoch: 0 };
const ARCHIVE = [1, 2, 3, 4, 5, 6].map(env);

type Answer = 'ok' | 'empty' | 503 | 404;

/** An archive answering each request from `answers` in turn (the last one for ever), on a clock the waits move. */
function scripted(answers: Answer[]) {
  let reads = 0;
  const reader = new ArchiveReader(
    {
      async listEvents(): Promise<ArchivePageResult> {
        const a = answers[Math.min(reads++, answers.length - 1)]!;
        if (a === 503 || a === 404) return { kind: 'error', status: a, error: { code: 'x', message: `HTTP ${a}` } };
        return { kind: 'ok', items: a === 'ok' ? ARCHIVE : [], hasMore: false };
      },
    },
    silentLogger(),
    { mode: 'auto', retryDelayMs: 0 },
  );
  const clock = { now: 0, waits: [] as number[], owed: [] as string[] };
  const opts = {
    now: () => clock.now,
    sleep: async (ms: number) => {
      clock.waits.push(ms);
      clock.now += ms;
    },
    owed: (detail: string) => void clock.owed.push(detail),
  };
  return { reader, clock, opts, reads: () => reads };
}

const show = (items: StreamItem[]) =>
  items.map((i) => (i.kind === 'event' ? i.envelope.seq : i.kind === 'gap' ? `gap ${i.first}-${i.last}` : i.kind));

describe('an owed gap', () => {
  const table: Array<{
    name: string;
    answers: Answer[];
    items: Array<number | string>;
    rounds: number;
    owed: boolean;
  }> = [
    { name: 'an archive that answers: repaired at once', answers: ['ok'], items: [3, 4, 5], rounds: 1, owed: false },
    {
      name: 'three failed tries (a paused or overloaded service), then an answer: repaired, not lost',
      answers: [503, 503, 503, 'ok'],
      items: [3, 4, 5],
      rounds: 2,
      owed: true,
    },
    {
      name: 'failing for several rounds, then an answer: repaired',
      answers: [...Array<Answer>(9).fill(503), 'ok'],
      items: [3, 4, 5],
      rounds: 4,
      owed: true,
    },
    {
      name: 'an archive that answers without the events: the gap at once, never owed',
      answers: ['empty'],
      items: ['gap 3-5'],
      rounds: 1,
      owed: false,
    },
    {
      name: 'no archive (404 for a session the service knows): the gap at once, never owed',
      answers: [404],
      items: ['gap 3-5'],
      rounds: 1,
      owed: false,
    },
  ];
  for (const c of table)
    it(c.name, async () => {
      const { reader, clock, opts } = scripted(c.answers);
      const r = await repairOwedGap(reader, 's', GAP, opts);
      expect(show(r.items)).toEqual(c.items);
      expect(clock.waits).toHaveLength(c.rounds - 1);
      expect(clock.owed).toHaveLength(c.owed ? 1 : 0);
    });

  it('unreadable for the whole window: the gap with its reason, after exactly the window, in a bounded number of reads', async () => {
    const { reader, clock, opts, reads } = scripted([503]);
    // The backoff's jitter in the middle of its range, so the count of reads is fixed.
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const r = await repairOwedGap(reader, 's', GAP, opts).finally(() => random.mockRestore());
    expect(r.items).toEqual([GAP]);
    expect(r.unavailable).toMatch(/HTTP 503.*owed for 60 s/);
    expect(clock.now).toBe(OWED_FOR_MS);
    // 2 s doubling within the minute: 7 rounds of three tries, not a tight loop.
    expect(reads()).toBe(3 * 7);
    for (const w of clock.waits.slice(0, -1)) expect(w).toBeGreaterThanOrEqual(1000);
  });

  it('stopped while owed: no more reads, nothing repaired', async () => {
    const { reader, opts, reads } = scripted([503]);
    const stop = new AbortController();
    const r = await repairOwedGap(reader, 's', GAP, {
      ...opts,
      signal: stop.signal,
      sleep: async () => stop.abort(),
    });
    expect(r.repaired).toBe(0);
    expect(reads()).toBe(3);
  });

  it('any run of failures and answers: repaired iff the archive answered within the window, waits within it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Answer>(503, 503, 'ok', 'empty'), { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 0, max: 20 * 60_000 }),
        async (answers, forMs) => {
          const { reader, clock, opts, reads } = scripted(answers);
          const r = await repairOwedGap(reader, 's', GAP, { ...opts, forMs });
          const read = answers.slice(0, reads());
          const answered = read.find((a) => a !== 503);
          expect(show(r.items)).toEqual(answered === 'ok' ? [3, 4, 5] : ['gap 3-5']);
          // Stops at the first answer; reads again only after failures, and never past the window.
          expect(read.slice(0, -1).every((a) => a === 503)).toBe(true);
          expect(clock.now).toBeLessThanOrEqual(forMs);
          if (answered === undefined) expect(clock.now).toBe(forMs);
        },
      ),
      { numRuns: 200 },
    );
  });
});
