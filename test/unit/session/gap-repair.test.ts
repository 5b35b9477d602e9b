// Gap repair from the archive (stream/gap-repair.ts) against an in-memory archive: what it has
// comes back as events in seq order, what it lacks stays an exact gap with the original reason.
import { describe, expect, it } from 'vitest';
import { repairGap } from '../../../src/session/gap-repair.js';
import type { GapItem, StreamItem } from '../../../src/stream/sequenced-stream.js';
import { ArchiveReader } from '../../../src/upstream/archive.js';
import type { ArchivePageQuery, ArchivePageResult } from '../../../src/upstream/client.js';
import { silentLogger } from '../../../src/util/logger.js';

const env = (seq: number, sid?: string) => ({
  seq,
  event: {
    ts: 1_000_000 + seq,
    type: 'api_call',
    category: 'control',
    source: sid ? { kind: 'kernel_api', metadata: { telemetry_session_id: sid } } : { kind: 'kernel_api' },
  },
});

function reader(archive: Array<ReturnType<typeof env>> | 404 | 503): ArchiveReader {
  return new ArchiveReader(
    {
      async listEvents(_id: string, q: ArchivePageQuery): Promise<ArchivePageResult> {
        if (archive === 404 || archive === 503)
          return { kind: 'error', status: archive, error: { code: 'x', message: 'scripted' } };
        const from = q.offset ? Number(q.offset) : 0;
        const more = from + q.limit < archive.length;
        return {
          kind: 'ok',
          items: archive.slice(from, from + q.limit),
          hasMore: more,
          ...(more ? { nextOffset: String(from + q.limit) } : {}),
        };
      },
    },
    silentLogger(),
    { mode: 'auto', retryDelayMs: 1 },
  );
}

const show = (items: StreamItem[]) =>
  items.map((i) =>
    i.kind === 'event'
      ? `${i.envelope.seq}${(i.envelope.event.source.metadata?.telemetry_session_id as string | undefined) ?? ''}`
      : i.kind === 'gap'
        ? `gap ${i.first}-${i.last ?? ''} ${i.reason}`
        : i.kind === 'epoch'
          ? `epoch ${i.epoch}`
          : i.kind,
  );
const gap = (first: number, last: number | undefined, extra: Partial<GapItem> = {}): GapItem => ({
  kind: 'gap',
  first,
  last,
  reason: 'evicted',
  epoch: 0,
  ...extra,
});
const seqs = (from: number, to: number, sid?: string) =>
  Array.from({ length: to - from + 1 }, (_, i) => env(from + i, sid));

const cases: Array<{ name: string; archive: Parameters<typeof reader>[0]; gap: GapItem; want: string[] }> = [
  {
    name: 'the whole range, across pages',
    archive: seqs(1, 450, 'A'),
    gap: gap(3, 420, { sourceId: 'A' }),
    want: seqs(3, 420).map((e) => `${e.seq}A`),
  },
  {
    name: 'holes stay gaps with the original reason',
    archive: [...seqs(1, 4, 'A'), ...seqs(7, 9, 'A')],
    gap: gap(3, 8, { sourceId: 'A', reason: 'malformed' }),
    want: ['3A', '4A', 'gap 5-6 malformed', '7A', '8A'],
  },
  {
    name: 'another epoch with the same seqs is not taken for this one',
    archive: [...seqs(1, 5, 'A'), ...seqs(1, 5, 'B')],
    gap: gap(2, 3, { sourceId: 'B' }),
    want: ['2B', '3B'],
  },
  {
    name: 'an unknown source id is learnt from the event before the gap',
    archive: [...seqs(1, 5, 'A'), ...seqs(1, 2, 'B')],
    gap: gap(4, 5),
    want: ['4A', '5A'],
  },
  {
    name: 'several epochs fit an unknown source id: the loss is reported, nothing guessed',
    archive: [...seqs(1, 5, 'A'), ...seqs(1, 5, 'B')],
    gap: gap(4, 5),
    want: ['gap 4-5 evicted'],
  },
  {
    name: 'events without source ids are matched by seq (an older service)',
    archive: seqs(1, 6),
    gap: gap(2, 4),
    want: ['2', '3', '4'],
  },
  {
    name: 'a final tail brings the rest of the epoch, then epochs never seen',
    archive: [...seqs(1, 6, 'A'), ...seqs(1, 3, 'B')],
    gap: gap(5, undefined, { sourceId: 'A', reason: 'tail_unknown', final: true }),
    want: ['5A', '6A', 'epoch 1', '1B', '2B', '3B'],
  },
  {
    name: 'an empty tail is known to be empty: no record',
    archive: seqs(1, 4, 'A'),
    gap: gap(5, undefined, { sourceId: 'A', reason: 'tail_unknown', final: true }),
    want: [],
  },
  { name: 'no archive: the gap stays', archive: 404, gap: gap(2, 3, { sourceId: 'A' }), want: ['gap 2-3 evicted'] },
  {
    name: 'an archive that fails: the gap stays',
    archive: 503,
    gap: gap(2, 3, { sourceId: 'A' }),
    want: ['gap 2-3 evicted'],
  },
];

describe('repairGap', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const r = await repairGap(reader(c.archive), 's', c.gap);
      expect(show(r.items)).toEqual(c.want);
    });
  }

  it('an unknown tail of 200,000 archived events is read whole (no stack overflow finding its end)', async () => {
    const r = await repairGap(
      reader(seqs(1, 200_000, 'A')),
      's',
      gap(3, undefined, { sourceId: 'A', reason: 'tail_unknown' }),
    );
    const lastItem = r.items.at(-1);
    expect([r.repaired, r.items.length, lastItem?.kind === 'event' ? lastItem.envelope.seq : lastItem?.kind]).toEqual([
      199_998, 199_998, 200_000,
    ]);
  });

  it('a 404 on the route is remembered: the archive is not asked again', async () => {
    let calls = 0;
    const r = new ArchiveReader(
      {
        async listEvents(): Promise<ArchivePageResult> {
          calls++;
          return { kind: 'error', status: 404, error: { code: 'not_found', message: 'no route' } };
        },
      },
      silentLogger(),
      { mode: 'auto' },
    );
    await repairGap(r, 's', gap(1, 2));
    await repairGap(r, 's', gap(5, 6));
    expect([calls, r.usable]).toEqual([1, false]);
  });
});
