import { describe, expect, it } from 'vitest';
import { Outbox, unpackBatch } from '../../../src/ingest/outbox.js';
import type { FromWorker } from '../../../src/ingest/protocol.js';
import { resolveWorkers } from '../../../src/ingest/worker-group.js';
import { createRecordEncoder } from '../../../src/wire/encode-record.js';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';

const record = (seq: number, text = 'x'): BridgeLogRecord => ({
  tsMicros: 1_700_000_000_000_000 + seq,
  observedMicros: 1_700_000_000_000_500 + seq,
  eventName: 'browser.console_log',
  severityNumber: 9,
  severityText: 'INFO',
  body: { text, n: seq },
  attributes: { 'browser.telemetry.seq': seq, 'browser.session.id': 'a' },
});

type Batch = Extract<FromWorker, { t: 'batch' }>;

function capture(limit = 1 << 20): { outbox: Outbox; batches: Batch[]; transferred: ArrayBuffer[][] } {
  const batches: Batch[] = [];
  const transferred: ArrayBuffer[][] = [];
  const outbox = new Outbox((msg, transfer) => {
    if (msg.t === 'batch') batches.push(msg);
    transferred.push(transfer);
  }, limit);
  return { outbox, batches, transferred };
}

function unpack(b: Batch): Array<[number, number, number, number, string | null, string | undefined]> {
  const out: Array<[number, number, number, number, string | null, string | undefined]> = [];
  // The append is refilled for every record: its fields are copied out at once.
  unpackBatch(b.meta, b.bytes, b.sourceIds, (h, { seq, epoch, tsMicros, record, sourceId }) => {
    out.push([h, seq, epoch, tsMicros, record ? record.toString('latin1') : null, sourceId]);
  });
  return out;
}

describe('outbox: spool appends packed for the main thread', () => {
  it.each([
    ['one record', [['a', 1, 0, 1_700_000_000_000_001, 'rec-1', undefined]]],
    [
      'a checkpoint-only append (filtered event) keeps its place',
      [
        ['a', 1, 0, 5, 'x', undefined],
        ['a', 2, 0, 6, null, undefined],
        ['a', 3, 0, 7, 'yz', undefined],
      ],
    ],
    [
      'two sessions interleaved, with source ids shared once',
      [
        ['a', 7, 1, 9, 'p', 'src-1'],
        ['b', 1, 0, 9, 'qq', 'src-2'],
        ['a', 8, 1, 10, 'r', 'src-2'],
      ],
    ],
    ['an empty record is not a checkpoint-only append', [['b', 4, 2, 11, '', undefined]]],
  ] as const)('%s: unpacks to exactly what was appended', (_name, appends) => {
    const { outbox, batches, transferred } = capture();
    outbox.bind('a', 1);
    outbox.bind('b', 2);
    for (const [id, seq, epoch, ts, rec, src] of appends)
      outbox.append({
        sessionId: id,
        seq,
        epoch,
        tsMicros: ts,
        record: rec === null ? null : Buffer.from(rec),
        sourceId: src,
      });
    outbox.flush();
    expect(batches).toHaveLength(1);
    expect(unpack(batches[0]!)).toEqual(
      appends.map(([id, seq, epoch, ts, rec, src]) => [id === 'a' ? 1 : 2, seq, epoch, ts, rec, src]),
    );
    // Both buffers travel by transfer, not by copy; the records' buffer cut to them, without the
    // writer's spare room (the main thread counts every byte it receives towards its collections).
    expect(transferred[0]).toEqual([batches[0]!.meta.buffer, batches[0]!.bytes.buffer]);
    expect(batches[0]!.bytes.buffer.byteLength).toBe(batches[0]!.bytes.byteLength);
    expect(new Set(batches[0]!.sourceIds).size).toBe(batches[0]!.sourceIds.length);
  });

  it("a session's source id is sent when it changes, not with every append (the spool keeps the last one)", () => {
    const { outbox, batches } = capture();
    outbox.bind('a', 1);
    outbox.append({ sessionId: 'a', seq: 1, epoch: 0, tsMicros: 1, record: Buffer.from('r'), sourceId: 'src-1' });
    outbox.append({ sessionId: 'a', seq: 2, epoch: 0, tsMicros: 2, record: null, sourceId: 'src-1' });
    outbox.flush();
    outbox.append({ sessionId: 'a', seq: 3, epoch: 0, tsMicros: 3, record: Buffer.from('r'), sourceId: 'src-1' });
    outbox.append({ sessionId: 'a', seq: 4, epoch: 1, tsMicros: 4, record: Buffer.from('r'), sourceId: 'src-2' });
    outbox.flush();
    // Followed again (a new handle after a stop): the first append names its source again.
    outbox.unbind('a');
    outbox.bind('a', 2);
    outbox.append({ sessionId: 'a', seq: 5, epoch: 1, tsMicros: 5, record: Buffer.from('r'), sourceId: 'src-2' });
    outbox.flush();
    expect(batches.flatMap((b) => unpack(b).map((x) => x[5]))).toEqual([
      'src-1',
      undefined,
      undefined,
      'src-2',
      'src-2',
    ]);
    expect(batches.map((b) => b.sourceIds)).toEqual([['src-1'], ['src-2'], ['src-2']]);
  });

  it('posts once per turn of the event loop, and nothing when nothing was appended', async () => {
    const { outbox, batches } = capture();
    outbox.bind('a', 1);
    outbox.flush();
    expect(batches).toHaveLength(0);
    for (let i = 1; i <= 3; i++)
      outbox.append({ sessionId: 'a', seq: i, epoch: 0, tsMicros: i, record: Buffer.from('r') });
    expect(batches).toHaveLength(0);
    await new Promise((r) => setImmediate(r));
    expect(batches).toHaveLength(1);
    expect(unpack(batches[0]!).map((x) => x[1])).toEqual([1, 2, 3]);
  });

  it('posts at once when a batch grows large', () => {
    const { outbox, batches } = capture(64 << 20);
    outbox.bind('a', 1);
    outbox.append({ sessionId: 'a', seq: 1, epoch: 0, tsMicros: 1, record: Buffer.alloc(300 * 1024) });
    expect(batches).toHaveLength(1);
  });

  it('is full while posted bytes are not acknowledged, and lets waiters go when they are', async () => {
    const { outbox, batches } = capture(1000);
    outbox.bind('a', 1);
    outbox.append({ sessionId: 'a', seq: 1, epoch: 0, tsMicros: 1, record: Buffer.alloc(600) });
    outbox.flush();
    expect(outbox.full).toBe(false);
    outbox.append({ sessionId: 'a', seq: 2, epoch: 0, tsMicros: 2, record: Buffer.alloc(600) });
    outbox.flush();
    expect(outbox.full).toBe(true);
    let resumed = false;
    const waiting = outbox.waitForRoom().then(() => (resumed = true));
    // Every session held meanwhile waits on the same promise: one per time the outbox fills, not per hold.
    expect(outbox.waitForRoom()).toBe(outbox.waitForRoom());
    outbox.acked(1);
    await Promise.resolve();
    expect(resumed, 'still full').toBe(false);
    outbox.acked(batches[0]!.size - 1);
    await waiting;
    expect(resumed).toBe(true);
    expect(outbox.full).toBe(false);
  });

  it('records encoded into the batch travel byte for byte as the stand-alone encoder writes them', () => {
    const { outbox, batches } = capture();
    const reference = createRecordEncoder();
    outbox.bind('a', 1);
    const texts = ['short', 'ü'.repeat(5000), '', 'ok'];
    texts.forEach((t, i) =>
      outbox.append({ sessionId: 'a', seq: i + 1, epoch: 0, tsMicros: i, record: outbox.encode(record(i + 1, t)) }),
    );
    // A record from elsewhere (a copy, not the view encode() returned) is copied in, in its place.
    outbox.append({ sessionId: 'a', seq: 5, epoch: 0, tsMicros: 5, record: Buffer.from(reference(record(5))) });
    outbox.flush();
    const got = unpack(batches[0]!).map(([, seq, , , rec]) => [seq, rec]);
    expect(got).toEqual([
      ...texts.map((t, i) => [i + 1, reference(record(i + 1, t)).toString('latin1')]),
      [5, reference(record(5)).toString('latin1')],
    ]);
  });

  it('a record encoded and never appended leaves nothing behind', () => {
    const { outbox, batches } = capture();
    const reference = createRecordEncoder();
    outbox.bind('a', 1);
    outbox.encode(record(1, 'orphan'));
    outbox.append({ sessionId: 'a', seq: 2, epoch: 0, tsMicros: 2, record: outbox.encode(record(2)) });
    outbox.flush();
    expect(Buffer.from(batches[0]!.bytes).equals(reference(record(2)))).toBe(true);
  });

  it('refuses an append for a session it was not given', () => {
    const { outbox } = capture();
    outbox.bind('a', 1);
    outbox.unbind('a');
    expect(() => outbox.append({ sessionId: 'a', seq: 1, epoch: 0, tsMicros: 1, record: null })).toThrow(
      /does not follow: a/,
    );
  });
});

