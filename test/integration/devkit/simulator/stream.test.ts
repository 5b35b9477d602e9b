// The simulated stream endpoint against docs/service-api.md "Stream telemetry events", over real sockets.
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CDP_METHODS, EVENT_TYPES, startSimulator } from '../../../../src/devkit/simulator/index.js';
import type { Simulator } from '../../../../src/devkit/simulator/index.js';
import { parseEnvelope } from '../../../../src/upstream/envelope.js';
import { bodyText, openStream } from './sse-test-client.js';

let sim: Simulator;
afterEach(async () => {
  await sim?.close();
});

const ids = (frames: Array<{ id?: string }>): number[] => frames.map((f) => Number(f.id));

describe('simulated telemetry stream', () => {
  it('answers 200 text/event-stream with X-SSE-Content-Type and frames whose id equals seq, never event:', async () => {
    sim = await startSimulator({ seed: 1 });
    const s = sim.createSession('s1');
    s.emit(20);
    const st = await openStream(sim.url, 's1', { replay: 'all' });
    expect(st.status).toBe(200);
    expect(st.headers['content-type']).toBe('text/event-stream');
    expect(st.headers['x-sse-content-type']).toBe('application/json');
    const frames = await st.waitFrames(20);
    for (const f of frames) {
      expect(f.event).toBeUndefined();
      const parsed = parseEnvelope(f.data ?? '');
      expect(parsed.ok).toBe(true);
      if (parsed.ok) expect(parsed.envelope.seq).toBe(Number(f.id));
    }
    expect(ids(frames)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    st.close();
  });

  it('a fresh connection receives only new events', async () => {
    sim = await startSimulator({ seed: 2 });
    const s = sim.createSession('s1');
    s.emit(5);
    const st = await openStream(sim.url, 's1');
    s.emit(3);
    expect(ids(await st.waitFrames(3))).toEqual([6, 7, 8]);
    st.close();
  });

  it('replay=all starts at the oldest retained event; other replay values mean from now', async () => {
    sim = await startSimulator({ seed: 3 });
    const s = sim.createSession('s1');
    s.emit(4);
    const all = await openStream(sim.url, 's1', { replay: 'all' });
    const other = await openStream(sim.url, 's1', { replay: 'yes' });
    s.emit(1);
    expect(ids(await all.waitFrames(5))).toEqual([1, 2, 3, 4, 5]);
    expect(ids(await other.waitFrames(1))).toEqual([5]);
    all.close();
    other.close();
  });

  it('Last-Event-ID resumes strictly after that seq and wins over replay=all', async () => {
    sim = await startSimulator({ seed: 4 });
    const s = sim.createSession('s1');
    s.emit(10);
    const a = await openStream(sim.url, 's1', { lastEventId: '6' });
    const b = await openStream(sim.url, 's1', { lastEventId: '6', replay: 'all' });
    // Last-Event-ID 0 names no event: the real service then streams from now.
    const c = await openStream(sim.url, 's1', { lastEventId: '0' });
    expect(ids(await a.waitFrames(4))).toEqual([7, 8, 9, 10]);
    expect(ids(await b.waitFrames(4))).toEqual([7, 8, 9, 10]);
    s.emit(1);
    expect(ids(await a.waitFrames(5))[4]).toBe(11);
    expect(ids(await c.waitFrames(1))).toEqual([11]);
    for (const x of [a, b, c]) x.close();
  });

  it('evicts the oldest events: replay=all then starts above 1, an old Last-Event-ID resumes with a gap', async () => {
    sim = await startSimulator({ seed: 5, bufferSize: 10 });
    const s = sim.createSession('s1');
    s.emit(25);
    const all = await openStream(sim.url, 's1', { replay: 'all' });
    expect(ids(await all.waitFrames(10))).toEqual(Array.from({ length: 10 }, (_, i) => 16 + i));
    const old = await openStream(sim.url, 's1', { lastEventId: '3' });
    expect(ids(await old.waitFrames(1))).toEqual([16]);
    all.close();
    old.close();
  });

  it('sends bare keepalive comment frames when idle, and asks proxies not to buffer', async () => {
    sim = await startSimulator({ keepaliveMs: 50 });
    sim.createSession('s1');
    const st = await openStream(sim.url, 's1');
    expect(st.headers['x-accel-buffering']).toBe('no');
    expect(await st.waitComments(2, 2000)).toEqual(['', '']);
    expect(st.frames).toHaveLength(0);
    st.close();
  });

  it('telemetry disabled: 200 and an empty stream (rule 7)', async () => {
    sim = await startSimulator({ keepaliveMs: 50 });
    const s = sim.createSession('off', { telemetry: false });
    expect(s.emit(10)).toEqual([]);
    const st = await openStream(sim.url, 'off', { replay: 'all' });
    expect(st.status).toBe(200);
    await st.waitComments(1, 2000);
    expect(st.frames).toHaveLength(0);
    st.close();
  });

  it('401 with an Error body for a missing or invalid token, checked before the session lookup', async () => {
    sim = await startSimulator();
    for (const token of [null, 'wrong']) {
      const st = await openStream(sim.url, 'does-not-exist', { token });
      expect(st.status).toBe(401);
      expect(JSON.parse(await bodyText(st))).toMatchObject({ code: 'unauthorized', message: expect.any(String) });
    }
  });

  it('404 NotFound Error body for an unknown session', async () => {
    sim = await startSimulator();
    const st = await openStream(sim.url, 'nope');
    expect(st.status).toBe(404);
    expect(JSON.parse(await bodyText(st))).toMatchObject({ code: 'not_found', message: expect.any(String) });
  });

  it('end() resets the live stream (never a clean close); the next request answers 502, later ones 404', async () => {
    sim = await startSimulator({ seed: 6 });
    const s = sim.createSession('s1');
    const st = await openStream(sim.url, 's1');
    s.emit(3);
    await st.waitFrames(3);
    st.pause();
    s.emit(2);
    s.end();
    expect(await st.done).toEqual({ clean: false });
    expect(s.ended).toBe(true);
    const first = await openStream(sim.url, 's1', { lastEventId: '3' });
    expect(first.status).toBe(502);
    await bodyText(first);
    const again = await openStream(sim.url, 's1', { lastEventId: '3' });
    expect(again.status).toBe(404);
    expect(JSON.parse(await bodyText(again)).code).toBe('not_found');
    expect(() => s.emit(1)).toThrow(/ended/);
  });

  it('end() while the reader lags: what arrives is in order (evictions aside), and the stream is reset', async () => {
    sim = await startSimulator({ seed: 16 });
    const s = sim.createSession('s1');
    const st = await openStream(sim.url, 's1');
    st.pause();
    for (let i = 0; i < 20; i++) s.emit(1000);
    s.end();
    st.resume();
    expect((await st.done).clean).toBe(false);
    const got = ids(st.frames);
    expect(got.every((v, i) => i === 0 || v > (got[i - 1] as number))).toBe(true);
    expect(got.at(-1)).toBeLessThan(20_000);
  });

  it('restartService drops the connection; the next one sees seq from 1 with a new telemetry_session_id', async () => {
    sim = await startSimulator({ seed: 7 });
    const s = sim.createSession('s1');
    s.emit(5);
    const before = s.telemetrySessionId;
    const st = await openStream(sim.url, 's1', { replay: 'all' });
    const old = await st.waitFrames(5);
    s.restartService();
    expect((await st.done).clean).toBe(false);
    expect(s.lastSeq).toBe(0);
    expect(s.telemetrySessionId).not.toBe(before);
    s.emit(2);
    const fresh = await openStream(sim.url, 's1', { replay: 'all' });
    const now = await fresh.waitFrames(2);
    expect(ids(now)).toEqual([1, 2]);
    const sid = (f: { data?: string }) =>
      (JSON.parse(f.data ?? '') as { event: { source: { metadata: Record<string, string> } } }).event.source.metadata
        .telemetry_session_id;
    expect(old.map(sid)).toEqual(Array(5).fill(before));
    expect(now.map(sid)).toEqual([s.telemetrySessionId, s.telemetrySessionId]);
    fresh.close();
  });

  it('a Last-Event-ID from an earlier epoch: nothing until seq passes it (wait), or a replay from the oldest (replay)', async () => {
    sim = await startSimulator({ seed: 17 });
    const s = sim.createSession('s1');
    s.emit(5);
    s.restartService();
    s.emit(3);
    const waiting = await openStream(sim.url, 's1', { lastEventId: '5' });
    sim.faults.staleResume = 'replay';
    const replaying = await openStream(sim.url, 's1', { lastEventId: '5' });
    expect(ids(await replaying.waitFrames(3))).toEqual([1, 2, 3]);
    s.emit(3);
    expect(ids(await waiting.waitFrames(1))).toEqual([6]);
    waiting.close();
    replaying.close();
  });

  it('serves many events to several connections in order, and counts stats', async () => {
    sim = await startSimulator({ seed: 8, bufferSize: 50_000 });
    const s = sim.createSession('s1');
    const a = await openStream(sim.url, 's1', { replay: 'all' });
    const b = await openStream(sim.url, 's1', { replay: 'all' });
    expect(sim.stats.activeStreams).toBe(2);
    for (let i = 0; i < 20; i++) s.emit(1000);
    const fa = await a.waitFrames(20_000, 20_000);
    const fb = await b.waitFrames(20_000, 20_000);
    expect(ids(fa)).toEqual(ids(fb));
    expect(ids(fa).every((v, i) => v === i + 1)).toBe(true);
    expect(s.emitted).toBe(20_000);
    a.close();
    b.close();
    // The server sees the two closes when its event loop gets to them: wait for that, not for a
    // fixed 100 ms (a loaded machine took longer, and the full suite failed here).
    while (sim.stats.activeStreams > 0) await new Promise((r) => setTimeout(r, 10));
    expect(sim.stats.activeStreams).toBe(0);
    expect(sim.stats.byStatus[200]).toBe(2);
    expect(sim.stats.requests).toBe(2);
  });

  it('a consumer that stops reading falls behind into a gap instead of growing memory', async () => {
    sim = await startSimulator({ seed: 9, bufferSize: 100 });
    const s = sim.createSession('s1');
    const st = await openStream(sim.url, 's1');
    st.pause();
    // Far more than the socket buffers hold: the connection must wait for 'drain' meanwhile.
    for (let i = 0; i < 60; i++) {
      s.emit(1000);
      await new Promise((r) => setImmediate(r));
    }
    st.resume();
    await st.waitFrames(1);
    const deadline = Date.now() + 20_000;
    while (Number(st.frames.at(-1)?.id) !== s.lastSeq && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const got = ids(st.frames);
    expect(got.at(-1)).toBe(60_000);
    expect(got.length).toBeLessThan(60_000);
    // Strictly increasing, with at least one jump: the evicted events are a visible gap.
    expect(got.every((v, i) => i === 0 || v > (got[i - 1] as number))).toBe(true);
    expect(got.some((v, i) => i > 0 && v - (got[i - 1] as number) > 1)).toBe(true);
    st.close();
  });

  it('every catalogue type and every cdp_command method arrives over the stream', async () => {
    sim = await startSimulator({ seed: 21 });
    const s = sim.createSession('s1', { categories: 'all' });
    s.emit(400);
    const st = await openStream(sim.url, 's1', { replay: 'all' });
    const envs = (await st.waitFrames(400)).map(
      (f) => JSON.parse(f.data ?? '') as { event: { type: string; data?: { method?: string } } },
    );
    expect(new Set(envs.map((e) => e.event.type))).toEqual(new Set(EVENT_TYPES));
    expect(new Set(envs.filter((e) => e.event.type === 'cdp_command').map((e) => e.event.data?.method))).toEqual(
      new Set(CDP_METHODS),
    );
    st.close();
  });

  it('produce(rate) streams contiguous valid envelopes; produce(0) stops', async () => {
    sim = await startSimulator({ seed: 22 });
    const s = sim.createSession('s1');
    const st = await openStream(sim.url, 's1');
    s.produce(2000);
    const frames = await st.waitFrames(300, 10_000);
    s.produce(0);
    expect(ids(frames)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    for (const f of frames) expect(parseEnvelope(f.data ?? '').ok).toBe(true);
    const stopped = s.lastSeq;
    await new Promise((r) => setTimeout(r, 150));
    expect(s.lastSeq).toBe(stopped);
    expect(s.emitted).toBe(stopped);
    st.close();
  });

  it('on the wire: a catch-up batch is one HTTP chunk, a live frame one chunk of its own', async () => {
    sim = await startSimulator({ seed: 23 });
    const s = sim.createSession('s1');
    s.emit(5);
    const socket = connect(Number(new URL(sim.url).port), '127.0.0.1');
    socket.write(
      'GET /browsers/s1/telemetry/stream?replay=all HTTP/1.1\r\nHost: sim\r\nAuthorization: Bearer sim-key\r\n\r\n',
    );
    let raw = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => (raw = Buffer.concat([raw, d])));
    /** The complete chunks of the body so far, as text. */
    const chunks = (): string[] => {
      const body = raw.toString('latin1', raw.indexOf('\r\n\r\n') + 4);
      const out: string[] = [];
      for (let at = 0; ;) {
        const eol = body.indexOf('\r\n', at);
        if (eol < 0) return out;
        const size = parseInt(body.slice(at, eol), 16);
        if (body.length < eol + 2 + size + 2) return out;
        out.push(body.slice(eol + 2, eol + 2 + size));
        at = eol + 2 + size + 2;
      }
    };
    const waitChunks = async (n: number): Promise<string[]> => {
      for (let i = 0; i < 500 && chunks().length < n; i++) await new Promise((r) => setTimeout(r, 10));
      return chunks();
    };
    const first = await waitChunks(1);
    s.emit(1);
    const both = await waitChunks(2);
    socket.destroy();
    expect(first).toHaveLength(1);
    expect((first[0] as string).match(/^id: /gm)).toHaveLength(5);
    expect(both).toHaveLength(2);
    expect(both[1]).toMatch(/^id: 6\ndata: \{"seq":6,/);
  });

  it('close() drops every stream at once', async () => {
    sim = await startSimulator();
    sim.createSession('s1');
    const st = await openStream(sim.url, 's1');
    await sim.close();
    expect((await st.done).clean).toBe(false);
  });
});
