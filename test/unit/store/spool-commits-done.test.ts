// The spool says when a commit is done: `run --until-ended` asks whether the run is over whenever
// something settles, and in `spool.mode always` the last thing to settle can be the commit that
// deletes the last delivered records, after the last delivery and the last session's end. Without
// this the daemon waited forever (seen once in five runs of sigterm-under-load).
import { afterEach, describe, expect, it } from 'vitest';
import { Spool } from '../../../src/store/spool.js';
import { SqliteStore } from '../../../src/store/sqlite-store.js';
import type { Store } from '../../../src/store/store.js';
import { openTestSpool } from '../../helpers/delivery-fixture.js';

/** A store whose commits wait until the test lets them through. */
class HeldStore extends SqliteStore {
  held: Array<() => void> = [];
  hold = false;
  override async commit(...args: Parameters<Store['commit']>): Promise<number[]> {
    if (this.hold) await new Promise<void>((r) => this.held.push(r));
    return super.commit(...args);
  }
}

/** An always-mode spool over `store` (session "s"), committed only when flushed: its timer is a minute. */
const alwaysSpool = (store: HeldStore): Promise<Spool> =>
  openTestSpool(store, { maxBytes: 1 << 30, commitMaxRecords: 5000, commitIntervalMs: 60_000, now: () => Date.now() });

describe('the spool tells when a commit is done', () => {
  let store: HeldStore;
  afterEach(async () => {
    await store.close();
  });

  it('the watcher hears of the commit that leaves the spool idle, not before it is idle', async () => {
    store = new HeldStore(':memory:');
    const spool = await alwaysSpool(store);
    const idleWhenTold: boolean[] = [];
    spool.watchCommitsDone(() => idleWhenTold.push(spool.idle));
    spool.append({ sessionId: 's', seq: 1, epoch: 0, tsMicros: 1, record: Buffer.from([0x12, 1, 0x61]) });
    store.hold = true;
    const flushed = spool.flush();
    await new Promise((r) => setImmediate(r));
    // The commit is under way: not idle, and nobody told yet.
    expect(spool.idle).toBe(false);
    expect(idleWhenTold).toEqual([]);
    store.hold = false;
    for (const release of store.held.splice(0)) release();
    await flushed;
    // Told once the commit is done; the record is on disk now, so not idle yet.
    expect(idleWhenTold.length).toBeGreaterThan(0);
    expect(idleWhenTold.at(-1)).toBe(false);
    // Delivered and acknowledged: the deletion is the last commit, and the watcher hears it idle.
    const batch = (await spool.takeBatch(100))!;
    expect(batch.records).toBe(1);
    const told = idleWhenTold.length;
    await spool.acknowledge(batch);
    await spool.flush();
    expect(idleWhenTold.length).toBeGreaterThan(told);
    expect(spool.idle).toBe(true);
    expect(idleWhenTold.at(-1)).toBe(true);
  });

  it('the watcher hears of a failed delete done later in the background, with no commit after it', async () => {
    store = new HeldStore(':memory:');
    const spool = await alwaysSpool(store);
    spool.append({ sessionId: 's', seq: 1, epoch: 0, tsMicros: 1, record: Buffer.from([0x12, 1, 0x61]) });
    await spool.flush();
    const deleteSegments = store.deleteSegments.bind(store);
    let fail = true;
    store.deleteSegments = async (ids, known) => {
      if (fail) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      return deleteSegments(ids, known);
    };
    const idleWhenTold: boolean[] = [];
    spool.watchCommitsDone(() => idleWhenTold.push(spool.idle));
    // Delivered; its delete fails: the acknowledgement returns, the delete waits for its retry.
    await spool.acknowledge((await spool.takeBatch(100))!);
    expect(spool.undeletedBatches).toBe(1);
    expect(spool.idle).toBe(false);
    const told = idleWhenTold.length;
    fail = false;
    const end = Date.now() + 5000;
    while (!spool.idle && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(spool.idle).toBe(true);
    expect(idleWhenTold.length).toBeGreaterThan(told);
    expect(idleWhenTold.at(-1)).toBe(true);
  });
});
