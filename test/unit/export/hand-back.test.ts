// A request that keeps failing in overflow mode does not hold its session's checkpoint back for the
// whole outage: once records read after it spilled behind it (or it is past the memory window), its
// worker gives it back after a backoff, the spool spills it ahead of them, and the checkpoint moves
// over all of it. Before, a kill -9 after a long outage had everything spilled behind the request
// delivered from the store and read again from the service.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExportOutcome } from '../../../src/export/otlp-transport.js';
import type { Spool } from '../../../src/store/spool.js';
import { SqliteStore } from '../../../src/store/sqlite-store.js';
import { appendSeq, scriptedTransport, testDelivery } from '../../helpers/delivery-fixture.js';
import { until } from '../../helpers/harness.js';
import { openOverflowSpool } from '../../helpers/overflow-spool.js';

const DOWN: ExportOutcome = { kind: 'retryable', status: 503, message: 'unavailable' };
const UP: ExportOutcome = { kind: 'success', rejected: 0 };

let store: SqliteStore;
beforeEach(async () => {
  store = new SqliteStore(':memory:');
  await store.putSession({ id: 's', attributes: {} }, 'config');
});
afterEach(async () => store.close());

const checkpoint = async (): Promise<number | undefined> => (await store.sessions())[0]?.checkpoint;

/** Delivery over `spool` against a collector answering `answers.now`; `sent` gets each request's seqs, `accepted` the accepted ones. */
function deliver(
  spool: Spool,
  answers: { now: ExportOutcome },
  sent: number[][],
  accepted: number[][],
  backoff = { initialMs: 20, maxMs: 40 },
) {
  const delivery = testDelivery(
    spool,
    scriptedTransport('http://collector.test/v1/logs', (seqs) => {
      sent.push(seqs);
      if (answers.now.kind === 'success') accepted.push(seqs);
      return answers.now;
    }),
    { emit: () => {}, batchMaxRecords: 5, backoff },
  );
  delivery.start();
  return delivery;
}

describe('a failing request in overflow mode', () => {
  it('is handed back to the store once records spilled behind it: the checkpoint moves over all of them', async () => {
    const spool = await openOverflowSpool(store, { commitIntervalMs: 5, memoryMaxAgeMs: 100 });
    const answers: { now: ExportOutcome } = { now: DOWN };
    const sent: number[][] = [];
    const accepted: number[][] = [];
    for (let q = 1; q <= 5; q++) appendSeq(spool, q);
    await spool.flush(false);
    const delivery = deliver(spool, answers, sent, accepted);
    await until(() => sent.length >= 2, 'the first request to fail twice');
    expect(sent[0]).toEqual([1, 2, 3, 4, 5]);
    // Read while that request is retried: they wait in memory, then spill by age behind it.
    for (let q = 6; q <= 12; q++) appendSeq(spool, q);
    await spool.flush(false);
    // The collector is still down: only the store can have moved the checkpoint past 5.
    await until(() => spool.onDisk.records === 12, 'every record on disk, the request in flight too');
    await spool.flush(true);
    expect(await checkpoint()).toBe(12);
    expect(spool.heldBytes.ready).toBe(0);

    answers.now = UP;
    await until(() => spool.idle, 'everything delivered');
    await delivery.stop();
    // Each record once, in order: the request given back went out from the store, ahead of the rest.
    expect(accepted.flat()).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    await spool.close();
    await spool.finish();
  });

  it('does not wait out a long backoff: the spill behind it takes it first and wakes its worker', async () => {
    const spool = await openOverflowSpool(store, { commitIntervalMs: 5, memoryMaxAgeMs: 100 });
    const answers: { now: ExportOutcome } = { now: DOWN };
    const sent: number[][] = [];
    // A backoff of a minute: the hand-back below cannot be the one asked after it.
    const delivery = deliver(spool, answers, sent, [], { initialMs: 60_000, maxMs: 60_000 });
    for (let q = 1; q <= 5; q++) appendSeq(spool, q);
    await spool.flush(false);
    await until(() => sent.length >= 1, 'the first request to fail');
    for (let q = 6; q <= 9; q++) appendSeq(spool, q);
    await spool.flush(false);
    await until(() => spool.onDisk.records === 9, 'the request asleep in its backoff handed back with the rest');
    await spool.flush(true);
    expect(await checkpoint()).toBe(9);
    // After the hand-back its worker went on with the backlog at once: the same records first.
    expect(sent.slice(0, 2)).toEqual([
      [1, 2, 3, 4, 5],
      [1, 2, 3, 4, 5],
    ]);
    await delivery.stop();
    await spool.close();
    await spool.finish();
  });
});
