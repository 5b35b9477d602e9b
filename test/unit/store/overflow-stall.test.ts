// A shared store that cannot take checkpoints (a replica cut off from PostgreSQL): overflow mode's
// delivery from memory pauses once an acknowledgement has waited CHECKPOINT_STALL_MS for its write,
// waits without spinning, and resumes when a write goes through. With the embedded store's setting
// (no pause) it goes on. Clock and timers are fake; the store is SQLite in memory, failing on demand.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHECKPOINT_STALL_MS } from '../../../src/store/checkpoint-timing.js';
import { Spool } from '../../../src/store/spool.js';
import { SqliteStore } from '../../../src/store/sqlite-store.js';
import type { Store } from '../../../src/store/store.js';
import type { Fact } from '../../../src/vocabulary/facts.js';

class CutStore extends SqliteStore {
  cut = false;
  /** Writes neither fail nor finish (a frozen database). */
  hang = false;
  override async commit(...args: Parameters<Store['commit']>): Promise<number[]> {
    if (this.hang) return new Promise<number[]>(() => undefined);
    if (this.cut) throw new Error('Connection terminated due to connection timeout');
    return super.commit(...args);
  }
}

const record = (seq: number): Buffer => Buffer.from([0x12, 1, seq & 0x7f]);

/** The pause's facts, in order, of the spool opened last. */
let pauses: Fact[] = [];

async function openSpool(
  pause: boolean,
  commitIntervalMs = 100,
  commitMaxRecords = 1000,
): Promise<{ spool: Spool; store: CutStore }> {
  const store = new CutStore(':memory:');
  await store.putSession({ id: 's', attributes: {} }, 'config');
  const spool = await Spool.open({
    store,
    mode: 'overflow',
    pauseOnUnwrittenCheckpoints: pause,
    maxBytes: 1 << 30,
    memoryMaxBytes: 1 << 20,
    memoryMaxAgeMs: 60_000,
    commitMaxRecords,
    commitIntervalMs,
    now: () => Date.now(),
    emit: (fact) => {
      if (fact.f === 'delivery_paused' || fact.f === 'delivery_resumed') pauses.push(fact);
    },
  });
  pauses = [];
  return { spool, store };
}

/** A first record committed; then the store fails (`cut`) or hangs (`hang`), and the record is acknowledged. */
async function acknowledgedThen(broken: 'cut' | 'hang', pause: boolean): Promise<{ spool: Spool; store: CutStore }> {
  const { spool, store } = await openSpool(pause);
  spool.append({ sessionId: 's', seq: 1, epoch: 0, tsMicros: 1, record: record(1) });
  await spool.flush();
  store[broken] = true;
  const first = await spool.takeBatch(10);
  await spool.acknowledge(first!);
  return { spool, store };
}

async function cutOffWithUnwrittenAck(pause: boolean): Promise<{ spool: Spool; store: CutStore }> {
  const { spool, store } = await acknowledgedThen('cut', pause);
  // More records wait in memory; the acknowledgement above cannot be checkpointed.
  spool.append({ sessionId: 's', seq: 2, epoch: 0, tsMicros: 2, record: record(2) });
  await spool.flush();
  return { spool, store };
}

