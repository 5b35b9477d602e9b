// The session cap on real sockets: PUT of one session more than max_sessions answers 429 in the
// Error shape, counts bridge_sessions_refused_total and follows nothing; an id already followed may
// still be updated, and a DELETE makes room. PUTs at the same moment cannot pass the cap together;
// configured and discovered sessions beyond it are recorded, shown as waiting, counted, and
// followed (every event delivered) once a followed session ends.
import { describe, expect, it } from 'vitest';
import { until } from '../../helpers/harness.js';
import { startInProcess, worldPerTest } from './bridge-harness.js';

const t = worldPerTest();

async function put(
  id: string,
): Promise<{ status: number; body: { code?: string; message?: string }; retryAfter: string | null }> {
  const res = await fetch(`${t.running!.url}/v1/sessions/${id}`, { method: 'PUT', body: '{}' });
  return {
    status: res.status,
    body: (await res.json()) as { code?: string },
    retryAfter: res.headers.get('retry-after'),
  };
}

async function refusedTotal(source = 'api'): Promise<number> {
  const text = await (await fetch(`${t.running!.url}/metrics`)).text();
  return Number(new RegExp(`^bridge_sessions_refused_total\\{source="${source}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
}

async function waiting(): Promise<unknown> {
  const body = (await (await fetch(`${t.running!.url}/v1/sessions`)).json()) as { waiting?: unknown };
  return body.waiting;
}

describe('max_sessions', () => {
  it('refuses one session more with 429 and a metric; updates and room after DELETE still work', async () => {
    for (const id of ['s1', 's2', 's3']) t.world.sim.createSession(id);
    t.running = await startInProcess(t.world, { max_sessions: 2 });
    expect((await put('s1')).status).toBe(201);
    expect((await put('s2')).status).toBe(201);
    expect(await refusedTotal()).toBe(0);
    const third = await put('s3');
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ code: 'too_many_sessions', message: expect.stringMatching(/max_sessions = 2/) });
    expect(third.retryAfter).toBe('60');
    expect(await refusedTotal()).toBe(1);
    expect(t.running.bridge.supervisor.followedCount).toBe(2);
    expect(t.running.bridge.supervisor.session('s3')).toBeUndefined();
    // Updating a followed session is not growth.
    expect((await put('s1')).status).toBe(200);
    expect((await fetch(`${t.running.url}/v1/sessions/s2`, { method: 'DELETE' })).status).toBe(204);
    expect((await put('s3')).status).toBe(201);
  });

  it('ten PUTs of new sessions at the same moment: as many pass as there is room', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `c${i}`);
    for (const id of ids) t.world.sim.createSession(id);
    t.running = await startInProcess(t.world, { max_sessions: 3 });
    const statuses = (await Promise.all(ids.map((id) => put(id)))).map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 429, 429, 429, 429, 429, 429, 429]);
    expect(t.running.bridge.supervisor.followedCount).toBe(3);
    expect(await refusedTotal()).toBe(7);
  });

  it('configured sessions beyond the cap wait, shown and counted, and are followed as others end', async () => {
    const sessions = ['k1', 'k2', 'k3'].map((id) => t.world.sim.createSession(id));
    for (const s of sessions) s.emit(12);
    t.running = await startInProcess(t.world, { max_sessions: 2 }, { BRIDGE_SESSIONS: 'k1,k2,k3' });
    const sup = t.running.bridge.supervisor;
    expect(sup.followedCount).toBe(2);
    expect(await waiting()).toEqual({ maxSessions: 2, sessions: ['k3'] });
    expect(await refusedTotal('config')).toBe(1);
    // A PUT of the waiting one is not refused: it is already recorded.
    expect((await put('k3')).status).toBe(200);
    sessions[0]!.end();
    await until(() => sup.session('k3') !== undefined, 'the waiting session followed once k1 ended');
    await until(() => t.world.tally(['k3'])[0]!.unique === 12, 'every event of the waiting session');
    expect(await waiting()).toBeUndefined();
    expect(sup.followedCount).toBe(2);
  });

  it('discovered sessions beyond the cap wait and are followed, from the archive once ended', async () => {
    const sessions = ['d1', 'd2', 'd3'].map((id) => t.world.sim.createSession(id, { tags: { team: 'a' } }));
    for (const s of sessions) s.emit(9);
    t.running = await startInProcess(
      t.world,
      { max_sessions: 2 },
      { BRIDGE_DISCOVER: 'true', BRIDGE_DISCOVER_TAGS: 'team=a', BRIDGE_DISCOVER_INTERVAL: '200ms' },
    );
    const sup = t.running.bridge.supervisor;
    await until(() => sup.waitingForRoom().length === 1, 'one discovered session waiting');
    expect(sup.followedCount).toBe(2);
    expect(await refusedTotal('discovery')).toBe(1);
    const [late] = sup.waitingForRoom();
    // It ends while it waits: its events come from the archive once there is room.
    t.world.sim.session(late!)!.end();
    const first = ['d1', 'd2', 'd3'].find((id) => id !== late)!;
    t.world.sim.session(first)!.end();
    await until(() => t.world.tally([late!])[0]!.unique === 9, 'every event of the session that waited');
    // Counted once, not at every poll.
    expect(await refusedTotal('discovery')).toBe(1);
  });

  it('defaults to 1000 and is read from BRIDGE_MAX_SESSIONS', async () => {
    for (const id of ['a', 'b']) t.world.sim.createSession(id);
    expect(t.world.config().maxSessions).toBe(1000);
    t.running = await startInProcess(t.world, {}, { BRIDGE_MAX_SESSIONS: '1' });
    expect(t.running.config.maxSessions).toBe(1);
    expect((await put('a')).status).toBe(201);
    expect((await put('b')).status).toBe(429);
  });
});
