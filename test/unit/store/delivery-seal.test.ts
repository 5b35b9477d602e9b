// The overflow mode's seal for delivery (delivery-seal.ts): when it runs, and that it leaves the
// checkpoint writes batched. Fake timers and clock: no real sleeps.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DELIVERY_SEAL_SPACING_MS, deliverySealIn, type SealState } from '../../../src/store/delivery-seal.js';
import type { Spool } from '../../../src/store/spool.js';
import { CHECKPOINT_INTERVAL_MS } from '../../../src/store/checkpoint-timing.js';
import { SqliteStore } from '../../../src/store/sqlite-store.js';
import type { Store } from '../../../src/store/store.js';
import { openOverflowSpool } from '../../helpers/overflow-spool.js';

const S = DELIVERY_SEAL_SPACING_MS;

describe('deliverySealIn', () => {
  const base: SealState = { pendingRecords: 3, deliveryWaiting: true, sinceLastSealMs: 1000, writeFailing: false };
  const cases: Array<[string, Partial<SealState>, number | undefined]> = [
    ['a deliverer waits, the last seal long ago: now', {}, 0],
    ['never sealed before: now', { sinceLastSealMs: Number.POSITIVE_INFINITY }, 0],
    ['exactly the spacing since the last seal: now', { sinceLastSealMs: S }, 0],
    ['sealed 10 ms ago: the rest of the spacing', { sinceLastSealMs: 10 }, S - 10],
    ['sealed just now: the whole spacing', { sinceLastSealMs: 0 }, S],
    ['the wall clock stepped back since the last seal: no more than the spacing', { sinceLastSealMs: -3_600_000 }, S],
    ['nothing pending: the commit triggers decide', { pendingRecords: 0 }, undefined],
    ['every deliverer busy (or records waiting): the commit triggers decide', { deliveryWaiting: false }, undefined],
    ['writes failing: their backoff holds', { writeFailing: true }, undefined],
  ];
  it.each(cases)('%s', (_name, over, expected) => {
    expect(deliverySealIn({ ...base, ...over })).toBe(expected);
  });
});

class CountingStore extends SqliteStore {
  commits = 0;
  override commit(...args: Parameters<Store['commit']>): Promise<number[]> {
    this.commits++;
    return super.commit(...args);
  }
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('the seal for delivery in overflow mode', () => {
  let store: CountingStore;
  let spool: Spool;
  let seq = 0;
  const append = (sessionId = 'a'): void =>
    spool.append({ sessionId, seq: ++seq, epoch: 0, tsMicros: seq, record: Buffer.from([0x12, 1, 0x61]) });

  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    seq = 0;
    store = new CountingStore(':memory:');
    await store.putSession({ id: 'a', attributes: {} }, 'config');
    await store.putSession({ id: 'b', attributes: {} }, 'config');
    spool = await openOverflowSpool(store);
  });
  afterEach(async () => {
    vi.clearAllTimers();
    vi.useRealTimers();
    await store.close();
  });

  it('nobody waiting: a record waits for the commit interval', async () => {
    append();
    await settle();
    expect(await spool.takeBatch(100)).toBeNull();
    await vi.advanceTimersByTimeAsync(200);
    expect((await spool.takeBatch(100))?.records).toBe(1);
  });

  it('a deliverer waiting: what is pending is sealed at once, not after the interval', async () => {
    const woken = spool.waitForData();
    append();
    append('b');
    await woken;
    await settle();
    expect((await spool.takeBatch(100))?.records).toBe(2);
  });

  it('records pending when a deliverer starts waiting are sealed for it', async () => {
    append();
    await spool.waitForData();
    expect((await spool.takeBatch(100))?.records).toBe(1);
  });

  it('seals are spaced: a second one within the spacing waits for it', async () => {
    void spool.waitForData();
    append();
    await settle();
    const first = (await spool.takeBatch(100))!;
    await spool.acknowledge(first);
    let woken = false;
    void spool.waitForData().then(() => (woken = true));
    append();
    await settle();
    expect(woken).toBe(false);
    await vi.advanceTimersByTimeAsync(S - 1);
    expect(woken).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(woken).toBe(true);
    expect((await spool.takeBatch(100))?.records).toBe(1);
  });

  it('checkpoint writes stay batched: one write per checkpoint interval however often seals run', async () => {
    const before = store.commits;
    const rounds = (2 * CHECKPOINT_INTERVAL_MS) / S;
    for (let i = 0; i < rounds; i++) {
      void spool.waitForData();
      append(i % 2 === 0 ? 'a' : 'b');
      await settle();
      const c = await spool.takeBatch(100);
      expect(c?.records, `round ${i}`).toBe(1);
      await spool.acknowledge(c!);
      await vi.advanceTimersByTimeAsync(S);
    }
    // 2 s of seals every 25 ms, every one delivered: at most one write a second (plus the first).
    expect(store.commits - before).toBeLessThanOrEqual(3);
    expect(store.commits - before).toBeGreaterThan(0);
  });
});
