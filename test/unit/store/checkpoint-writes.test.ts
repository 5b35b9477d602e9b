// When the overflow mode writes the checkpoints acknowledgements moved (overflow-writer.ts): at most
// once per CHECKPOINT_INTERVAL_MS, and with `checkpointMinBytes` (the embedded store) only once that
// many bytes were acknowledged since the last write, or CHECKPOINT_MAX_WAIT_MS passed; an explicit
// flush (a session's end, shutdown) writes them at once. Fake timers and clock: no real sleeps.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHECKPOINT_INTERVAL_MS, CHECKPOINT_MAX_WAIT_MS } from '../../../src/store/checkpoint-timing.js';
import type { Spool } from '../../../src/store/spool.js';
import { SqliteStore } from '../../../src/store/sqlite-store.js';
import type { Store } from '../../../src/store/store.js';
import { openOverflowSpool } from '../../helpers/overflow-spool.js';

class CountingStore extends SqliteStore {
  /** Commits that wrote checkpoints and no segment. */
  checkpointWrites = 0;
  override commit(...args: Parameters<Store['commit']>): Promise<number[]> {
    if (args[0].length === 0 && args[1].length > 0) this.checkpointWrites++;
    return super.commit(...args);
  }
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

let store: CountingStore;
let seq = 0;
async function open(checkpointMinBytes?: number): Promise<Spool> {
  return openOverflowSpool(store, checkpointMinBytes === undefined ? {} : { checkpointMinBytes });
}
/** One record of `bytes` read, sealed, delivered and acknowledged; then `ms` pass. */
async function deliverOne(spool: Spool, bytes: number, ms: number): Promise<void> {
  void spool.waitForData();
  spool.append({ sessionId: 'a', seq: ++seq, epoch: 0, tsMicros: seq, record: Buffer.alloc(bytes, 1) });
  await settle();
  const batch = await spool.takeBatch(100);
  expect(batch?.records).toBe(1);
  await spool.acknowledge(batch!);
  await vi.advanceTimersByTimeAsync(ms);
}
const stored = async (): Promise<number | undefined> => (await store.sessions())[0]?.checkpoint;

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  seq = 0;
  store = new CountingStore(':memory:');
  await store.putSession({ id: 'a', attributes: {} }, 'config');
});
afterEach(async () => {
  vi.clearAllTimers();
  vi.useRealTimers();
  await store.close();
});

describe('checkpoint writes in overflow mode', () => {
  it('without a minimum: once a second while acknowledgements move them', async () => {
    const spool = await open();
    for (let i = 0; i < 50; i++) await deliverOne(spool, 10, 100);
    // 5 s of acknowledgements every 100 ms: about one write a second.
    expect(store.checkpointWrites).toBeGreaterThanOrEqual(4);
    expect(store.checkpointWrites).toBeLessThanOrEqual(6);
    expect(await stored()).toBeGreaterThanOrEqual(40);
  });

  it('with a minimum, a slow flow: the first move written at once, the next held until the longest wait', async () => {
    // More than the longest wait's 10-byte records add up to: time, not bytes, ends the wait.
    const spool = await open(100_000);
    await deliverOne(spool, 10, 300);
    expect(store.checkpointWrites).toBe(1);
    expect(await stored()).toBe(1);
    const rounds = CHECKPOINT_MAX_WAIT_MS / 100 - 5;
    for (let i = 0; i < rounds; i++) await deliverOne(spool, 10, 100);
    expect(store.checkpointWrites).toBe(1);
    expect(await stored()).toBe(1);
    for (let i = 0; i < 10; i++) await deliverOne(spool, 10, 100);
    expect(store.checkpointWrites).toBe(2);
    expect(await stored()).toBeGreaterThanOrEqual(rounds);
  });

  it('with a minimum, a flow that passes it: once a second, as without one', async () => {
    const spool = await open(10_000);
    for (let i = 0; i < 50; i++) await deliverOne(spool, 3_000, 100);
    expect(store.checkpointWrites).toBeGreaterThanOrEqual(4);
    expect(store.checkpointWrites).toBeLessThanOrEqual(6);
  });

  it('with a minimum: the bytes, not the records, count; a write as soon as they are reached after the interval', async () => {
    const spool = await open(10_000);
    await deliverOne(spool, 10, 100);
    await deliverOne(spool, 10, CHECKPOINT_INTERVAL_MS * 3);
    expect(store.checkpointWrites).toBe(1);
    await deliverOne(spool, 10_000, 300);
    expect(store.checkpointWrites).toBe(2);
    expect(await stored()).toBe(3);
  });

  it('with a minimum: an explicit flush (a session ending, a shutdown) writes them at once', async () => {
    const spool = await open(10_000);
    await deliverOne(spool, 10, 100);
    await deliverOne(spool, 10, 100);
    expect(await stored()).toBe(1);
    await spool.flush();
    expect(await stored()).toBe(2);
  });

  // `start: latest`'s baseline (session-records.ts) is a position without a record. A session added
  // during a run (PUT, discovery) had its baseline held for the bytes, and a crash in the wait left
  // it unpositioned: the next start took a new baseline past the events of the crash window, lost
  // and not sent twice. Failed before the fix (b unpositioned after 5 s).
  it("with a minimum: a session's first position without a record (a baseline) is written at the next commit", async () => {
    const spool = await open(10_000);
    // The run's first acknowledgement is written at its commit; a slow flow's next moves wait.
    await deliverOne(spool, 10, 300);
    expect(store.checkpointWrites).toBe(1);
    await store.putSession({ id: 'b', attributes: {} }, 'api');
    const storedB = async (): Promise<number | undefined> =>
      (await store.sessions()).find((x) => x.spec.id === 'b')?.checkpoint;
    const before = await storedB();
    spool.append({ sessionId: 'b', seq: 500, epoch: 0, tsMicros: 1, record: null });
    await vi.advanceTimersByTimeAsync(5 * CHECKPOINT_INTERVAL_MS);
    expect(before).not.toBe(500);
    expect(await storedB()).toBe(500);
    expect(store.checkpointWrites).toBe(2);
    // Records after that wait for their bytes as any others.
    for (let i = 0; i < 10; i++) await deliverOne(spool, 10, 100);
    expect(store.checkpointWrites).toBe(2);
  });
});
