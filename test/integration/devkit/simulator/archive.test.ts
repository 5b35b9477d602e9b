// The simulated telemetry archive against the real service's contract (docs/service-api.md "Archive"): GET /browsers/{id}/telemetry/events, offset paging with an opaque cursor, since/until,
// repeated category, desc; it keeps every epoch and outlives the session.
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../../src/devkit/simulator/index.js';

let sim: Simulator;
afterEach(async () => sim?.close());

interface Page {
  status: number;
  items: Array<{ seq: number; event: { ts: number; category: string; source: { metadata: Record<string, unknown> } } }>;
  more: string | null;
  next: string | null;
}

async function page(path: string): Promise<Page> {
  const res = await fetch(`${sim.url}${path}`, { headers: { authorization: 'Bearer sim-key' } });
  const body = await res.json();
  return {
    status: res.status,
    items: Array.isArray(body) ? (body as Page['items']) : [],
    more: res.headers.get('x-has-more'),
    next: res.headers.get('x-next-offset'),
  };
}

const ALL = '/browsers/s/telemetry/events?since=1970-01-01T00:00:00Z';

describe('simulated archive', () => {
  it('pages of at most 100, oldest first, while X-Has-More with the X-Next-Offset cursor passed back as is', async () => {
    sim = await startSimulator({ seed: 1 });
    sim.createSession('s').emit(250);
    const seen: number[] = [];
    let p = await page(`${ALL}&limit=100`);
    const cursors: string[] = [];
    for (;;) {
      seen.push(...p.items.map((i) => i.seq));
      if (p.more !== 'true') break;
      cursors.push(p.next as string);
      p = await page(`/browsers/s/telemetry/events?limit=100&offset=${encodeURIComponent(p.next as string)}`);
    }
    expect(seen).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(cursors).toHaveLength(2);
    expect(cursors.every((c) => !/^\d+$/.test(c))).toBe(true);
    expect((await page('/browsers/s/telemetry/events?limit=101')).status).toBe(400);
    expect((await page('/browsers/s/telemetry/events?offset=42')).status).toBe(400);
  });

  it('defaults to the last 5 minutes; since and until bound the window by event time', async () => {
    sim = await startSimulator({ seed: 2 });
    const s = sim.createSession('s');
    const now = Date.now() * 1000;
    s.emitEvent({ type: 'api_call', category: 'control', ts: now - 10 * 60_000_000 });
    s.emitEvent({ type: 'api_call', category: 'control', ts: now - 60_000_000 });
    s.emitEvent({ type: 'api_call', category: 'control', ts: now });
    expect((await page('/browsers/s/telemetry/events')).items.map((i) => i.seq)).toEqual([2, 3]);
    expect((await page(ALL)).items.map((i) => i.seq)).toEqual([1, 2, 3]);
    expect((await page(`${ALL}&until=30s`)).items.map((i) => i.seq)).toEqual([1, 2]);
    expect((await page('/browsers/s/telemetry/events?since=15m&until=5m')).items.map((i) => i.seq)).toEqual([1]);
  });

  it('category repeats and filters within the page; desc reads newest first and refuses since', async () => {
    sim = await startSimulator({ seed: 3 });
    const s = sim.createSession('s');
    s.emitEvent({ type: 'api_call', category: 'control' });
    s.emitEvent({ type: 'system_oom_kill', category: 'system' });
    s.emitEvent({ type: 'cdp_connect', category: 'connection' });
    expect((await page(`${ALL}&category=system&category=connection`)).items.map((i) => i.seq)).toEqual([2, 3]);
    const desc = await page('/browsers/s/telemetry/events?order=desc&limit=2');
    expect([desc.items.map((i) => i.seq), desc.more]).toEqual([[3, 2], 'true']);
    expect(
      (
        await page(`/browsers/s/telemetry/events?order=desc&offset=${encodeURIComponent(desc.next as string)}`)
      ).items.map((i) => i.seq),
    ).toEqual([1]);
    expect((await page(`${ALL}&order=desc`)).status).toBe(400);
  });

  it('keeps every epoch and outlives the session; an unknown session is an empty list', async () => {
    sim = await startSimulator({ seed: 4, bufferSize: 5 });
    const s = sim.createSession('s');
    s.emit(10);
    const first = s.telemetrySessionId;
    s.restartService();
    s.emit(3);
    s.end();
    const p = await page(ALL);
    expect(p.items.map((i) => i.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3]);
    expect(new Set(p.items.slice(0, 10).map((i) => i.event.source.metadata.telemetry_session_id))).toEqual(
      new Set([first]),
    );
    expect(new Set(p.items.slice(10).map((i) => i.event.source.metadata.telemetry_session_id))).toEqual(
      new Set([s.telemetrySessionId]),
    );
    expect((await page('/browsers/nobody/telemetry/events')).status).toBe(404);
  });

  it('an older service has no archive route at all (archiveSize 0): 404', async () => {
    sim = await startSimulator({ seed: 5, archiveSize: 0 });
    sim.createSession('s').emit(3);
    expect((await page(ALL)).status).toBe(404);
  });
});

