// Model-based test of the frame log (frame-log.ts) and its two views, the replay buffer and the
// archive, against plain arrays: fast-check draws random sequences of frames of random sizes
// (most small, some screenshot-sized, some larger than a slab: ü is two bytes) pushed three ways (bytes, text, in
// place), frames torn on the wire, service restarts (a new epoch: the buffer resets, the archive
// keeps everything), lookups by seq, batches of views, archive queries paged to the end, and archive
// cursors kept across pushes that drop the entries before them.
// Batches are read both as frames and as the HTTP chunks they are stored in. The properties: every frame read
// back is the bytes pushed for that seq or index; the buffer holds exactly the last `capacity`
// frames of the epoch; the archive answers exactly the model's last `cap` frames that pass the
// query's filters, and a cursor stays valid while the oldest entries go.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionArchive } from '../../../../src/devkit/simulator/archive.js';
import { FrameLog } from '../../../../src/devkit/simulator/frame-log.js';
import { ReplayBuffer } from '../../../../src/devkit/simulator/replay-buffer.js';
import { formatFrame } from '../../../../src/devkit/simulator/sse-format.js';

const T0 = 1_795_000_000_000_000;
const NOW = T0 + 10_000_000_000;
const CATEGORIES = ['console', 'network', 'page'] as const;

interface Entry {
  /** The envelope JSON (the archive's item). */
  data: string;
  /** The stored frame. */
  frame: string;
  ts: number;
  category: string;
}

type Op =
  | { op: 'push'; pad: number; category: number; how: 'bytes' | 'text' | 'inPlace' }
  | { op: 'tear' }
  | { op: 'restart' }
  | { op: 'spans'; from: number; span: number; maxBytes: number }
  | { op: 'query'; order: 'asc' | 'desc'; limit: number; categories: number[]; untilBack: number | null }
  | { op: 'openCursor'; limit: number }
  | { op: 'continueCursor' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      op: fc.constant('push' as const),
      pad: fc.oneof(
        { weight: 20, arbitrary: fc.integer({ min: 0, max: 300 }) },
        { weight: 2, arbitrary: fc.integer({ min: 5_000, max: 40_000 }) },
        { weight: 1, arbitrary: fc.constant(150_000) },
      ),
      category: fc.integer({ min: 0, max: CATEGORIES.length - 1 }),
      how: fc.constantFrom('bytes' as const, 'text' as const, 'inPlace' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'tear' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'restart' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('spans' as const),
      from: fc.nat(20),
      span: fc.nat(20),
      maxBytes: fc.integer({ min: 1, max: 3000 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('query' as const),
      order: fc.constantFrom('asc' as const, 'desc' as const),
      limit: fc.integer({ min: 1, max: 7 }),
      categories: fc.uniqueArray(fc.integer({ min: 0, max: CATEGORIES.length }), { maxLength: 2 }),
      untilBack: fc.option(fc.nat(6)),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('openCursor' as const), limit: fc.integer({ min: 1, max: 5 }) }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'continueCursor' as const }) },
);

/** Every item of every page from `params` on, following X-Next-Offset while X-Has-More. */
function pageAll(archive: SessionArchive, params: URLSearchParams): string[] {
  const items: string[] = [];
  for (let pages = 0; pages < 10_000; pages++) {
    const r = archive.query(params, NOW);
    if (!r.ok) throw new Error(r.message);
    const body = r.page.body;
    expect(body.startsWith('[') && body.endsWith(']')).toBe(true);
    items.push(...(JSON.parse(body) as unknown[]).map((item) => JSON.stringify(item)));
    if (!r.page.hasMore) return items;
    params.set('offset', r.page.nextOffset as string);
  }
  throw new Error('paging did not end');
}

