// When the spool's room is held by its volume (store/spool-room.ts): the limit the volume's free
// space sets, and the one fact said when reading begins to wait on a volume that delivering would
// not free, and the one said when reading goes on.
import { describe, expect, it, vi } from 'vitest';
import { SpoolRoom, type RoomGauges } from '../../../src/store/spool-room.js';
import type { Fact } from '../../../src/vocabulary/facts.js';

const MiB = 1024 * 1024;

interface World {
  free: number;
  stored: number;
  pending: number;
  /** Overflow mode: records waiting in memory that a spill would write. */
  waiting?: number;
  closed?: boolean;
}

function room(w: World, total = 4 * MiB): { room: SpoolRoom; facts: Fact[] } {
  const facts: Fact[] = [];
  const g: RoomGauges = {
    commitDue: () => false,
    diskNeeded: () => true,
    writeFailing: () => false,
    undeleted: () => 0,
    storedBytes: () => w.stored,
    pendingBytes: () => w.pending,
    mustStoreBytes: () => w.stored + w.pending + (w.waiting ?? 0),
    closed: () => w.closed === true,
  };
  return {
    room: new SpoolRoom(
      256 * MiB,
      () => ({ free: w.free, total }),
      g,
      (f) => facts.push(f),
    ),
    facts,
  };
}

describe('a spool held by its volume', () => {
  it.each<[string, number, number, number, number, boolean, number?]>([
    // free, stored, pending, total → volumeFull
    ['a 4 MiB volume with 1 MiB free and nothing spooled', 1 * MiB, 0, 1000, 4 * MiB, true],
    ['a 1 GiB volume with 100 MiB free beyond nothing spooled: room', 100 * MiB, 0, 1000, 1024 * MiB, false],
    [
      'a full volume whose spool, delivered, would free enough: an outage, not a full volume',
      1 * MiB,
      20 * MiB,
      1000,
      4 * MiB,
      false,
    ],
    ['a full volume whose spool would not free enough', 1 * MiB, 2 * MiB, 1000, 4 * MiB, true],
    [
      'overflow mode, records waiting in memory to spill: delivering them ends it',
      1 * MiB,
      0,
      1000,
      4 * MiB,
      false,
      MiB,
    ],
  ])('%s', (_what, free, stored, pending, total, full, waiting) => {
    const { room: r } = room({ free, stored, pending, ...(waiting !== undefined ? { waiting } : {}) }, total);
    expect(r.volumeFull !== undefined).toBe(full);
    if (full) expect(r.volumeFull).toEqual({ free, reserve: 8 * MiB });
  });

  it('reading that waits on a full volume is said once, and its end once', async () => {
    const w = { free: 1 * MiB, stored: 0, pending: 1000 };
    const { room: r, facts } = room(w);
    const waits = [r.waitForRoom(), r.waitForRoom()];
    expect(facts).toEqual([{ f: 'volume_full', freeBytes: 1 * MiB, reserveBytes: 8 * MiB, times: 1 }]);
    // The volume gets room (another program's file removed); free space is looked up again a
    // second later (the clock the spool reads is Date.now(), moved here, not waited for).
    w.free = 200 * MiB;
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 2000);
      r.recheck();
    } finally {
      vi.useRealTimers();
    }
    await Promise.all(waits);
    expect(facts.map((f) => f.f)).toEqual(['volume_full', 'volume_room']);
  });

  it('a wait on a full volume ended by the spool closing says no resumption', async () => {
    const w = { free: 1 * MiB, stored: 0, pending: 1000, closed: false };
    const { room: r, facts } = room(w);
    const wait = r.waitForRoom();
    w.closed = true;
    r.recheck();
    await wait;
    expect(facts.map((f) => f.f)).toEqual(['volume_full']);
  });
});
