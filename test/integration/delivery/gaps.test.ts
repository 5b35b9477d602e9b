// Loss is repaired where possible and never silent (docs/design.md "Delivery semantics"): events the
// stream did not deliver (evicted from the service's buffer, frames that did not decode, a service
// restart) are read from the service's archive; what it cannot supply (no archive, `archive: off`)
// becomes an exact gap record that says why.
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, exited, harness, spawnDaemon, until, type Harness } from '../../helpers/harness.js';

let h: Harness;
afterEach(async () => h?.close());

const NO_ARCHIVE = { ...FAST, upstream: { ...(FAST.upstream as object), archive: 'off' } };

const gaps = (h: Harness, id: string) =>
  h.receiver.records
    .filter((r) => r.eventName === 'browser.telemetry_gap' && r.attributes['browser.session.id'] === id)
    .map((r) => ({
      first: r.attributes['browser.telemetry.gap.first_seq'],
      last: r.attributes['browser.telemetry.gap.last_seq'],
      count: r.attributes['browser.telemetry.gap.count'],
      reason: r.attributes['browser.telemetry.gap.reason'],
      severity: r.severityText,
    }));

const seqs = (h: Harness, id: string): number[] =>
  h.receiver.records
    .filter((r) => r.eventName !== 'browser.telemetry_gap' && r.attributes['browser.session.id'] === id)
    .map((r) => Number(r.attributes['browser.telemetry.seq']));

describe('gaps without an archive: exact records that say why', () => {
  it('eviction while the bridge is down yields one exact gap record (evicted)', async () => {
    h = await harness({ bufferSize: 50 });
    const s = h.sim.createSession('ev');
    s.emit(20);
    let bridge = await h.startBridge(NO_ARCHIVE, { BRIDGE_SESSIONS: 'ev' });
    await until(() => h.receiver.records.length >= 20, '20 records');
    await bridge.shutdown(Date.now() + 5000);
    s.emit(200); // seq 21..220; the service keeps only 171..220
    bridge = await h.startBridge(NO_ARCHIVE, { BRIDGE_SESSIONS: 'ev' });
    await until(() => h.receiver.records.length >= 20 + 1 + 50, 'the gap record and the retained events');
    s.end();
    await bridge.supervisor.untilAllEnded();
    expect(gaps(h, 'ev')).toEqual([
      { first: 21, last: 170, count: 150, reason: 'evicted', severity: 'WARN' },
      // The session ended with a reset, as the real one does: without an archive its tail is unknown.
      { first: 221, last: undefined, count: undefined, reason: 'tail_unknown', severity: 'WARN' },
    ]);
    expect(h.tally(['ev'])[0]).toMatchObject({
      unique: 70,
      missing: 0,
      gapEvents: 150,
      tailsUnknown: 1,
      duplicates: 0,
    });
    expect(bridge.supervisor.status()[0]).toMatchObject({ gaps: 2, missingEvents: 150 });
    expect(await bridge.metrics.registry.metricText('bridge_tails_unknown_total')).toMatch(/ 1$/m);
  });

  it('history evicted before the bridge first followed the session is INFO, not a loss (start: oldest)', async () => {
    h = await harness({ bufferSize: 30 });
    h.sim.createSession('old').emit(100);
    const bridge = await h.startBridge(NO_ARCHIVE, { BRIDGE_SESSIONS: 'old' });
    await until(() => h.receiver.records.length >= 31, 'gap + 30 retained');
    h.sim.session('old')!.end();
    await bridge.supervisor.untilAllEnded();
    expect(gaps(h, 'old')[0]).toEqual({
      first: 1,
      last: 70,
      count: 70,
      reason: 'evicted_before_follow',
      severity: 'INFO',
    });
  });

  it('malformed frames are counted and become gap records with reason malformed', async () => {
    h = await harness();
    const s = h.sim.createSession('mf');
    s.emit(50);
    const bad1 = s.injectMalformed('json');
    s.emit(50);
    const bad2 = s.injectMalformed('envelope');
    const bad3 = s.injectMalformed('json');
    s.emit(50);
    const tail = s.injectMalformed('json'); // the very last frame: reported when the session ends
    const bridge = await h.startBridge(NO_ARCHIVE, { BRIDGE_SESSIONS: 'mf' });
    await until(() => h.receiver.records.length >= 152, '150 events + 2 gap records');
    s.end();
    await bridge.supervisor.untilAllEnded();
    const g = gaps(h, 'mf');
    expect(g.filter((x) => x.reason === 'malformed').map((x) => [x.first, x.last, x.count])).toEqual([
      [bad1, bad1, 1],
      [bad2, bad3, 2],
      [tail, tail, 1],
    ]);
    expect(h.tally(['mf'])[0]).toMatchObject({ unique: 150, missing: 0, gapEvents: 4 });
    expect(bridge.supervisor.status()[0]!.malformedFrames).toBe(4);
    expect(await bridge.metrics.registry.metricText('bridge_malformed_frames_total')).toMatch(/ 4$/m);
  });
});

