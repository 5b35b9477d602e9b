// The pipeline with ingest worker threads, in process on real sockets: the sessions are read,
// mapped and encoded in workers, spooled and delivered on this thread. The same guarantees hold as
// without workers: every event exactly once, ends recorded, status and counters visible here, a
// reload reaching the workers, and a worker that dies costing nothing but a re-read.
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { parseMappingOptions } from '../../../src/config/mapping-section.js';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';
import { eventually } from '../server/bridge-harness.js';
import { summarize } from '../../../src/cli/status-reporter.js';

let h: Harness;
afterEach(async () => h?.close());

const counter = async (bridge: Awaited<ReturnType<Harness['startBridge']>>, name: string): Promise<number> => {
  const text = await bridge.metrics.registry.metricText(name);
  return Number(/ (\d+)$/m.exec(text)?.[1] ?? NaN);
};

describe('ingest workers', () => {
  it('deliver every event of sessions spread over two workers exactly once, and record their ends', async () => {
    h = await harness({ bufferSize: 10_000 });
    const ids = ['w1', 'w2', 'w3', 'w4', 'w5'];
    for (const id of ids) h.sim.createSession(id).emit(400);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: ids.join(','), BRIDGE_WORKERS: '2' });
    expect(bridge.ingest?.size).toBe(2);
    await until(() => h.receiver.records.length >= 2000, '2000 records');
    // Spread: each worker follows some of the sessions, none is followed by both. Which worker
    // follows what is the pool's own record; a session's status there is reported by that worker
    // alone (reports are looked up in the reporting worker's sessions), so `received` shows the
    // worker read it; and one open stream per session shows no second worker reads it too.
    const slots = (
      bridge.ingest as unknown as {
        slots: Array<{ sessions: Map<number, { id: string; status(): { received: number } }> }>;
      }
    ).slots;
    await until(
      () => slots.every((s) => [...s.sessions.values()].every((r) => r.status().received === 400)),
      'every worker to report its sessions read',
    );
    const perWorker = slots.map((s) => [...s.sessions.values()].map((r) => r.id).sort());
    for (const followed of perWorker) expect(followed.length, JSON.stringify(perWorker)).toBeGreaterThan(0);
    expect(perWorker.flat().sort(), JSON.stringify(perWorker)).toEqual(ids);
    expect(h.sim.stats.activeStreams).toBe(ids.length);
    for (const id of ids) h.sim.session(id)!.end();
    await bridge.supervisor.untilAllEnded();
    for (const t of h.tally(ids)) expect(t).toMatchObject({ unique: 400, missing: 0, duplicates: 0, gapRecords: 0 });
    // Their final status came from the workers; the delivered seq is known here.
    for (const s of bridge.supervisor.status())
      expect(s).toMatchObject({ state: 'ended', received: 400, lastReceivedSeq: 400, lastDeliveredSeq: 400 });
    expect(await counter(bridge, 'bridge_events_received_total')).toBe(2000);
    expect(await counter(bridge, 'bridge_events_delivered_total')).toBe(2000);
  }, 60_000);

  it('run with their young and old generations capped (worker-group.ts: the peak RSS they save)', async () => {
    h = await harness();
    h.sim.createSession('yg').emit(10);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'yg', BRIDGE_WORKERS: '1' });
    const slots = (bridge.ingest as unknown as { slots: Array<{ worker: Worker }> }).slots;
    // The limits V8 took, as the worker reports them (a value V8 would round shows here rounded).
    // Young: V8 grew it to 128 MiB of RSS otherwise. Old: under 2 GiB, V8 caps how far the old
    // space grows past what is alive before a full collection at 1.6 instead of 4.
    expect(slots.map((s) => s.worker.resourceLimits?.maxYoungGenerationSizeMb)).toEqual([24]);
    expect(slots.map((s) => s.worker.resourceLimits?.maxOldGenerationSizeMb)).toEqual([1024]);
  }, 30_000);

  it('pace their reads while many live streams keep them busy: several frames a read, every event once', async () => {
    h = await harness();
    const ids = Array.from({ length: 100 }, (_, i) => `pace-${i}`);
    // 100 sessions × 20 events/s: ~2,000 small reads a second for one worker, over the busy rate.
    for (const id of ids) h.sim.createSession(id).produce(20, 60);
    const paced = { ...FAST, upstream: { ...(FAST.upstream as object), read_pacing: '500ms' } };
    const bridge = await h.startBridge(paced, { BRIDGE_SESSIONS: ids.join(','), BRIDGE_WORKERS: '1' });
    await until(() => h.receiver.records.length >= ids.length * 60, 'every produced event', 60_000);
    for (const id of ids) h.sim.session(id)!.end();
    await bridge.supervisor.untilAllEnded();
    for (const t of h.tally(ids)) expect(t).toMatchObject({ unique: 60, missing: 0, duplicates: 0 });
    await eventually(
      async () => ((await counter(bridge, 'bridge_worker_stream_reads_total')) > 0 ? true : undefined),
      'the reads counter',
    );
    const reads = await counter(bridge, 'bridge_worker_stream_reads_total');
    const received = await counter(bridge, 'bridge_events_received_total');
    const text = await bridge.metrics.registry.metricText('bridge_worker_read_pacing_seconds_total');
    const waited = Number(/ ([\d.e+-]+)$/m.exec(text)?.[1] ?? NaN);
    const waits = await counter(bridge, 'bridge_worker_read_pacing_waits_total');
    // It waited on purpose, about the interval a time at most, and the streams' frames
    // gathered: fewer reads than events.
    expect(waited).toBeGreaterThan(0);
    expect(waits).toBeGreaterThan(0);
    expect(waited / waits).toBeLessThan(0.55);
    expect(received).toBe(ids.length * 60);
    expect(reads).toBeLessThan(received);
  }, 90_000);

  it('status and counters of a running session reach the main thread within a report interval', async () => {
    h = await harness();
    h.sim.createSession('st').emit(50);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'st', BRIDGE_WORKERS: '1' });
    await until(
      () => bridge.supervisor.session('st')?.state === 'streaming' && bridge.supervisor.session('st')?.received === 50,
      'the worker reports the session',
    );
    expect(bridge.supervisor.session('st')).toMatchObject({ lastReceivedSeq: 50, epoch: 0 });
    await until(() => bridge.supervisor.session('st')?.lastDeliveredSeq === 50, 'delivered');
    await eventually(
      async () => ((await counter(bridge, 'bridge_events_received_total')) === 50 ? true : undefined),
      'the counter',
    );
  }, 30_000);

  it('never count a record delivered before its event received: the facts go ahead of the batch that carries its records', async () => {
    h = await harness();
    const s = h.sim.createSession('order');
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'order', BRIDGE_WORKERS: '1' });
    await until(() => bridge.supervisor.session('order')?.state === 'streaming', 'streaming');
    let samples = 0;
    let ahead = '';
    const sample = async (): Promise<void> => {
      // Delivered first: a later read of the received counter can only be higher.
      const delivered = await counter(bridge, 'bridge_events_delivered_total');
      const received = await counter(bridge, 'bridge_events_received_total');
      samples++;
      if (delivered > received && ahead === '') ahead = `delivered ${delivered} > received ${received}`;
      // The session's status and the status line read the same way (the worker's statuses are up to a
      // second old: lastDeliveredSeq ran ahead of lastReceivedSeq, the line's delivered of its received).
      const st = bridge.supervisor.session('order')!;
      if (st.lastDeliveredSeq > st.lastReceivedSeq && ahead === '')
        ahead = `lastDeliveredSeq ${st.lastDeliveredSeq} > lastReceivedSeq ${st.lastReceivedSeq}`;
      const line = summarize(bridge);
      if (line.delivered > line.received && ahead === '')
        ahead = `status line: delivered ${line.delivered} > received ${line.received}`;
    };
    for (let round = 0; round < 20; round++) {
      s.emit(25);
      for (let i = 0; i < 5; i++) {
        await sample();
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    await eventually(
      async () => ((await counter(bridge, 'bridge_events_delivered_total')) >= 500 ? true : undefined),
      'all delivered',
    );
    expect(samples).toBeGreaterThan(50);
    expect(ahead).toBe('');
  }, 30_000);

  it('DELETE stops the session in its worker: what it read is delivered, nothing after', async () => {
    h = await harness();
    const s = h.sim.createSession('del');
    s.emit(30);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'del', BRIDGE_WORKERS: '1' });
    await until(() => h.receiver.records.length >= 30, '30 records');
    expect(await bridge.supervisor.remove('del')).toBe(true);
    const st = bridge.supervisor.session('del');
    expect(st).toMatchObject({ received: 30, state: 'stopped' });
    // The worker let go of the stream (the main thread would not append its records anyway).
    await until(() => h.sim.stats.activeStreams === 0, 'the stream closed');
    s.emit(10);
    await new Promise((r) => setTimeout(r, 300));
    expect(h.receiver.records).toHaveLength(30);
  }, 30_000);

  it('a configuration reload reaches the workers: new filters apply from the next event on', async () => {
    h = await harness();
    // Console and page are opt-in, as on the real service.
    const s = h.sim.createSession('rl', { categories: ['console', 'page'] });
    s.emit(20, { types: ['console_log'] });
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'rl', BRIDGE_WORKERS: '1' });
    await until(() => h.receiver.records.length >= 20, 'the first 20');
    bridge.mapper.swap(parseMappingOptions({ filters: { exclude_types: ['console_log'] } }, 'mapping'));
    // The swap message is ordered before the events the worker reads after it.
    await new Promise((r) => setTimeout(r, 100));
    s.emit(20, { types: ['console_log'] });
    s.emit(5, { types: ['page_navigation'] });
    await until(() => h.receiver.records.length >= 25, 'the navigations');
    await until(() => bridge.supervisor.session('rl')?.filtered === 20, 'the filtered count');
    expect(h.receiver.records.filter((r) => r.attributes['browser.event.type'] === 'console_log')).toHaveLength(20);
  }, 30_000);

  it('a worker that dies is replaced and its sessions are read again from their checkpoints: nothing lost', async () => {
    h = await harness({ bufferSize: 10_000 });
    const ids = ['k1', 'k2'];
    for (const id of ids) h.sim.createSession(id).emit(300);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: ids.join(','), BRIDGE_WORKERS: '1' });
    await until(() => h.receiver.records.length >= 100, 'some records');
    const slots = (bridge.ingest as unknown as { slots: Array<{ worker: Worker }> }).slots;
    await slots[0]!.worker.terminate();
    for (const id of ids) h.sim.session(id)!.emit(200);
    await until(
      () => new Set(h.receiver.records.map((r) => r.attributes['log.record.uid'])).size >= 1000,
      'all 1000 after the replacement',
      30_000,
    );
    for (const id of ids) h.sim.session(id)!.end();
    await bridge.supervisor.untilAllEnded();
    for (const t of h.tally(ids)) expect(t).toMatchObject({ unique: 500, missing: 0, gapRecords: 0 });
    expect(bridge.ingest?.size).toBe(1);
  }, 60_000);
});
