// Loss is never silent (DESIGN.md "Delivery semantics" 3): events evicted from the service's
// buffer while the bridge was down, and frames that do not decode, become exact gap records.
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';

let h: Harness;
afterEach(async () => h?.close());

const gaps = (h: Harness, id: string) =>
  h.receiver.records
    .filter((r) => r.eventName === 'browser.telemetry_gap' && r.attributes['browser.session.id'] === id)
    .map((r) => ({
      first: r.attributes['browser.telemetry.gap.first_seq'],
      last: r.attributes['browser.telemetry.gap.last_seq'],
      count: r.attributes['browser.telemetry.gap.count'],
      severity: r.severityText,
      severityNumber: r.severityNumber,
    }));

describe('gap records', () => {
  it('eviction while the bridge is down yields one exact gap record', async () => {
    h = await harness({ bufferSize: 50 });
    const s = h.sim.createSession('ev');
    s.emit(20);
    let bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'ev' });
    await until(() => h.receiver.records.length >= 20, '20 records');
    await bridge.shutdown(5000);
    s.emit(200); // seq 21..220; the service keeps only 171..220
    bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'ev' });
    await until(() => h.receiver.records.length >= 20 + 1 + 50, 'the gap record and the retained events');
    s.end();
    await bridge.supervisor.untilAllEnded();
    expect(gaps(h, 'ev')).toEqual([{ first: 21, last: 170, count: 150, severity: 'WARN', severityNumber: 13 }]);
    expect(h.tally(['ev'])[0]).toMatchObject({ unique: 70, missing: 0, gapEvents: 150, duplicates: 0 });
    expect(bridge.supervisor.status()[0]).toMatchObject({ gaps: 1, missingEvents: 150 });
  });

  it('a first connection to a session whose oldest events were evicted reports them (start: oldest)', async () => {
    h = await harness({ bufferSize: 30 });
    h.sim.createSession('old').emit(100);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'old' });
    await until(() => h.receiver.records.length >= 31, 'gap + 30 retained');
    h.sim.session('old')!.end();
    await bridge.supervisor.untilAllEnded();
    expect(gaps(h, 'old')).toEqual([{ first: 1, last: 70, count: 70, severity: 'WARN', severityNumber: 13 }]);
  });

  it('start: latest skips history without reporting it as lost', async () => {
    h = await harness();
    const s = h.sim.createSession('lat');
    s.emit(100);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'lat', BRIDGE_START: 'latest' });
    await until(() => bridge.supervisor.status()[0]?.state === 'streaming', 'streaming');
    s.emit(10);
    await until(() => h.receiver.records.length >= 10, '10 new records');
    s.end();
    await bridge.supervisor.untilAllEnded();
    expect(gaps(h, 'lat')).toEqual([]);
    expect(h.receiver.records.map((r) => r.attributes['browser.telemetry.seq'])).toEqual([101, 102, 103, 104, 105, 106, 107, 108, 109, 110]);
  });

  it('malformed frames are counted, become gap records, and everything else arrives', async () => {
    h = await harness();
    const s = h.sim.createSession('mf');
    s.emit(50);
    const bad1 = s.injectMalformed('json');
    s.emit(50);
    const bad2 = s.injectMalformed('envelope');
    const bad3 = s.injectMalformed('json');
    s.emit(50);
    const tail = s.injectMalformed('json'); // the very last frame: reported when the session ends
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'mf' });
    await until(() => h.receiver.records.length >= 152, '150 events + 2 gap records');
    s.end();
    await bridge.supervisor.untilAllEnded();
    expect(gaps(h, 'mf').map((g) => [g.first, g.last, g.count])).toEqual([[bad1, bad1, 1], [bad2, bad3, 2], [tail, tail, 1]]);
    expect(h.tally(['mf'])[0]).toMatchObject({ unique: 150, missing: 0, gapEvents: 4 });
    expect(bridge.supervisor.status()[0]!.malformedFrames).toBe(4);
    expect(await bridge.metrics.registry.getSingleMetricAsString('bridge_malformed_frames_total')).toMatch(/ 4$/m);
  });

  it('a service restart (seq going backwards on one connection) starts a new epoch instead of dropping events', async () => {
    h = await harness();
    const s = h.sim.createSession('ep');
    s.emit(30);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'ep' });
    await until(() => h.receiver.records.length >= 30, '30 records');
    s.restartService();
    s.emit(10);
    await until(() => h.receiver.records.length >= 40, '40 records');
    const uids = h.receiver.records.slice(30).map((r) => r.attributes['log.record.uid']);
    expect(uids).toEqual(Array.from({ length: 10 }, (_, i) => `ep:e1:${i + 1}`));
    expect(bridge.supervisor.status()[0]!.epoch).toBe(1);
  });
});
