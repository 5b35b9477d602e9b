// An ingest worker's batch as the main thread seals it: a session's records that the worker encoded
// side by side become a segment that is a view into the transferred batch, not a copy (on the main
// thread every copied byte hastens a full garbage collection: store/pending-segments.ts). This pins
// the seam between the worker's packing (outbox.ts) and the seal: if a change there stopped laying
// a read's records side by side, the copies would come back unnoticed.
import { expect, it } from 'vitest';
import { Outbox, unpackBatch } from '../../../src/ingest/outbox.js';
import type { FromWorker } from '../../../src/ingest/protocol.js';
import { PendingSegments } from '../../../src/store/pending-segments.js';

type Batch = Extract<FromWorker, { t: 'batch' }>;

it("a read's records of one session are sealed as a view into the batch; a session's scattered records are joined", () => {
  const batches: Batch[] = [];
  const outbox = new Outbox((msg) => {
    if (msg.t === 'batch') batches.push(msg);
  }, 1 << 20);
  const ids = ['a', 'b'];
  ids.forEach((id, h) => outbox.bind(id, h));
  // A read of `a`, a read of `b`, then one more event of `a`: the worker's order within one batch.
  const appends: Array<[string, number, string]> = [
    ['a', 1, 'a-one'],
    ['a', 2, 'a-two'],
    ['b', 1, 'b-one'],
    ['b', 2, 'b-two'],
    ['b', 3, 'b-three'],
    ['a', 3, 'a-three'],
  ];
  for (const [sessionId, seq, text] of appends)
    outbox.append({ sessionId, seq, epoch: 0, tsMicros: seq, record: Buffer.from(text) });
  outbox.flush();
  expect(batches).toHaveLength(1);
  const batch = batches[0]!;

  const pending = new PendingSegments();
  unpackBatch(batch.meta, batch.bytes, batch.sourceIds, (h, a) => {
    a.sessionId = ids[h]!;
    pending.append(a);
  });
  const segments = new Map(pending.take().segments.map((s) => [s.sessionId, s]));

  const b = segments.get('b')!;
  expect(b.payload.toString()).toBe('b-oneb-twob-three');
  expect(b.payload.buffer).toBe(batch.bytes.buffer);
  const a = segments.get('a')!;
  expect(a.payload.toString()).toBe('a-onea-twoa-three');
  expect(a.payload.buffer).not.toBe(batch.bytes.buffer);
});