describe('resolveWorkers', () => {
  it.each([
    ['auto', 1, 0],
    ['auto', 2, 1],
    ['auto', 4, 3],
    ['auto', 32, 4],
    [0, 8, 0],
    [6, 2, 6],
  ] as const)('%s on %i cores → %i', (configured, cores, expected) => {
    expect(resolveWorkers(configured, cores)).toBe(expected);
  });

  it('carries spans with the batch: per session its open state after its last append, and the spans it finished', () => {
    const { outbox, batches } = capture();
    outbox.bind('a', 1);
    outbox.bind('b', 2);
    let state = 'open-1';
    outbox.append({
      sessionId: 'a',
      seq: 1,
      epoch: 0,
      tsMicros: 1,
      record: null,
      sourceId: undefined,
      spans: () => {
        const taken = state;
        return () => taken;
      },
    });
    state = 'open-2';
    outbox.offerSpans('a', [Buffer.from('span-a')]);
    outbox.offerSpans('b', [Buffer.from('span-b')]);
    outbox.flush();
    // The state is taken when the batch is posted: after the session's last append in it.
    expect(batches[0]!.spans).toEqual([
      { h: 1, open: 'open-2', finished: [Buffer.from('span-a')] },
      { h: 2, finished: [Buffer.from('span-b')] },
    ]);
    expect(batches[0]!.size).toBeGreaterThanOrEqual(12);
    // A batch of spans alone (a session's end flushed them after its last append) is still posted.
    outbox.offerSpans('b', [Buffer.from('end')]);
    outbox.flush();
    expect(batches[1]!.spans).toEqual([{ h: 2, finished: [Buffer.from('end')] }]);
    expect(unpack(batches[1]!)).toEqual([]);
    // Without traces a batch has no spans at all.
    outbox.append({ sessionId: 'a', seq: 2, epoch: 0, tsMicros: 2, record: null });
    outbox.flush();
    expect(batches[2]!.spans).toBeUndefined();
  });
});
