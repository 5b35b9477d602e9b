// A wall clock stepped back (NTP after a long suspend, a restored VM snapshot) must not stretch the
// bridge's intervals by the size of the step: each of these measures "at most once a second" or
// "again in 10 minutes" on the steady clock (util/steady-clock.ts). With Date.now() each one froze
// for as long as the clock needed to catch up: the free space of a volume someone had just cleared
// was not looked at again (reading stayed paused), a deleted state database went unnoticed, and an
// archive taken for absent stayed so, recording gaps it could have repaired, and a stalled archive
// page was not cut (holding one of the two large-page permits). Fake time throughout.
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DiskRoom } from '../../../src/store/disk-room.js';
import { StateFileCheck } from '../../../src/store/state-file-check.js';
import { ArchiveReader } from '../../../src/upstream/archive.js';
import { silentLogger } from '../../../src/util/logger.js';
import { readPaced } from '../../../src/upstream/read-body.js';
import { PassThrough } from 'node:stream';

const HOUR = 3_600_000;
let t0 = 50 * HOUR;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  // Later than any time the steady clock has given in this file, so each test starts afresh.
  t0 += 10 * HOUR;
  vi.setSystemTime(t0);
});
afterEach(() => vi.useRealTimers());

const MiB = 1024 * 1024;

describe('a wall clock stepped back an hour', () => {
  it('the volume’s free space is still looked up again a second later', () => {
    // All of it the reserve SQLite keeps for itself: nothing to spool into.
    let free = 64 * MiB;
    let looks = 0;
    const room = new DiskRoom(1024 * MiB, () => {
      looks++;
      return { free, total: 1024 * MiB };
    });
    expect(room.limit(0, 0)).toBe(0);
    free = 900 * MiB;
    vi.setSystemTime(t0 - HOUR);
    room.limit(0, 0);
    vi.setSystemTime(t0 - HOUR + 1500);
    expect(room.limit(0, 0)).toBeGreaterThan(0);
    expect(looks).toBe(2);
  });

  it('a deleted state database is still found a second later', () => {
    const dir = mkdtempSync(join(tmpdir(), 'clock-step-'));
    try {
      const file = join(dir, 'bridge.db');
      writeFileSync(file, 'x');
      const check = new StateFileCheck(file);
      check.assertPresent();
      vi.setSystemTime(t0 - HOUR);
      check.assertPresent();
      unlinkSync(file);
      vi.setSystemTime(t0 - HOUR + 1500);
      expect(() => check.assertPresent()).toThrow(expect.objectContaining({ code: 'STATE_FILE_GONE' }) as Error);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an archive taken for absent is asked again after reprobeMs', async () => {
    let routes = false;
    const reader = new ArchiveReader(
      {
        listEvents: () =>
          Promise.resolve(
            routes
              ? { kind: 'ok', items: [], hasMore: false }
              : { kind: 'error', status: 404, error: { code: 'not_found', message: 'no route' } },
          ),
        getSession: () => Promise.resolve({ kind: 'ok', value: {} }),
      },
      silentLogger(),
      { mode: 'auto', retryDelayMs: 0, reprobeMs: 60_000 },
    );
    expect(await reader.newest('s')).toEqual({ kind: 'absent' });
    routes = true;
    vi.setSystemTime(t0 - HOUR);
    expect(reader.usable).toBe(false);
    vi.setSystemTime(t0 - HOUR + 61_000);
    expect(reader.usable).toBe(true);
  });

  it('a stalled archive page is still cut when its time is up', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(t0);
    const body = new PassThrough();
    let cut: string | undefined;
    void readPaced(body, { timeoutMs: 1000, maxBytes: MiB, minBytesPerSecond: 1000 }).then((r) => (cut = r.cut));
    vi.setSystemTime(t0 - HOUR);
    await vi.advanceTimersByTimeAsync(2500);
    body.destroy();
    expect(cut).toMatch(/below 1000 bytes\/s/);
  });
});