describe('simulated events as the real service sends them', () => {
  it('captures control, connection, system and captcha by default; the rest only when a session opts in', async () => {
    sim = await startSimulator({ seed: 6 });
    const plain = new Set(
      sim
        .createSession('plain')
        .emit(600)
        .map((e) => e.event.category),
    );
    expect([...plain].every((c) => ['control', 'connection', 'system', 'captcha'].includes(c))).toBe(true);
    expect(plain.size).toBeGreaterThan(1);
    const opted = new Set(
      sim
        .createSession('opted', { categories: ['console', 'network'] })
        .emit(600)
        .map((e) => e.event.category),
    );
    expect(opted.has('console') && opted.has('network') && opted.has('monitor')).toBe(true);
    expect(opted.has('page') || opted.has('screenshot')).toBe(false);
  });

  it('sources are cdp | kernel_api | extension | local_process with string metadata carrying telemetry_session_id', async () => {
    sim = await startSimulator({ seed: 7 });
    const s = sim.createSession('s', { categories: 'all' });
    const events = s.emit(800);
    s.produce(5000, 300);
    await new Promise((r) => setTimeout(r, 300));
    // The newest 100: events of the bulk path (produce), whose sources are normalised per template.
    const archived = (await page('/browsers/s/telemetry/events?order=desc&limit=100')).items;
    expect(archived[0]!.seq).toBe(1100);
    for (const e of [...events.map((x) => x.event), ...archived.map((x) => x.event)]) {
      const src = e.source as { kind: string; metadata: Record<string, unknown> };
      expect(['cdp', 'kernel_api', 'extension', 'local_process']).toContain(src.kind);
      expect(Object.values(src.metadata).every((v) => typeof v === 'string')).toBe(true);
      expect(src.metadata.telemetry_session_id).toBe(s.telemetrySessionId);
    }
  });
});

describe('truncation as the real service does it', () => {
  it('cut strings end in ...[truncated] without the flag; only an envelope over 1,000,000 bytes has truncated: true and data null', async () => {
    const { capEnvelope } = await import('../../../../src/devkit/simulator/event-source.js');
    sim = await startSimulator({ seed: 8 });
    const events = sim.createSession('s', { categories: 'all' }).emit(3000);
    expect(events.some((e) => JSON.stringify(e.event.data ?? {}).includes('...[truncated]'))).toBe(true);
    expect(events.filter((e) => e.event.truncated !== undefined)).toEqual([]);
    const small = JSON.stringify({
      seq: 1,
      event: { ts: 1, type: 'console_log', category: 'console', source: {}, data: { text: 'x' } },
    });
    expect(capEnvelope(small)).toBe(small);
    const big = JSON.parse(
      capEnvelope(
        JSON.stringify({
          seq: 2,
          event: { ts: 1, type: 'console_log', category: 'console', source: {}, data: { text: 'é'.repeat(600_000) } },
        }),
      ),
    ) as { event: Record<string, unknown> };
    expect([big.event.data, big.event.truncated]).toEqual([null, true]);
  });
});