describe('gaps repaired from the archive', () => {
  it('events evicted while the bridge was down are read from the archive: no gap, nothing lost', async () => {
    h = await harness({ bufferSize: 50 });
    const s = h.sim.createSession('ev');
    s.emit(20);
    let bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'ev' });
    await until(() => h.receiver.records.length >= 20, '20 records');
    await bridge.shutdown(Date.now() + 5000);
    s.emit(200);
    bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'ev' });
    await until(() => h.receiver.records.length >= 220, 'all 220 events');
    s.end();
    await bridge.supervisor.untilAllEnded();
    expect(gaps(h, 'ev')).toEqual([]);
    expect(h.tally(['ev'])[0]).toMatchObject({ unique: 220, missing: 0, gapRecords: 0, duplicates: 0 });
    expect(seqs(h, 'ev')).toEqual(Array.from({ length: 220 }, (_, i) => i + 1));
    expect(bridge.supervisor.status()[0]).toMatchObject({ repaired: 150, gaps: 0 });
  });

  it("an archive that fails past the reader's three tries and then answers: the events arrive, no gap record", async () => {
    h = await harness({ bufferSize: 50 });
    const s = h.sim.createSession('ow');
    s.emit(20);
    let bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'ow' });
    await until(() => h.receiver.records.length >= 20, '20 records');
    await bridge.shutdown(Date.now() + 5000);
    s.emit(200); // seq 21..220; the service's buffer keeps only 171..220
    // Five failed reads: the three tries of the first read, then two more; the gap is owed meanwhile.
    h.sim.faults.archiveFailNext = Array.from({ length: 5 }, () => ({ status: 503 }));
    bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'ow' });
    await until(() => h.receiver.records.length >= 220, 'all 220 events');
    expect(h.sim.faults.archiveFailNext).toEqual([]);
    s.end();
    await bridge.supervisor.untilAllEnded();
    expect(gaps(h, 'ow')).toEqual([]);
    expect(seqs(h, 'ow')).toEqual(Array.from({ length: 220 }, (_, i) => i + 1));
    expect(bridge.supervisor.status()[0]).toMatchObject({ repaired: 150, gaps: 0 });
  });

  it('kill -9 while a gap is owed: the next start repairs it (the checkpoint stayed before the gap)', async () => {
    h = await harness({ bufferSize: 50 });
    const s = h.sim.createSession('ok9');
    s.emit(20);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'ok9' });
    await until(() => h.receiver.records.length >= 20, '20 records');
    await bridge.shutdown(Date.now() + 5000);
    s.emit(200);
    h.sim.faults.archiveFailNext = Array.from({ length: 1000 }, () => ({ status: 503 }));
    const env = h.env({ BRIDGE_SESSIONS: 'ok9' });
    const first = spawnDaemon(env);
    // A fourth failed read: the reader's three tries are spent and the gap is owed.
    await until(() => h.sim.faults.archiveFailNext!.length <= 996, 'the gap to be owed', 30_000);
    first.kill('SIGKILL');
    await exited(first);
    h.sim.faults.archiveFailNext = [];
    s.end();
    const second = spawnDaemon(env, ['run', '--until-ended']);
    expect(await exited(second), second.output()).toBe(0);
    expect(gaps(h, 'ok9')).toEqual([]);
    expect(h.tally(['ok9'])[0]).toMatchObject({ unique: 220, missing: 0, gapRecords: 0 });
  }, 60_000);

  for (const workers of [0, 1])
    it(`a stop while an ended session's tail is owed is no end: the next start reads the tail, then ends it (${workers ? 'in a worker' : 'main thread'})`, async () => {
      h = await harness();
      const s = h.sim.createSession('tail');
      s.emit(300);
      const env = { BRIDGE_SESSIONS: 'tail', BRIDGE_WORKERS: String(workers), BRIDGE_TRACES: 'true' };
      let bridge = await h.startBridge(FAST, env);
      await until(() => h.receiver.records.length >= 300, '300 records');
      await bridge.shutdown(Date.now() + 5000);
      // It ends while the bridge is down: its tail (301..350) is read from the archive, which fails.
      s.emit(50);
      s.end();
      h.sim.faults.archiveFailNext = Array.from({ length: 1000 }, () => ({ status: 503 }));
      bridge = await h.startBridge(FAST, env);
      await until(() => h.sim.faults.archiveFailNext!.length <= 996, 'the tail owed', 30_000);
      await bridge.shutdown(Date.now() + 5000);
      // Recorded as ended there, the session was never read again: its tail lost, with no gap record
      // to say so, and its page closed without its last events.
      const ended = h.receiver.spans.filter((sp) => sp.attributes['browser.span.end_reason'] === 'session_end');
      expect(ended).toEqual([]);
      h.sim.faults.archiveFailNext = [];
      bridge = await h.startBridge(FAST, env);
      await bridge.supervisor.untilAllEnded();
      await bridge.shutdown(Date.now() + 5000);
      expect(h.tally(['tail'])[0]).toMatchObject({ unique: 350, missing: 0, gapRecords: 0 });
      expect(h.receiver.spans.some((sp) => sp.attributes['browser.span.end_reason'] === 'session_end')).toBe(true);
    });

  it('history evicted before the first connection is read from the archive too', async () => {
    h = await harness({ bufferSize: 30 });
    h.sim.createSession('old').emit(100);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'old' });
    await until(() => h.receiver.records.length >= 100, '100 events');
    h.sim.session('old')!.end();
    await bridge.supervisor.untilAllEnded();
    expect(gaps(h, 'old')).toEqual([]);
    expect(seqs(h, 'old')).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('frames that did not decode are replaced by the archived events', async () => {
    h = await harness();
    const s = h.sim.createSession('mf');
    s.emit(10);
    s.injectMalformed('json');
    s.emit(10);
    s.injectMalformed('envelope');
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'mf' });
    await until(() => h.receiver.records.length >= 21, 'the first 21');
    s.end();
    await bridge.supervisor.untilAllEnded();
    expect(gaps(h, 'mf')).toEqual([]);
    expect(seqs(h, 'mf')).toEqual(Array.from({ length: 22 }, (_, i) => i + 1));
    expect(bridge.supervisor.status()[0]).toMatchObject({ malformedFrames: 2, repaired: 2 });
  });

  it('a session that ended while the bridge was down: its tail is read from the archive, or said to be unknown', async () => {
    for (const [id, config] of [
      ['down', FAST],
      ['down-na', NO_ARCHIVE],
    ] as const) {
      h = await harness();
      const s = h.sim.createSession(id);
      s.emit(10);
      let bridge = await h.startBridge(config, { BRIDGE_SESSIONS: id });
      await until(() => h.receiver.records.length >= 10, '10 records');
      await bridge.shutdown(Date.now() + 5000);
      s.emit(10);
      s.end();
      bridge = await h.startBridge(config, { BRIDGE_SESSIONS: id });
      await bridge.supervisor.untilAllEnded();
      if (config === FAST) {
        expect(seqs(h, id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
        expect(gaps(h, id)).toEqual([]);
      } else {
        expect(seqs(h, id)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
        expect(gaps(h, id)).toEqual([
          { first: 11, last: undefined, count: undefined, reason: 'tail_unknown', severity: 'WARN' },
        ]);
      }
      await h.close();
    }
  });

  it('the tail of a session that ended while the bridge was reconnecting is read from the archive', async () => {
    h = await harness();
    const s = h.sim.createSession('tl');
    s.emit(10);
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'tl' });
    await until(() => h.receiver.records.length >= 10, '10 records');
    h.sim.faults.failNext = Array(5).fill({ status: 503 });
    h.sim.faults.cutAfterFrames = 0;
    s.emit(5);
    await until(() => bridge.supervisor.status()[0]!.lastReceivedSeq >= 15, 'the live 5');
    // The connection dies with the next frames; the session ends before the bridge is back.
    h.sim.faults.cutAfterFrames = 1;
    s.emit(5);
    s.end();
    await bridge.supervisor.untilAllEnded();
    expect(gaps(h, 'tl')).toEqual([]);
    expect(seqs(h, 'tl')).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  // A session that ended before the bridge ever followed it is all archive: its status (GET
  // /v1/sessions, `top`) and its "session ended" line must count what was read, not the 0 that the
  // stream, which never delivered an event, holds.
  it('a session read whole from the archive reports its last seq as received, as delivered', async () => {
    h = await harness();
    const s = h.sim.createSession('gone');
    s.emit(12);
    s.end();
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'gone' });
    await bridge.supervisor.untilAllEnded();
    // Acknowledged after the end was recorded: the ended session's status still moves with them.
    await until(() => bridge.supervisor.status()[0]!.lastDeliveredSeq === 12, 'the acknowledgement in the status');
    expect(seqs(h, 'gone')).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(bridge.supervisor.status()[0]).toMatchObject({
      state: 'ended',
      received: 12,
      repaired: 12,
      lastReceivedSeq: 12,
      lastDeliveredSeq: 12,
    });
  });
});
