// Several sessions, no faults: every event arrives exactly once, with the exact timestamp, the
// contract's attributes and the data as a structured body.
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';
import type { Envelope } from '../../../src/upstream/envelope.js';

let h: Harness;
afterEach(async () => h?.close());

describe('normal delivery', () => {
  for (const protocol of ['http/protobuf', 'http/json'] as const) {
    it(`delivers several sessions completely and exactly once (${protocol})`, async () => {
      h = await harness();
      const ids = ['s1', 's2', 's3'];
      const sent = new Map<string, Envelope>();
      for (const id of ids) {
        const s = h.sim.createSession(id);
        for (const env of s.emit(300)) sent.set(`${id}:${env.seq}`, env);
      }
      const bridge = await h.startBridge(FAST, {
        BRIDGE_SESSIONS: ids.join(','),
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      });
      // Live events after the replay.
      for (const id of ids) for (const env of h.sim.session(id)!.emit(200)) sent.set(`${id}:${env.seq}`, env);
      await h.receiver.waitFor((r) => r.length >= 1500, 20_000);
      for (const id of ids) h.sim.session(id)!.end();
      await bridge.supervisor.untilAllEnded();

      const tallies = h.tally(ids);
      for (const t of tallies) expect(t).toMatchObject({ unique: 500, duplicates: 0, missing: 0, gapRecords: 0 });
      expect(h.receiver.records).toHaveLength(1500);
      expect(h.receiver.requests.every((q) => q.contentEncoding === 'gzip')).toBe(true);

      for (const r of h.receiver.records) {
        const uid = String(r.attributes['log.record.uid']);
        const env = sent.get(uid)!;
        expect(env, uid).toBeDefined();
        expect(r.timeUnixNano).toBe(BigInt(env.event.ts) * 1000n);
        expect(r.eventName).toBe(`browser.${env.event.type}`);
        expect(r.attributes['browser.telemetry.seq']).toBe(env.seq);
        expect(r.attributes['browser.event.category']).toBe(env.event.category);
        expect(r.resource['service.name']).toBe('browser-telemetry-bridge');
      }
      const status = bridge.supervisor.status();
      expect(status.map((s) => [s.id, s.state, s.lastDeliveredSeq])).toEqual(ids.map((id) => [id, 'ended', 500]));
      // The reset and the 502 that end a session are not errors: an ended session shows none.
      expect(status.map((s) => s.lastError)).toEqual(ids.map(() => undefined));
    });
  }

  it('resumes from the checkpoint after a clean restart without duplicates', async () => {
    h = await harness();
    const s = h.sim.createSession('r1');
    s.emit(100);
    let bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'r1' });
    await until(() => h.receiver.records.length >= 100, '100 records');
    expect(await bridge.shutdown(Date.now() + 5000)).toBe(true);
    s.emit(100);
    bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'r1' });
    await until(() => h.receiver.records.length >= 200, '200 records');
    s.end();
    await bridge.supervisor.untilAllEnded();
    expect(h.tally(['r1'])[0]).toMatchObject({ unique: 200, duplicates: 0, missing: 0 });
  });

  it('follows stream faults: CRLF, split data lines, tiny chunks, cuts mid-frame, 5xx, 429, wrong content type', async () => {
    h = await harness();
    const s = h.sim.createSession('f1');
    s.emit(150);
    Object.assign(h.sim.faults, { crlf: true, splitData: true, chunkSize: 3, cutAfterFrames: 40 });
    h.sim.faults.failNext.push({ status: 503 }, { status: 429, retryAfterSeconds: 0 }, { status: 500 });
    h.sim.faults.wrongContentType = 1;
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'f1' });
    await until(() => h.receiver.records.length >= 150, '150 records', 30_000);
    s.emit(150);
    await until(() => h.receiver.records.length >= 300, '300 records', 30_000);
    h.sim.faults.cutAfterFrames = undefined;
    s.end();
    await bridge.supervisor.untilAllEnded();
    expect(h.tally(['f1'])[0]).toMatchObject({ unique: 300, duplicates: 0, missing: 0, gapRecords: 0 });
    const st = bridge.supervisor.status()[0]!;
    expect(st.reconnects.server_error).toBeGreaterThanOrEqual(2);
    expect(st.reconnects.rate_limited).toBe(1);
    expect(st.reconnects.bad_content_type).toBe(1);
    expect(st.malformedFrames).toBe(0);
  });
});
