// The collector answers 503, then refuses connections, then recovers: nothing is lost, and while
// the spool is full the bridge stops reading instead of growing memory (docs/design.md "Delivery
// semantics": at-least-once, back-pressure).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, exited, harness, sleep, spawnDaemon, until, type Harness } from '../../helpers/harness.js';

let h: Harness;

/** The checkpoint a daemon wrote for `sessionId` in its state directory (0 before it wrote one). */
function storedCheckpoint(stateDir: string, sessionId: string): number {
  const file = join(stateDir, 'bridge.db');
  if (!existsSync(file)) return 0;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare('SELECT checkpoint FROM sessions WHERE id = ?').get(sessionId) as
      { checkpoint: number } | undefined;
    return row?.checkpoint ?? 0;
  } catch {
    // Killed or caught while it created the database: no table yet, nothing stored.
    return 0;
  } finally {
    db.close();
  }
}
afterEach(async () => h?.close());

describe('collector outage', () => {
  it('503, then connection refused, then recovery: everything arrives', async () => {
    h = await harness({ bufferSize: 100_000 });
    const ids = ['o1', 'o2'];
    for (const id of ids) h.sim.createSession(id).emit(200);
    h.receiver.behaviour.status = 503;
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: ids.join(',') });
    await until(() => bridge.delivery.exportFailing, 'exports to fail');
    expect(h.receiver.records).toHaveLength(0);
    await h.receiver.stop();
    for (const id of ids) h.sim.session(id)!.emit(200);
    await sleep(500);
    expect(bridge.spool.spooled.records).toBeGreaterThan(0);
    delete h.receiver.behaviour.status;
    await h.receiver.start();
    await until(() => h.receiver.records.length >= 800, '800 records', 30_000);
    for (const id of ids) h.sim.session(id)!.end();
    await bridge.supervisor.untilAllEnded();
    for (const t of h.tally(ids)) expect(t).toMatchObject({ unique: 400, missing: 0, gapRecords: 0 });
    expect(bridge.delivery.exportFailing).toBe(false);
  }, 60_000);

  it('kill -9 while the collector is down: the spool keeps everything for the next start', async () => {
    h = await harness({ bufferSize: 100_000 });
    const s = h.sim.createSession('kd');
    s.emit(500);
    h.receiver.behaviour.status = 503;
    const env = h.env({ BRIDGE_SESSIONS: 'kd' });
    const first = spawnDaemon(env);
    await until(() => h.receiver.requests.length >= 3, 'export attempts against the failing collector', 30_000);
    await h.receiver.stop();
    await sleep(300);
    first.kill('SIGKILL');
    await exited(first);
    delete h.receiver.behaviour.status;
    await h.receiver.start();
    s.end();
    const second = spawnDaemon(env, ['run', '--until-ended']);
    expect(await exited(second), second.output()).toBe(0);
    expect(h.tally(['kd'])[0]).toMatchObject({ unique: 500, missing: 0, gapRecords: 0 });
  }, 60_000);

  it('kill -9 after an outage long enough to spill: the next start sends again at most the requests that were in flight', async () => {
    h = await harness({ bufferSize: 100_000 });
    const configFile = join(h.stateDir, 'bridge.yaml');
    // Two requests of 50 in flight at most; what waits in memory spills after 300 ms.
    writeFileSync(
      configFile,
      `spool: { commit_interval: 10ms, memory_max_age: 300ms }
exporter: { timeout: 2s, batch_max_records: 50, concurrency: 2, backoff: { initial: 50ms, max: 200ms } }
upstream: { idle_timeout: 3s, backoff: { initial: 20ms, max: 200ms } }`,
    );
    const s = h.sim.createSession('ks');
    s.emit(300);
    h.receiver.behaviour.status = 503;
    const env = h.env({ BRIDGE_CONFIG: configFile, BRIDGE_SESSIONS: 'ks' });
    const first = spawnDaemon(env);
    await until(() => h.receiver.requests.length >= 2, 'requests failing against the collector', 30_000);
    // Read behind the requests being retried: these spill to the store behind them.
    s.emit(300);
    // Everything read is durable once the stored checkpoint reaches the last event: the requests in
    // flight were handed back to the store with what spilled behind them. Before, the checkpoint
    // stayed below them for the whole outage.
    await until(() => storedCheckpoint(h.stateDir, 'ks') >= 600, 'the checkpoint to pass every event read', 30_000);
    first.kill('SIGKILL');
    await exited(first);
    delete h.receiver.behaviour.status;
    s.end();
    const second = spawnDaemon(env, ['run', '--until-ended']);
    expect(await exited(second), second.output()).toBe(0);
    const t = h.tally(['ks'])[0]!;
    expect(t).toMatchObject({ unique: 600, missing: 0, gapRecords: 0 });
    // No request was accepted before the kill: what came twice can only be what the store and the
    // service both had, which is now nothing (before: every record spilled behind a request).
    expect(t.duplicates).toBeLessThanOrEqual(2 * 50);
  }, 60_000);

  it('a full spool pauses reading (back-pressure) and resumes without loss', async () => {
    h = await harness({ bufferSize: 100_000 });
    const s = h.sim.createSession('bp');
    // ~1 KiB per record with a 1 MiB spool: the spool fills after roughly a thousand records.
    const bridge = await h.startBridge(
      {
        ...FAST,
        spool: { max_bytes: '1MiB', memory_max_bytes: '64KiB', commit_interval: '10ms', commit_max_records: 100 },
      },
      { BRIDGE_SESSIONS: 'bp' },
    );
    await h.receiver.stop();
    s.emit(4000);
    await until(() => bridge.spool.full, 'the spool to fill', 20_000);
    await sleep(300);
    const read = bridge.supervisor.status()[0]!.received;
    expect(read).toBeLessThan(4000);
    expect(bridge.spool.spooled.bytes).toBeLessThan(1024 * 1024 + 400 * 1024);
    await h.receiver.start();
    await until(() => h.receiver.records.length >= 4000, 'all 4000 records', 40_000);
    s.end();
    await bridge.supervisor.untilAllEnded();
    expect(h.tally(['bp'])[0]).toMatchObject({ unique: 4000, missing: 0, gapRecords: 0 });
  }, 90_000);

  it('counts records rejected in a partial-success answer and deletes them from the spool', async () => {
    h = await harness();
    const s = h.sim.createSession('ps');
    s.emit(100);
    h.receiver.behaviour.rejectRecords = (r) => Number(r.attributes['browser.telemetry.seq']) % 10 === 0;
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'ps' });
    await until(() => h.receiver.records.length >= 90, '90 accepted records');
    s.end();
    await bridge.supervisor.untilAllEnded();
    const metrics = await bridge.metrics.registry.metricText('bridge_events_rejected_total');
    expect(metrics).toMatch(/bridge_events_rejected_total\{reason="partial_success"\} 10/);
    expect(bridge.spool.spooled.records).toBe(0);
  });
});

