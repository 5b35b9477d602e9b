// A shutdown's deadline is on the steady clock: the wall clock stepping back an hour while delivery
// drains (NTP, a restored VM) must not hold the drain an hour past its grace period. Each test runs
// a collector that never answers, so only the deadline can end the drain. Date.now() is stepped
// back by a spy while real timers run; in a file of its own, since the steady clock then stays an
// hour ahead of the restored Date.now() for the rest of the file.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ExportOutcome } from '../../../src/export/otlp-transport.js';
import { createSpanExport } from '../../../src/export/span-export.js';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';
import { steadyNow } from '../../../src/util/steady-clock.js';
import { appendSeq, openTestSpool, testDelivery } from '../../helpers/delivery-fixture.js';

const HOUR = 3_600_000;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Date.now() from now on: the real clock, less `back` once stepBack() is called. */
function steppableWallClock(): { stepBack: () => void } {
  const wall = Date.now.bind(Date);
  let back = 0;
  vi.spyOn(Date, 'now').mockImplementation(() => wall() - back);
  return { stepBack: () => (back = HOUR) };
}

/** Whether `p` settles within `ms` of real time. */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
  const done = await Promise.race([p.then(() => true as const), late]);
  clearTimeout(timer);
  return done;
}

const never = (): Promise<ExportOutcome> => new Promise<ExportOutcome>(() => {});

describe('a shutdown deadline across a wall clock stepped back', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('delivery stops by its deadline, its records still spooled', async () => {
    const store = await openSqliteStore(':memory:');
    const spool = await openTestSpool(store);
    for (let seq = 1; seq <= 5; seq++) appendSeq(spool, seq);
    await spool.flush();
    const delivery = testDelivery(
      spool,
      { url: 'http://collector.test/v1/logs', send: never, close: async () => {} },
      { emit: () => {} },
    );
    const clock = steppableWallClock();
    delivery.start();
    await sleep(50);
    const stopped = delivery.stop(steadyNow() + 300);
    await sleep(50);
    clock.stepBack();
    expect(await settlesWithin(stopped, 3000)).toBe(true);
    expect(spool.spooled.records).toBe(5);
  });

  it('the span exporter stops by its deadline, its spans dropped as at any shutdown', async () => {
    const facts: unknown[] = [];
    const exp = createSpanExport({
      transport: { url: 'http://collector.test/v1/traces', send: never, close: () => Promise.resolve() },
      request: { contentType: 'application/x-protobuf', build: (p) => [Buffer.concat(p)] },
      emit: (f) => facts.push(f),
      batchMaxSpans: 2,
      maxQueuedBytes: 1 << 20,
      backoff: { initialMs: 100, maxMs: 1000 },
      unsupportedRetryMs: 60_000,
    });
    const clock = steppableWallClock();
    exp.start();
    exp.offer([Buffer.from([1]), Buffer.from([2])]);
    await sleep(20);
    const stopped = exp.shutdown(steadyNow() + 300);
    await sleep(50);
    clock.stepBack();
    expect(await settlesWithin(stopped, 3000)).toBe(true);
    expect(facts.at(-1)).toEqual({ f: 'spans_dropped', count: 2, reason: 'shutdown', times: 1 });
  });
});
