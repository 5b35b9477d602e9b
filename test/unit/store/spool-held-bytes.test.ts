// Large records count against the memory budget as soon as the spool holds them: with screenshots of
// ~1 MB, a sampled RSS would show a burst only after it was read. The spool and delivery report what
// they hold (pending a commit, waiting for delivery, being sent); the guard counts it; the spool is
// full while it exceeds its share, and has room again once delivery took it.
import { afterEach, describe, expect, it } from 'vitest';
import { Spool } from '../../../src/store/spool.js';
import { SqliteStore } from '../../../src/store/sqlite-store.js';
import { HELD_SHARE, startMemoryGuard, type MemoryGuard } from '../../../src/util/memory-budget.js';

const BUDGET = 8 * 1024 * 1024;
const SCREENSHOT = Buffer.alloc(900 * 1024, 7);

let guard: MemoryGuard | undefined;
afterEach(() => guard?.stop());

async function spoolWithBudget(): Promise<{ spool: Spool; guard: MemoryGuard }> {
  const store = new SqliteStore(':memory:');
  await store.putSession({ id: 's', attributes: {} }, 'config');
  // RSS never moves here: only the held bytes can make the guard say "over".
  guard = startMemoryGuard(BUDGET, { intervalMs: 60_000, rss: () => 0 });
  const g = guard;
  const spool = await Spool.open({
    store,
    mode: 'always',
    maxBytes: 1024 ** 3,
    memoryMaxBytes: 64 * 1024 * 1024,
    commitMaxRecords: 100_000,
    commitIntervalMs: 60_000,
    memoryPressure: () => g.over,
  });
  g.countHeld(() => spool.heldBytes.pending + spool.heldBytes.ready);
  return { spool, guard: g };
}

describe('held bytes and the memory budget', () => {
  it('pending screenshots fill the spool once they pass their share of the budget, without any RSS sample', async () => {
    const { spool, guard: g } = await spoolWithBudget();
    let seq = 0;
    while (!spool.full && seq < 100)
      spool.append({ sessionId: 's', seq: ++seq, epoch: 0, tsMicros: 1, record: SCREENSHOT });
    // Full at the first record past the share, not later.
    expect(g.heldBytes).toBeGreaterThan(BUDGET * HELD_SHARE);
    expect(g.heldBytes - SCREENSHOT.length).toBeLessThanOrEqual(BUDGET * HELD_SHARE);
    expect(seq).toBe(Math.floor((BUDGET * HELD_SHARE) / SCREENSHOT.length) + 1);
    await spool.close();
  });

  it('has room again once delivery took what was held and acknowledged it', async () => {
    const { spool, guard: g } = await spoolWithBudget();
    let seq = 0;
    while (!spool.full && seq < 100)
      spool.append({ sessionId: 's', seq: ++seq, epoch: 0, tsMicros: 1, record: SCREENSHOT });
    await spool.flush();
    // Committed, not yet delivered: still held (the ready queue), still full.
    expect(spool.heldBytes.ready).toBe(seq * SCREENSHOT.length);
    expect(spool.full).toBe(true);
    const room = spool.waitForRoom();
    const claim = await spool.takeBatch(100_000);
    expect(claim?.records).toBe(seq);
    await spool.acknowledge(claim!);
    await room;
    expect(g.heldBytes).toBe(0);
    expect(spool.full).toBe(false);
    await spool.close();
  });
});
