// `workers: auto` on real sockets: a single quiet session never starts a worker thread (the sidecar
// pays for none), and sessions read on the main thread move to the workers once the workers start,
// without losing or repeating an event or a count, and without a run taking the move for its end.
import { availableParallelism } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { SESSIONS_ON_MAIN } from '../../../src/daemon/worker-scaling.js';
import { summarize } from '../../../src/cli/status-reporter.js';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';

let h: Harness;
afterEach(async () => h?.close());

// `auto` means no worker at all on one core: nothing to scale.
describe.skipIf(availableParallelism() < 2)('workers: auto', () => {
  it('follows a single quiet session on the main thread: no worker thread is started', async () => {
    h = await harness();
    h.sim.createSession('solo').emit(40);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'solo', BRIDGE_WORKERS: 'auto' });
    await until(() => h.receiver.records.length >= 40, '40 records');
    await new Promise((r) => setTimeout(r, 1200));
    expect(bridge.ingest?.ready).toBe(false);
    expect(bridge.ingest?.size).toBe(0);
  }, 30_000);

  it("starts the workers when the sessions pass the mark, and moves the main thread's sessions there with every event once", async () => {
    h = await harness({ bufferSize: 10_000 });
    const first = ['m1', 'm2'];
    for (const id of first) h.sim.createSession(id).emit(100);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: first.join(','), BRIDGE_WORKERS: 'auto' });
    await until(() => h.receiver.records.length >= 200, 'the first 200 records, read on the main thread');
    expect(bridge.ingest?.ready).toBe(false);
    const more = Array.from({ length: SESSIONS_ON_MAIN - 1 }, (_, i) => `n${i}`);
    for (const id of more) h.sim.createSession(id).emit(50);
    for (const id of more) await bridge.supervisor.add({ id, attributes: {} });
    await until(() => bridge.ingest?.ready === true, 'the workers started');
    await until(
      () => bridge.ingest?.sessions === first.length + more.length,
      'every session, the first two included, on the workers',
    );
    // The moved sessions go on producing on the worker side.
    for (const id of first) h.sim.session(id)!.emit(100);
    const all = [...first, ...more];
    await until(() => h.receiver.records.length >= 200 + 200 + more.length * 50, 'every record');
    for (const id of all) h.sim.session(id)!.end();
    await bridge.supervisor.untilAllEnded();
    for (const t of h.tally(first)) expect(t).toMatchObject({ unique: 200, missing: 0, duplicates: 0, gapRecords: 0 });
    for (const t of h.tally(more)) expect(t).toMatchObject({ unique: 50, missing: 0, duplicates: 0, gapRecords: 0 });

    // Every view counts the same: a session's counts survive its move to a worker, the status line
    // adds them up to what the metrics count, and the gauge lists the ended sessions /v1/sessions lists.
    const statuses = new Map(bridge.supervisor.status().map((s) => [s.id, s]));
    for (const id of first)
      expect(statuses.get(id)).toMatchObject({ state: 'ended', received: 200, lastReceivedSeq: 200 });
    for (const id of more)
      expect(statuses.get(id)).toMatchObject({ state: 'ended', received: 50, lastReceivedSeq: 50 });
    const received = await bridge.metrics.registry.metricText('bridge_events_received_total');
    expect(Number(/ (\d+)$/m.exec(received)?.[1])).toBe(200 * first.length + 50 * more.length);
    expect(summarize(bridge)).toMatchObject({
      received: 200 * first.length + 50 * more.length,
      sessions: { ended: all.length },
    });
    const gauge = await bridge.metrics.registry.metricText('bridge_sessions');
    expect(gauge).toMatch(new RegExp(`^bridge_sessions\\{state="ended"\\} ${all.length}$`, 'm'));
  }, 60_000);

  it('a move that falls in a collector outage waits for the backlog to drain, and then reads no event twice', async () => {
    h = await harness({ bufferSize: 10_000 });
    const first = ['o1', 'o2'];
    for (const id of first) h.sim.createSession(id).emit(100);
    // Records wait in memory 200 ms at most, then spill: the outage leaves a backlog on disk.
    const bridge = await h.startBridge(
      {
        ...FAST,
        spool: { commit_interval: '10ms', memory_max_age: '200ms' },
        // What is out in requests stays in memory: few, so the most of the outage spills.
        exporter: { ...(FAST.exporter as object), batch_max_records: 20, concurrency: 1 },
      },
      { BRIDGE_SESSIONS: first.join(','), BRIDGE_WORKERS: 'auto' },
    );
    await until(() => h.receiver.records.length >= 200, 'the first 200 records');
    await h.receiver.stop();
    for (const id of first) h.sim.session(id)!.emit(100);
    await until(() => bridge.spool.onDisk.records >= 100, 'the outage backlog on disk');
    const more = Array.from({ length: SESSIONS_ON_MAIN - 1 }, (_, i) => `p${i}`);
    for (const id of more) h.sim.createSession(id).emit(20);
    for (const id of more) await bridge.supervisor.add({ id, attributes: {} });
    await until(() => bridge.ingest?.ready === true, 'the workers started');
    // Past the move's settle time: the main thread's sessions have not been moved into the outage.
    await new Promise((r) => setTimeout(r, 6000));
    await h.receiver.start();
    await until(
      () => bridge.ingest?.sessions === first.length + more.length,
      'every session on the workers once the backlog drained',
      30_000,
    );
    const all = [...first, ...more];
    for (const id of all) h.sim.session(id)!.end();
    await bridge.supervisor.untilAllEnded();
    await until(() => h.receiver.records.length >= 400 + more.length * 20, 'every record');
    for (const t of h.tally(first)) expect(t).toMatchObject({ unique: 200, missing: 0, duplicates: 0 });
    for (const t of h.tally(more)) expect(t).toMatchObject({ unique: 20, missing: 0, duplicates: 0 });
  }, 90_000);

  it('a run waiting for its sessions to end is not over while they move to the workers, and a moved open page still ends with its session', async () => {
    h = await harness({ bufferSize: 10_000 });
    const page = h.sim.createSession('page');
    page.emit(300);
    const bridge = await h.startBridge(FAST, {
      BRIDGE_SESSIONS: 'page',
      BRIDGE_WORKERS: 'auto',
      BRIDGE_TRACES: 'true',
    });
    await until(() => h.receiver.records.length >= 300, 'the 300 records, read on the main thread');
    // Everything read is delivered: the move's own commit leaves the spool idle, as at the end of a run.
    await until(() => bridge.spool.idle, 'the spool idle');
    // What `run --until-ended` waits for.
    let over = false;
    const ended = bridge.supervisor.untilAllEnded().then(() => (over = true));
    const more = Array.from({ length: SESSIONS_ON_MAIN }, (_, i) => `q${i}`);
    for (const id of more) h.sim.createSession(id);
    for (const id of more) await bridge.supervisor.add({ id, attributes: {} });
    await until(() => bridge.ingest?.sessions === 1 + more.length, 'every session on the workers');
    // Between its stop on the main thread and its follow on a worker the session was counted nowhere,
    // and the run was over there: the bridge stopped with its navigation still open, never sent.
    expect(over).toBe(false);
    for (const id of ['page', ...more]) h.sim.session(id)!.end();
    await ended;
    await bridge.shutdown();
    const spans = h.receiver.spans.filter((s) => s.attributes['browser.session.id'] === 'page');
    expect(spans.filter((s) => s.attributes['browser.span.end_reason'] === 'session_end')).toHaveLength(1);
  }, 30_000);
});