describe('overflow mode when checkpoints cannot be written', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'Date'] });
  });
  afterEach(() => {
    vi.clearAllTimers();
    vi.useRealTimers();
  });

  it('pauses delivery from memory past CHECKPOINT_STALL_MS, waits without spinning, and resumes after a write', async () => {
    const { spool, store } = await cutOffWithUnwrittenAck(true);
    await vi.advanceTimersByTimeAsync(CHECKPOINT_STALL_MS / 2);
    // Within the stall, delivery goes on: a write may be slow without being lost.
    const within = await spool.takeBatch(10);
    expect(within?.records).toBe(1);
    spool.release(within!);

    expect(spool.memoryDeliveryPausedMs).toBeUndefined();
    await vi.advanceTimersByTimeAsync(CHECKPOINT_STALL_MS);
    expect(await spool.takeBatch(10)).toBeNull();
    let woke = false;
    void spool.waitForData().then(() => (woke = true));
    await vi.advanceTimersByTimeAsync(5 * CHECKPOINT_STALL_MS);
    expect(woke).toBe(false);
    // Said once, however often delivery asked; the status shows how long it lasts.
    expect(pauses).toEqual([{ f: 'delivery_paused', waitedMs: expect.any(Number) as number }]);
    expect((pauses[0] as { waitedMs: number }).waitedMs).toBeGreaterThan(CHECKPOINT_STALL_MS);
    expect(spool.memoryDeliveryPausedMs).toBeGreaterThanOrEqual(5 * CHECKPOINT_STALL_MS);
    // Readiness says why (no commit of records failed: they stay in memory).
    expect(spool.commitError).toBeUndefined();
    expect(spool.checkpointError).toBe('Connection terminated due to connection timeout');

    // The link is back: the retried checkpoint write goes through and delivery resumes.
    store.cut = false;
    await vi.advanceTimersByTimeAsync(CHECKPOINT_STALL_MS);
    expect(woke).toBe(true);
    expect(pauses.map((p) => p.f)).toEqual(['delivery_paused', 'delivery_resumed']);
    expect(pauses[1]).toMatchObject({ why: 'written' });
    expect(spool.memoryDeliveryPausedMs).toBeUndefined();
    expect(spool.checkpointError).toBeUndefined();
    expect((await store.sessions())[0]!.checkpoint).toBe(1);
    expect((await spool.takeBatch(10))?.records).toBe(1);
  });

  it('goes on delivering from memory with the embedded store (no pause: a full disk must not stop delivery)', async () => {
    const { spool } = await cutOffWithUnwrittenAck(false);
    await vi.advanceTimersByTimeAsync(3 * CHECKPOINT_STALL_MS);
    expect((await spool.takeBatch(10))?.records).toBe(1);
  });

  it('does not pause the drain after close: checkpoints wait for finish() then, by design', async () => {
    const { spool } = await cutOffWithUnwrittenAck(true);
    await spool.close();
    await vi.advanceTimersByTimeAsync(3 * CHECKPOINT_STALL_MS);
    expect((await spool.takeBatch(10))?.records).toBe(1);
  });

  it('wakes a delivery paused on a stall when the spool closes, so the drain can run', async () => {
    const { spool } = await cutOffWithUnwrittenAck(true);
    await vi.advanceTimersByTimeAsync(2 * CHECKPOINT_STALL_MS);
    expect(await spool.takeBatch(10)).toBeNull();
    let woke = false;
    void spool.waitForData().then(() => (woke = true));
    await spool.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(woke).toBe(true);
    expect(pauses.map((p) => p.f)).toEqual(['delivery_paused', 'delivery_resumed']);
    expect(pauses[1]).toMatchObject({ why: 'closing' });
  });

  /** Paused now; the session forgotten (its lease ran out), the pause ends as given up, nothing taken meanwhile. */
  async function expectGivenUpOnceForgotten(spool: Spool): Promise<void> {
    expect(await spool.takeBatch(10)).toBeNull();
    spool.forget(['s']);
    await vi.advanceTimersByTimeAsync(CHECKPOINT_STALL_MS);
    expect(await spool.takeBatch(10)).toBeNull();
    expect(pauses.map((p) => p.f)).toEqual(['delivery_paused', 'delivery_resumed']);
    expect(pauses[1]).toMatchObject({ why: 'given_up' });
  }

  it('ends the pause as given up, not as resumed, when the sessions it waited for are forgotten (a lease ran out)', async () => {
    const { spool } = await cutOffWithUnwrittenAck(true);
    await vi.advanceTimersByTimeAsync(2 * CHECKPOINT_STALL_MS);
    await expectGivenUpOnceForgotten(spool);
  });

  it('ends the pause as given up too when the write it waited for hangs (a frozen database) and the sessions are forgotten', async () => {
    const { spool } = await acknowledgedThen('hang', true);
    spool.append({ sessionId: 's', seq: 2, epoch: 0, tsMicros: 2, record: record(2) });
    await vi.advanceTimersByTimeAsync(3 * CHECKPOINT_STALL_MS);
    await expectGivenUpOnceForgotten(spool);
  });

  it('goes on sealing and delivering what sessions read while a checkpoint write hangs, until the stall', async () => {
    // A frozen database (SIGSTOP, a black-holed link) holds a checkpoint write until its query
    // times out. What the sessions read meanwhile needs no database: it is delivered from memory
    // as before, until the stall's pause.
    const { spool } = await acknowledgedThen('hang', true);
    // The first acknowledgement is written at once: that write hangs.
    await vi.advanceTimersByTimeAsync(150);
    for (let seq = 2; seq <= 4; seq++) {
      spool.append({ sessionId: 's', seq, epoch: 0, tsMicros: seq, record: record(seq) });
      await vi.advanceTimersByTimeAsync(150);
      const batch = await spool.takeBatch(10);
      expect(batch?.records, `record ${seq}`).toBe(1);
      await spool.acknowledge(batch!);
    }
    // Then the stall: the acknowledgements above are not written, and delivery from memory pauses.
    spool.append({ sessionId: 's', seq: 5, epoch: 0, tsMicros: 5, record: record(5) });
    await vi.advanceTimersByTimeAsync(CHECKPOINT_STALL_MS);
    expect(await spool.takeBatch(10)).toBeNull();
    expect(pauses.map((p) => p.f)).toEqual(['delivery_paused']);
    await expectGivenUpOnceForgotten(spool);
  });

  it('never pauses a healthy store whose commit interval is longer than the stall', async () => {
    // Checkpoints are written once per commit interval when that is longer than a second: a healthy
    // write then comes later than CHECKPOINT_STALL_MS, and must not be taken for a stalled one.
    const commitIntervalMs = 2 * CHECKPOINT_STALL_MS;
    // One record per commit: each append is committed by the spool's own loop, never by a flush().
    const { spool, store } = await openSpool(true, commitIntervalMs, 1);
    for (let seq = 1; seq <= 40; seq++) {
      spool.append({ sessionId: 's', seq, epoch: 0, tsMicros: seq, record: record(seq) });
      await vi.advanceTimersByTimeAsync(0);
      const batch = await spool.takeBatch(10);
      expect(batch?.records, `record ${seq}`).toBe(1);
      await spool.acknowledge(batch!);
      await vi.advanceTimersByTimeAsync(commitIntervalMs / 8);
    }
    expect((await store.sessions())[0]!.checkpoint).toBeGreaterThan(30);
    expect(pauses).toEqual([]);
  });
});
