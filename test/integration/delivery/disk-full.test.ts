// A state directory on a small volume (a tmpfs of its own) with the default spool limit far above
// the volume's size, while the collector is down: the spool stops at the free space instead of
// filling the disk, readiness says so, and once the collector is back everything is delivered and
// deleted without a restart. Mounting needs root; elsewhere the test says why it did not run.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, statfsSync, truncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';
import { eventually, startInProcess, type RunningBridge } from '../server/bridge-harness.js';

function tryMount(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const probe = mkdtempSync(join(tmpdir(), 'bridge-mount-probe-'));
const canMount = process.getuid?.() === 0 && tryMount(probe, '1m');
if (canMount) execFileSync('umount', [probe]);
rmSync(probe, { recursive: true, force: true });

let h: Harness | undefined;
let volume: string | undefined;
let running: RunningBridge | undefined;
afterEach(async () => {
  await running?.stop(Date.now());
  running = undefined;
  await h?.close();
  h = undefined;
  if (volume) {
    execFileSync('umount', [volume]);
    rmSync(volume, { recursive: true, force: true });
    volume = undefined;
  }
});

describe.skipIf(!canMount)('a small volume (needs root to mount a tmpfs)', () => {
  it('the spool stops at the free space, and recovers by itself once the collector is back', async () => {
    volume = mkdtempSync(join(tmpdir(), 'bridge-small-volume-'));
    expect(tryMount(volume, '32m')).toBe(true);
    h = await harness({ bufferSize: 100_000 });
    const s = h.sim.createSession('df');
    h.receiver.behaviour.status = 503;
    // 40k realistic records are well over the volume; the default spool limit (256 MiB) far more.
    s.emit(40_000);
    // A small memory window: the outage spills at once, not after 64 MiB (the default) in memory.
    const raw = { ...FAST, spool: { commit_interval: '10ms', memory_max_bytes: '1MiB' } };
    const bridge = await h.startBridge(raw, { BRIDGE_SESSIONS: 'df', BRIDGE_STATE_DIR: join(volume, 'state') });
    await until(
      () => bridge.spool.full && bridge.spool.pausedReaders > 0,
      'reading to pause on the small volume',
      60_000,
    );
    expect(bridge.spool.limitedByDisk).toBe(true);
    const fs = statfsSync(volume);
    // The reserve is left free: SQLite can still write its WAL and delete.
    expect(fs.bavail * fs.bsize).toBeGreaterThan(4 * 1024 * 1024);
    expect(bridge.supervisor.status()[0]!.received).toBeLessThan(40_000);

    delete h.receiver.behaviour.status;
    s.end();
    await bridge.supervisor.untilAllEnded();
    expect(h.tally(['df'])[0]).toMatchObject({ unique: 40_000, missing: 0, gapRecords: 0 });
    expect(bridge.spool.spooled.records).toBe(0);
    expect(bridge.spool.undeletedBatches).toBe(0);
  }, 180_000);
});

describe.skipIf(!canMount)('a full volume (needs root to mount a tmpfs)', () => {
  it('recovers after the operator frees space once: deletes come before new segments', async () => {
    volume = mkdtempSync(join(tmpdir(), 'bridge-full-volume-'));
    expect(tryMount(volume, '48m')).toBe(true);
    h = await harness({ bufferSize: 400_000 });
    const s = h.sim.createSession('full');
    h.receiver.behaviour.status = 503;
    s.produce(3000);
    const env = { BRIDGE_SESSIONS: 'full', BRIDGE_STATE_DIR: join(volume, 'state') };
    let bridge = await h.startBridge(FAST, env);
    await until(() => bridge.spool.spooled.bytes > 12 * 1024 * 1024, 'a backlog in the spool', 60_000);
    await bridge.shutdown(Date.now());
    // Something else on the volume takes every byte that is left (a log file, another program),
    // and the bridge starts again on it: its write-ahead log starts empty and has no room to grow.
    const filler = join(volume, 'filler');
    fillVolume(filler);
    // Just enough to open the database.
    truncateSync(filler, statSync(filler).size - 512 * 1024);
    delete h.receiver.behaviour.status;
    bridge = await h.startBridge(FAST, env);
    await until(
      () => bridge.spool.undeletedBatches > 0 || bridge.spool.commitError !== undefined,
      'the full volume to refuse writes',
      30_000,
    );
    await new Promise((r) => setTimeout(r, 3000));
    // The operator frees space once: less than the filler took, as people do.
    truncateSync(filler, Math.max(0, statSync(filler).size - 6 * 1024 * 1024));
    s.produce(0);
    const last = s.lastSeq;
    await until(
      () => h!.receiver.records.filter((r) => r.attributes['browser.session.id'] === 'full').length >= last,
      'everything read to arrive after one free',
      60_000,
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}: ${JSON.stringify({ undeleted: bridge.spool.undeletedBatches, commitError: bridge.spool.commitError, spooled: bridge.spool.spooled, full: bridge.spool.full, free: statfsSync(volume!).bavail * statfsSync(volume!).bsize })}`,
      );
    });
    await until(
      () => bridge.spool.undeletedBatches === 0 && bridge.spool.spooled.records === 0,
      'the spool to empty',
      30_000,
    );
  }, 240_000);
});

describe.skipIf(!canMount)('a 16 MiB volume (needs root to mount a tmpfs)', () => {
  it('a full volume with the collector up is harmless in overflow mode: everything is delivered', async () => {
    volume = mkdtempSync(join(tmpdir(), 'bridge-16m-healthy-'));
    expect(tryMount(volume, '16m')).toBe(true);
    h = await harness({ bufferSize: 100_000 });
    const s = h.sim.createSession('healthy-full');
    const env = { BRIDGE_SESSIONS: 'healthy-full', BRIDGE_STATE_DIR: join(volume, 'state') };
    const bridge = await h.startBridge(FAST, env);
    // Something else takes every byte that is left while the bridge runs.
    fillVolume(join(volume, 'filler'));
    s.emit(5000);
    await until(
      () => h!.receiver.records.filter((r) => r.attributes['browser.session.id'] === 'healthy-full').length >= 5000,
      'everything to arrive on a full volume',
      60_000,
    );
    expect(bridge.spool.full).toBe(false);
    expect(h.tally(['healthy-full'])[0]).toMatchObject({ unique: 5000, missing: 0, gapRecords: 0 });
    await bridge.shutdown(Date.now());
  }, 120_000);

  for (const mode of ['overflow', 'always'] as const)
    it(`during an outage, two filler files: one free is enough to recover (spool.mode ${mode})`, async () => {
      volume = mkdtempSync(join(tmpdir(), 'bridge-16m-two-fillers-'));
      expect(tryMount(volume, '16m')).toBe(true);
      h = await harness({ bufferSize: 400_000 });
      const s = h.sim.createSession('two');
      h.receiver.behaviour.status = 503;
      s.produce(3000);
      const env = {
        BRIDGE_SESSIONS: 'two',
        BRIDGE_STATE_DIR: join(volume, 'state'),
        // A small memory window: the outage spills to the volume soon.
        BRIDGE_SPOOL_MODE: mode,
      };
      const raw = { ...FAST, spool: { commit_interval: '10ms', memory_max_bytes: '1MiB' } };
      let bridge = await h.startBridge(raw, env);
      // The spool stops at a third of what is free beyond the reserve (8 MiB here): about 2 MiB.
      await until(() => bridge.spool.onDisk.bytes > 1024 * 1024, 'a backlog on the volume', 60_000);
      await bridge.shutdown(Date.now());
      // Another program takes every byte that is left but what opening the database needs; the
      // bridge starts again on it (its write-ahead log starts empty), and a second program takes
      // the rest while it runs.
      fillVolume(join(volume, 'filler-a'));
      truncateSync(join(volume, 'filler-a'), statSync(join(volume, 'filler-a')).size - 512 * 1024);
      bridge = await h.startBridge(raw, env);
      fillVolume(join(volume, 'filler-b'));
      await until(
        () => bridge.spool.commitError !== undefined || bridge.spool.undeletedBatches > 0 || bridge.spool.full,
        'the full volume to stop the spool',
        30_000,
      );
      delete h.receiver.behaviour.status;
      await new Promise((r) => setTimeout(r, 2000));
      // The operator frees space once: one of the two files.
      rmSync(join(volume, 'filler-a'));
      s.produce(0);
      const last = s.lastSeq;
      await until(
        () => h!.receiver.records.filter((r) => r.attributes['browser.session.id'] === 'two').length >= last,
        'everything read to arrive after one free',
        90_000,
      ).catch((err: Error) => {
        throw new Error(
          `${err.message}: ${JSON.stringify({ undeleted: bridge.spool.undeletedBatches, commitError: bridge.spool.commitError, spooled: bridge.spool.spooled, full: bridge.spool.full, free: statfsSync(volume!).bavail * statfsSync(volume!).bsize })}`,
        );
      });
      await until(
        () => bridge.spool.undeletedBatches === 0 && bridge.spool.onDisk.records === 0,
        'the spool to empty',
        30_000,
      );
      expect(h.tally(['two'])[0]).toMatchObject({ missing: 0 });
    }, 240_000);
});

describe.skipIf(!canMount)('a volume smaller than what the spool keeps free (needs root to mount a tmpfs)', () => {
  it('always mode, collector up: reading waits for the volume, /readyz and the capacity gauge say so; a larger volume lets it go on', async () => {
    volume = mkdtempSync(join(tmpdir(), 'bridge-4m-'));
    // The spool keeps at least 8 MiB of a volume free for SQLite: on 4 MiB nothing may be spooled,
    // and in always mode every record must be, so reading waits. No delivery can make room.
    expect(tryMount(volume, '4m')).toBe(true);
    h = await harness({ bufferSize: 100_000 });
    const s = h.sim.createSession('small');
    running = await startInProcess(
      h,
      {},
      {
        BRIDGE_SESSIONS: 'small',
        BRIDGE_STATE_DIR: join(volume, 'state'),
        BRIDGE_SPOOL_MODE: 'always',
      },
    );
    const url = running.url;
    s.emit(2000);
    const ready = async (): Promise<{ status: number; problems: string[] }> => {
      const res = await fetch(`${url}/readyz`);
      return { status: res.status, problems: ((await res.json()) as { problems: string[] }).problems };
    };
    const unready = await eventually(
      async () => {
        const r = await ready();
        return r.status === 503 ? r : undefined;
      },
      'readiness to say that reading waits for the volume',
      20_000,
    );
    expect(unready.problems.join('\n')).toMatch(
      /reading paused: the volume of the state directory .* MiB free, within the 8\.0 MiB/,
    );
    expect(h.received('small')).toBeLessThan(2000);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const capacity = Number(/^bridge_spool_capacity_bytes (\S+)$/m.exec(metrics)?.[1]);
    // What reading stops at on this volume, not the configured 256 MiB: the spool alerts divide by it.
    expect(capacity).toBeLessThan(4 * 1024 * 1024);
    // The operator gives the volume room: reading goes on by itself, nothing is missing.
    execFileSync('mount', ['-o', 'remount,size=64m', volume]);
    await until(() => h!.received('small') >= 2000, 'everything to arrive once the volume has room', 30_000);
    expect(h.tally(['small'])[0]).toMatchObject({ missing: 0, gapRecords: 0 });
    expect((await ready()).status).toBe(200);
  }, 60_000);
});

function fillVolume(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(256 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch {
    // ENOSPC: the volume is full; write what still fits in smaller pieces.
    try {
      for (;;) writeSync(fd, chunk.subarray(0, 4096));
    } catch {
      // full
    }
  } finally {
    closeSync(fd);
  }
}
