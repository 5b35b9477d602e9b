// A restart of the service's in-VM API process (docs/upstream-differences.md "The stream"): the
// connection drops, seq starts again at 1 and every event carries a new telemetry_session_id. Real
// services differ in what a reconnect with the old Last-Event-ID then gets: a replay from 1, or
// nothing until seq passes the old value. Either way the new epoch is delivered, with log.record.uid
// unique across epochs.
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';

let h: Harness;
afterEach(async () => h?.close());

const NO_ARCHIVE = { ...FAST, upstream: { ...(FAST.upstream as object), archive: 'off' } };

const uids = (h: Harness, id: string, events = true): string[] =>
  h.receiver.records
    .filter((r) => r.attributes['browser.session.id'] === id && (r.eventName === 'browser.telemetry_gap') !== events)
    .map((r) => String(r.attributes['log.record.uid']));

const range = (prefix: string, from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}`);

describe('service restart across a dropped connection', () => {
  it('a replay from 1 after the reconnect is a new epoch, not 10 duplicates', async () => {
    h = await harness();
    h.sim.faults.staleResume = 'replay';
    const s = h.sim.createSession('rp');
    s.emit(30);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'rp' });
    await until(() => h.receiver.records.length >= 30, '30 records');
    s.restartService();
    s.emit(10);
    await until(() => uids(h, 'rp').length >= 40, 'the new epoch');
    expect(uids(h, 'rp')).toEqual([...range('rp:', 1, 30), ...range('rp:e1:', 1, 10)]);
    const st = bridge.supervisor.status()[0]!;
    expect(st).toMatchObject({ epoch: 1, duplicates: 0, gaps: 0 });
    expect(await bridge.metrics.registry.metricText('bridge_service_epochs_total')).toMatch(/ 1$/m);
  });

  // The seqs of a new epoch start again at 1: a delivered seq of the old epoch is no position in
  // it (lag = lastReceivedSeq − lastDeliveredSeq read 0 until the new epoch passed the old seq).
  it.each([
    ['in the main thread', '0'],
    ['in an ingest worker', '1'],
  ])("a new epoch's positions start again %s: the delivered seq is the new epoch's", async (_, workers) => {
    h = await harness();
    h.sim.faults.staleResume = 'replay';
    const s = h.sim.createSession('pos');
    s.emit(30);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'pos', BRIDGE_WORKERS: workers });
    await until(() => bridge.supervisor.session('pos')?.lastDeliveredSeq === 30, 'the first epoch delivered');
    s.restartService();
    s.emit(5);
    await until(() => uids(h, 'pos').length >= 35, 'the new epoch');
    await until(() => bridge.supervisor.session('pos')?.epoch === 1, 'the new epoch reported');
    const st = bridge.supervisor.session('pos')!;
    expect(st.lastDeliveredSeq).toBeLessThanOrEqual(st.lastReceivedSeq);
    await until(() => bridge.supervisor.session('pos')?.lastDeliveredSeq === 5, 'the new epoch delivered');
    expect(bridge.supervisor.session('pos')).toMatchObject({ epoch: 1, lastReceivedSeq: 5, lastDeliveredSeq: 5 });
  });

  it('a service that answers Last-Event-ID N with seqs ≤ N and the same telemetry_session_id: a new epoch, delivered, no reconnect storm', async () => {
    h = await harness({ bufferSize: 10_000 });
    h.sim.faults.staleResume = 'replay';
    const s = h.sim.createSession('lp');
    s.emit(300);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'lp' });
    await until(() => uids(h, 'lp').length >= 300, '300 records');
    // The service loses the position without saying so: numbering from 1, the id unchanged.
    s.restartService({ sameTelemetrySessionId: true });
    s.emit(100);
    await until(() => uids(h, 'lp').length >= 400, 'the 100 new events', 10_000);
    s.emit(50);
    await until(() => uids(h, 'lp').length >= 450, '50 more on the same connection', 10_000);
    expect(uids(h, 'lp').sort()).toEqual([...range('lp:', 1, 300), ...range('lp:e1:', 1, 150)].sort());
    const st = bridge.supervisor.status()[0]!;
    expect(st).toMatchObject({ epoch: 1, duplicates: 0 });
    const reconnects = Object.values(st.reconnects).reduce((a, b) => a + (b ?? 0), 0);
    expect(reconnects).toBeLessThanOrEqual(2);
    expect(await bridge.metrics.registry.metricText('bridge_service_epochs_total')).toMatch(/ 1$/m);
  });

  it('a service that stays silent until seq passes the old Last-Event-ID: the new epoch comes from the archive when the session ends', async () => {
    h = await harness();
    const s = h.sim.createSession('sl');
    s.emit(30);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'sl' });
    await until(() => h.receiver.records.length >= 30, '30 records');
    s.restartService();
    s.emit(10); // seq 1..10 of the new epoch: never above 30, so the stream shows none of them
    await until(
      () =>
        bridge.supervisor.status()[0]!.state === 'streaming' &&
        (bridge.supervisor.status()[0]!.reconnects.network ?? 0) >= 1,
      'reconnected',
    );
    s.end();
    await bridge.supervisor.untilAllEnded();
    expect(uids(h, 'sl')).toEqual([...range('sl:', 1, 30), ...range('sl:e1:', 1, 10)]);
    expect(uids(h, 'sl', false)).toEqual([]);
  });

  it('without an archive: the new epoch is recognised by its telemetry_session_id once seq passes, and what it cannot see is a service_restart gap', async () => {
    h = await harness();
    const s = h.sim.createSession('na');
    s.emit(30);
    const bridge = await h.startBridge(NO_ARCHIVE, { BRIDGE_SESSIONS: 'na' });
    await until(() => h.receiver.records.length >= 30, '30 records');
    s.restartService();
    s.emit(40); // the stream resumes after 30: 31..40 of the new epoch
    await until(() => uids(h, 'na').length >= 40, 'the visible part of the new epoch');
    expect(uids(h, 'na')).toEqual([...range('na:', 1, 30), ...range('na:e1:', 31, 40)]);
    const gaps = h.receiver.records
      .filter((r) => r.eventName === 'browser.telemetry_gap')
      .map((r) => [
        r.attributes['log.record.uid'],
        r.attributes['browser.telemetry.gap.reason'],
        r.attributes['browser.telemetry.gap.count'],
      ]);
    // The old epoch's tail went down with the connection (unknown); 1..30 of the new one were never streamed.
    expect(gaps).toEqual([
      ['na:gap:31-', 'tail_unknown', undefined],
      ['na:e1:gap:1-30', 'service_restart', 30],
    ]);
    expect(bridge.supervisor.status()[0]).toMatchObject({ epoch: 1, duplicates: 0 });
  });

  it('a restart of the service while the bridge was down too: its replay from 1 is a new epoch, not duplicates', async () => {
    h = await harness();
    h.sim.faults.staleResume = 'replay';
    const s = h.sim.createSession('bd');
    s.emit(30);
    let bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'bd' });
    await until(() => h.receiver.records.length >= 30, '30 records');
    await bridge.shutdown(Date.now() + 5000);
    s.restartService();
    s.emit(10);
    // The bridge no longer knows the epoch's telemetry_session_id: it resumes after 30 and gets 1..10.
    bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'bd' });
    await until(() => uids(h, 'bd').length >= 40, 'the new epoch');
    expect(uids(h, 'bd')).toEqual([...range('bd:', 1, 30), ...range('bd:e1:', 1, 10)]);
    expect(bridge.supervisor.status()[0]).toMatchObject({ epoch: 1, duplicates: 0 });
  });

  it('a restart of the service while the bridge was down, then silence until seq passes: the stored telemetry_session_id tells the new epoch', async () => {
    h = await harness();
    const s = h.sim.createSession('sd');
    s.emit(30);
    let bridge = await h.startBridge(NO_ARCHIVE, { BRIDGE_SESSIONS: 'sd' });
    await until(() => h.receiver.records.length >= 30, '30 records');
    await bridge.shutdown(Date.now() + 5000);
    s.restartService();
    s.emit(40); // 1..40 of the new epoch; the stream resumes after 30 and shows only 31..40
    bridge = await h.startBridge(NO_ARCHIVE, { BRIDGE_SESSIONS: 'sd' });
    await until(() => uids(h, 'sd').length >= 40, 'the visible part of the new epoch');
    // Without the stored source id these would be taken for 31..40 of the old epoch.
    expect(uids(h, 'sd')).toEqual([...range('sd:', 1, 30), ...range('sd:e1:', 31, 40)]);
    // The old epoch may have gone on after 30 while no bridge read it: its tail is unknown.
    expect(uids(h, 'sd', false)).toEqual(['sd:gap:31-', 'sd:e1:gap:1-30']);
    expect(bridge.supervisor.status()[0]).toMatchObject({ epoch: 1 });
  });
});
