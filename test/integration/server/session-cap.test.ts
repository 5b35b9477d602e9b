// The session cap on real sockets: PUT of one session more than max_sessions answers 429 in the
// Error shape, counts bridge_sessions_refused_total and follows nothing; an id already followed may
// still be updated, and a DELETE makes room.
import { describe, expect, it } from 'vitest';
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

async function refusedTotal(): Promise<number> {
  const text = await (await fetch(`${t.running!.url}/metrics`)).text();
  return Number(/^bridge_sessions_refused_total (\d+)$/m.exec(text)?.[1]);
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

  it('defaults to 1000 and is read from BRIDGE_MAX_SESSIONS', async () => {
    for (const id of ['a', 'b']) t.world.sim.createSession(id);
    expect(t.world.config().maxSessions).toBe(1000);
    t.running = await startInProcess(t.world, {}, { BRIDGE_MAX_SESSIONS: '1' });
    expect(t.running.config.maxSessions).toBe(1);
    expect((await put('a')).status).toBe(201);
    expect((await put('b')).status).toBe(429);
  });
});
