// Fault injection on the simulated stream: error answers, wrong content type, CRLF, multi-line data,
// tiny chunks, a socket cut mid-frame, and malformed frames.
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../../../src/devkit/simulator/index.js';
import type { Simulator } from '../../../../src/devkit/simulator/index.js';
import { parseEnvelope } from '../../../../src/upstream/envelope.js';
import { bodyText, openStream } from './sse-test-client.js';

let sim: Simulator;
afterEach(async () => {
  await sim?.close();
});

const ids = (frames: Array<{ id?: string }>): number[] => frames.map((f) => Number(f.id));

describe('simulator faults', () => {
  it('failNext: each stream request pops one; 429 carries Retry-After; bodies are Error-shaped', async () => {
    sim = await startSimulator();
    sim.createSession('s1');
    sim.faults.failNext.push(
      { status: 429, retryAfterSeconds: 7 },
      { status: 500 },
      { status: 403, code: 'plan_required' },
    );
    const a = await openStream(sim.url, 's1');
    expect(a.status).toBe(429);
    expect(a.headers['retry-after']).toBe('7');
    expect(JSON.parse(await bodyText(a))).toMatchObject({ code: 'rate_limited', message: expect.any(String) });
    const b = await openStream(sim.url, 's1');
    expect(b.status).toBe(500);
    expect(JSON.parse(await bodyText(b))).toMatchObject({ code: 'internal_error' });
    const c = await openStream(sim.url, 's1');
    expect(c.status).toBe(403);
    expect(JSON.parse(await bodyText(c))).toEqual({ code: 'plan_required', message: expect.any(String) });
    const d = await openStream(sim.url, 's1');
    expect(d.status).toBe(200);
    d.close();
    expect(sim.stats.byStatus).toMatchObject({ 429: 1, 500: 1, 403: 1, 200: 1 });
  });

  it('auth is checked before injected failures', async () => {
    sim = await startSimulator();
    sim.faults.failNext.push({ status: 500 });
    const a = await openStream(sim.url, 's1', { token: 'bad' });
    expect(a.status).toBe(401);
    expect(sim.faults.failNext).toHaveLength(1);
  });

  it('wrongContentType: the next N requests answer 200 text/plain', async () => {
    sim = await startSimulator();
    sim.createSession('s1');
    sim.faults.wrongContentType = 1;
    const a = await openStream(sim.url, 's1');
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toMatch(/^text\/plain/);
    await a.done;
    const b = await openStream(sim.url, 's1');
    expect(b.headers['content-type']).toBe('text/event-stream');
    b.close();
  });

  it('crlf: every line ends in \\r\\n and the frames still parse', async () => {
    sim = await startSimulator({ seed: 11 });
    const s = sim.createSession('s1');
    sim.faults.crlf = true;
    const sent = s.emit(10);
    const st = await openStream(sim.url, 's1', { replay: 'all' });
    const frames = await st.waitFrames(10);
    const raw = Buffer.concat(st.chunks).toString('utf8');
    expect(raw.replaceAll('\r\n', '')).not.toContain('\n');
    expect(frames.map((f) => JSON.parse(f.data ?? ''))).toEqual(sent);
    st.close();
  });

  it('splitData: data spans several lines that rejoin with \\n to the same JSON value', async () => {
    sim = await startSimulator({ seed: 12 });
    const s = sim.createSession('s1');
    sim.faults.splitData = true;
    sim.faults.crlf = true;
    const sent = s.emit(30);
    const st = await openStream(sim.url, 's1', { replay: 'all' });
    const frames = await st.waitFrames(30);
    for (const [i, f] of frames.entries()) {
      expect(f.dataLines).toBeGreaterThan(3);
      expect(JSON.parse(f.data ?? '')).toEqual(sent[i]);
      expect(JSON.stringify(JSON.parse(f.data ?? ''))).toBe(JSON.stringify(sent[i]));
    }
    st.close();
  });

  it('tiny chunks (1..7 bytes, split inside UTF-8 and between \\r and \\n) reassemble exactly', async () => {
    for (const size of [1, 2, 3, 7]) {
      sim = await startSimulator({ seed: 13 + size });
      const s = sim.createSession('s1');
      Object.assign(sim.faults, { chunkSize: size, crlf: size % 2 === 1 });
      // Unicode text guarantees multi-byte sequences to split.
      const sent = [s.emitEvent({ type: 'console_log', data: { text: 'Привет 世界 🚀🚀' } }), ...s.emit(20)];
      const st = await openStream(sim.url, 's1', { replay: 'all' });
      const frames = await st.waitFrames(21, 10_000);
      expect(frames.map((f) => JSON.parse(f.data ?? ''))).toEqual(sent);
      expect(st.chunks.length).toBeGreaterThan(21);
      expect(Math.max(...st.chunks.map((c) => c.length))).toBeLessThanOrEqual(size);
      st.close();
      await sim.close();
    }
  });

  it('cutAfterFrames: N whole frames, then part of one, then the socket is cut; resume continues', async () => {
    sim = await startSimulator({ seed: 14 });
    const s = sim.createSession('s1');
    s.emit(12);
    sim.faults.cutAfterFrames = 5;
    const a = await openStream(sim.url, 's1', { replay: 'all' });
    expect((await a.done).clean).toBe(false);
    expect(ids(a.frames)).toEqual([1, 2, 3, 4, 5]);
    // The head of frame 6 arrived (its id line is complete, its data line is not).
    expect(a.pending.startsWith('data: {"seq":6')).toBe(true);
    const b = await openStream(sim.url, 's1', { lastEventId: '5' });
    await b.done;
    expect(ids(b.frames)).toEqual([6, 7, 8, 9, 10]);
    sim.faults.cutAfterFrames = undefined;
    const c = await openStream(sim.url, 's1', { lastEventId: '10' });
    expect(ids(await c.waitFrames(2))).toEqual([11, 12]);
    c.close();
  });

  it('cutAfterFrames counts per connection across live batches', async () => {
    sim = await startSimulator({ seed: 15 });
    const s = sim.createSession('s1');
    sim.faults.cutAfterFrames = 3;
    const a = await openStream(sim.url, 's1');
    s.emit(2);
    await a.waitFrames(2);
    s.emit(2);
    expect((await a.done).clean).toBe(false);
    expect(ids(a.frames)).toEqual([1, 2, 3]);
  });

  it('injectMalformed consumes a seq and sends undecodable data under that id', async () => {
    sim = await startSimulator({ seed: 16 });
    const s = sim.createSession('s1');
    s.emit(1);
    const bad1 = s.injectMalformed('json');
    const bad2 = s.injectMalformed('envelope');
    const bad3 = s.injectMalformed();
    s.emit(1);
    expect([bad1, bad2, bad3, s.lastSeq]).toEqual([2, 3, 4, 5]);
    expect(s.emitted).toBe(2);
    sim.faults.splitData = true;
    const st = await openStream(sim.url, 's1', { replay: 'all' });
    const frames = await st.waitFrames(5);
    expect(ids(frames)).toEqual([1, 2, 3, 4, 5]);
    const results = frames.map((f) => parseEnvelope(f.data ?? ''));
    expect(results.map((r) => r.ok)).toEqual([true, false, false, false, true]);
    expect(() => JSON.parse(frames[1]?.data ?? '')).toThrow();
    expect(() => JSON.parse(frames[2]?.data ?? '')).not.toThrow();
    st.close();
  });

  it('faults can be replaced as a whole object and are read per request', async () => {
    sim = await startSimulator();
    sim.createSession('s1');
    sim.faults = {
      failNext: [{ status: 503, retryAfterSeconds: 2 }],
      wrongContentType: 0,
      crlf: false,
      crOnly: false,
      splitData: false,
      staleResume: 'wait',
      endedServerErrors: 1,
    };
    const a = await openStream(sim.url, 's1');
    expect(a.status).toBe(503);
    expect(a.headers['retry-after']).toBe('2');
    await a.done;
  });
});