function run(ringCap: number, archiveCap: number, ops: Op[]): void {
  const log = new FrameLog(Math.max(ringCap, archiveCap));
  const ring = new ReplayBuffer(log, ringCap);
  const archive = new SessionArchive(log, archiveCap);
  // The model: every entry ever pushed (index = log index), the epoch, the torn frames.
  const all: Entry[] = [];
  let epochStart = 0;
  let seq = 0;
  const torn = new Map<number, string>();
  let cursor: { offset: string; index: number } | undefined;

  const archived = (): number => Math.max(0, all.length - archiveCap);
  const oldestSeq = (): number => Math.max(epochStart, all.length - ringCap) - epochStart + 1;
  const wire = (s: number): string => torn.get(s) ?? (all[epochStart + s - 1] as Entry).frame;

  for (const o of ops) {
    switch (o.op) {
      case 'push': {
        seq++;
        const ts = T0 + all.length * 1000;
        const category = CATEGORIES[o.category] as string;
        const data = JSON.stringify({ seq, event: { ts, type: 't', category, data: { pad: 'ü'.repeat(o.pad) } } });
        const frame = formatFrame(seq, data);
        if (o.how === 'text') log.pushText(frame, ts, category);
        else if (o.how === 'bytes') log.push(Buffer.from(frame), ts, category);
        else {
          const bytes = Buffer.from(frame);
          const at = log.append(bytes.length, ts, category);
          bytes.copy(log.writeSlab, at);
        }
        all.push({ data, frame, ts, category });
        break;
      }
      case 'tear':
        if (seq === 0) break;
        torn.set(seq, `id: ${seq}\ndata: {"seq":${seq},"event":{"ts":\n\n`);
        ring.replaceOnWire(seq, Buffer.from(torn.get(seq) as string));
        break;
      case 'restart':
        ring.reset(1);
        epochStart = all.length;
        seq = 0;
        torn.clear();
        break;
      case 'spans': {
        const from = oldestSeq() + o.from;
        const to = Math.min(seq, from + o.span);
        if (from > to) break;
        const out: Buffer[] = [];
        const last = ring.spans(from, to, o.maxBytes, out);
        let expected = '';
        let bytes = 0;
        let s = from;
        for (; s <= to && bytes < o.maxBytes; s++) {
          expected += wire(s);
          bytes += Buffer.byteLength(wire(s));
        }
        expect(last).toBe(s - 1);
        expect(Buffer.concat(out).toString()).toBe(expected);
        // The same frames as HTTP chunks: each frame in its own chunk's framing.
        const chunks: Buffer[] = [];
        expect(ring.chunks(from, to, o.maxBytes, chunks)).toBe(s - 1);
        let framed = '';
        for (let k = from; k < s; k++) framed += Buffer.byteLength(wire(k)).toString(16) + '\r\n' + wire(k) + '\r\n';
        expect(Buffer.concat(chunks).toString()).toBe(framed);
        expect(chunks.length).toBeLessThanOrEqual(out.length);
        break;
      }
      case 'query': {
        const params = new URLSearchParams({ order: o.order, limit: String(o.limit) });
        // since: 1 ms before the oldest ts (asc only), so the default window's 5 minutes do not apply.
        if (o.order === 'asc') params.set('since', new Date(T0 / 1000 - 1).toISOString());
        const names: string[] = o.categories.map((c) => CATEGORIES[c] ?? 'absent');
        for (const name of names) params.append('category', name);
        let until = Infinity;
        if (o.untilBack !== null && all.length > 0) {
          until = T0 + Math.max(0, all.length - o.untilBack) * 1000;
          params.set('until', new Date(until / 1000).toISOString());
        }
        const expected = all
          .slice(archived())
          .filter((e) => e.ts < until && (names.length === 0 || names.includes(e.category)))
          .map((e) => e.data);
        const got = pageAll(archive, params);
        expect(got).toEqual(o.order === 'asc' ? expected : expected.reverse());
        break;
      }
      case 'openCursor': {
        const params = new URLSearchParams({ limit: String(o.limit), since: new Date(T0 / 1000 - 1).toISOString() });
        const r = archive.query(params, NOW);
        if (!r.ok) throw new Error(r.message);
        expect((JSON.parse(r.page.body) as unknown[]).map((i) => JSON.stringify(i))).toEqual(
          all.slice(archived(), archived() + o.limit).map((e) => e.data),
        );
        cursor = r.page.hasMore ? { offset: r.page.nextOffset as string, index: archived() + o.limit } : undefined;
        break;
      }
      case 'continueCursor': {
        if (cursor === undefined) break;
        const got = pageAll(archive, new URLSearchParams({ limit: '3', offset: cursor.offset }));
        expect(got).toEqual(all.slice(Math.max(cursor.index, archived())).map((e) => e.data));
        cursor = undefined;
        break;
      }
    }
    // After every step: the windows and every retained seq of the buffer.
    expect([log.end, archive.size]).toEqual([all.length, all.length - archived()]);
    expect([ring.oldestSeq, ring.lastSeq]).toEqual([oldestSeq(), seq]);
    expect(ring.get(oldestSeq() - 1)).toBeUndefined();
    expect(ring.get(seq + 1)).toBeUndefined();
    for (let s = oldestSeq(); s <= seq; s++) expect(ring.get(s)?.toString()).toBe(wire(s));
  }
}

describe('frame log, replay buffer and archive against a model', () => {
  it('random pushes, tears, restarts, lookups, batches, queries and cursors', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(opArb, { maxLength: 80 }),
        (ringCap, archiveCap, ops) => run(ringCap, archiveCap, ops),
      ),
      { numRuns: 150 },
    );
  });
});