describe('shutdown while the spool is full', () => {
  it('stops promptly and keeps everything read for the next start', async () => {
    h = await harness({ bufferSize: 100_000 });
    const s = h.sim.createSession('sf');
    await h.receiver.stop();
    const bridge = await h.startBridge(
      {
        ...FAST,
        spool: { max_bytes: '1MiB', memory_max_bytes: '64KiB', commit_interval: '10ms', commit_max_records: 100 },
      },
      { BRIDGE_SESSIONS: 'sf' },
    );
    s.emit(3000);
    // Shut down while the reader is really paused by back-pressure, not merely while the spool is full.
    // (A reader also pauses briefly while a commit is pending; only a spool over its byte limit keeps it paused.)
    await until(
      () => bridge.spool.pausedReaders > 0 && bridge.spool.spooled.bytes >= 1024 * 1024,
      'the reader to pause on the full spool',
      20_000,
    );
    expect(bridge.supervisor.status()[0]!.received).toBeLessThan(3000);
    const started = Date.now();
    expect(await bridge.shutdown(Date.now() + 200)).toBe(false);
    expect(Date.now() - started).toBeLessThan(5000);
    await h.receiver.start();
    const again = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'sf' });
    await until(() => h.receiver.records.length >= 3000, 'all 3000 records', 40_000);
    s.end();
    await again.supervisor.untilAllEnded();
    expect(h.tally(['sf'])[0]).toMatchObject({ unique: 3000, missing: 0, gapRecords: 0 });
  }, 60_000);
});
