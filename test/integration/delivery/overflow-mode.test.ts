// The overflow mode (memory first, the spool as overflow) with real processes: what a kill -9 costs
// when the service has neither the records in its ring buffer nor an archive (a gap record, never a
// silent loss), and that the healthy path writes no event to the store.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { exited, FAST, harness, sleep, spawnDaemon, until, type Harness } from '../../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function spooledRows(stateDir: string): number {
  const db = new Database(join(stateDir, 'bridge.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM spool_segments').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('spool.mode overflow', () => {
  it('an archive-less service with a small ring buffer: a kill -9 with records in memory costs a gap record, never a silent loss', async () => {
    // 50 events of replay, no archive route at all: what the bridge held only in memory is gone
    // from the service once 50 newer events passed.
    h = await harness({ bufferSize: 50, archiveSize: 0 });
    const s = h.sim.createSession('ring');
    // The collector is down: records wait in memory (the window is far above 300 records).
    h.receiver.behaviour.status = 503;
    s.emit(300);
    const env = h.env({ BRIDGE_SESSIONS: 'ring', BRIDGE_SPOOL_MODE: 'overflow' });
    const first = spawnDaemon(env);
    // It read them and tried to send them: they are in memory, the checkpoint has not moved.
    await until(() => h!.receiver.requests.length > 0, 'the daemon to try the collector', 30_000);
    first.kill('SIGKILL');
    expect(await exited(first)).toBe(null);
    expect(h.receiver.records.length).toBe(0);

    delete h.receiver.behaviour.status;
    s.emit(20);
    const second = spawnDaemon(env, ['run', '--until-ended']);
    await until(
      () => h!.receiver.records.some((r) => r.attributes['browser.telemetry.seq'] === 320),
      'the restarted daemon to deliver the newest event',
      30_000,
    );
    s.end();
    expect(await exited(second), second.output()).toBe(0);
    const [t] = h.tally(['ring']);
    expect(t!.missing, `missing seqs ${t!.missingSample.join(',')}`).toBe(0);
    // What the ring buffer evicted is named by a gap record; the rest arrived.
    expect(t!.gapRecords).toBeGreaterThan(0);
    expect(t!.unique + t!.gapEvents).toBeGreaterThanOrEqual(320);
  }, 90_000);

  it('with a healthy collector nothing of an event is written to the store', async () => {
    h = await harness();
    const s = h.sim.createSession('healthy');
    s.emit(2000);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'healthy' });
    await until(() => h!.receiver.records.length >= 2000, 'everything to arrive', 30_000);
    expect(bridge.spool.spoolMode).toBe('overflow');
    expect(spooledRows(h.stateDir)).toBe(0);
    // The checkpoint follows the acknowledgements.
    for (let i = 0; ; i++) {
      const cp = (await bridge.store.sessions()).find((r) => r.spec.id === 'healthy')?.checkpoint;
      if (cp === 2000) break;
      if (i > 500) throw new Error(`the checkpoint stays at ${cp}`);
      await sleep(20);
    }
    await bridge.shutdown();
  }, 60_000);
});
