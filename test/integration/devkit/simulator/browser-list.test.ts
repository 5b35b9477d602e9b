// The simulator's GET /browsers over a real socket: the semantics discovery relies on (status,
// query, tags ANDed, limit bounds, newest first, X-Has-More / absolute X-Next-Offset, deleted_at),
// injected list failures, a simulator without the route, and session names on the sub-routes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSimulator, type Simulator } from '../../../../src/devkit/simulator/index.js';
import { SessionSpawner } from '../../../../src/devkit/simulator/session-spawner.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function list(query: string): Promise<{
  status: number;
  body: Array<Record<string, unknown>>;
  more: string | null;
  next: string | null;
  retryAfter: string | null;
}> {
  const res = await fetch(`${sim!.url}/browsers${query}`, { headers: { authorization: 'Bearer sim-key' } });
  const body = (await res.json()) as Array<Record<string, unknown>>;
  return {
    status: res.status,
    body,
    more: res.headers.get('x-has-more'),
    next: res.headers.get('x-next-offset'),
    retryAfter: res.headers.get('retry-after'),
  };
}

describe('simulator: GET /browsers', () => {
  it('pages newest first with X-Has-More and the absolute X-Next-Offset, 0 on the last page', async () => {
    sim = await startSimulator();
    for (let i = 0; i < 250; i++) sim.createSession(`s-${String(i).padStart(3, '0')}`, { tags: { team: 'a' } });
    const first = await list('?limit=100');
    expect(first).toMatchObject({ status: 200, more: 'true', next: '100' });
    expect(first.body).toHaveLength(100);
    const third = await list('?limit=100&offset=200');
    expect(third).toMatchObject({ more: 'false', next: '0' });
    expect(third.body).toHaveLength(50);
    const ids = new Set(
      [...first.body, ...(await list('?limit=100&offset=100')).body, ...third.body].map((s) => s.session_id),
    );
    expect(ids.size).toBe(250);
    expect((await list('')).body).toHaveLength(20); // the service's default limit
  });

  it('filters by status, tags (ANDed) and query; deleted sessions carry deleted_at', async () => {
    sim = await startSimulator();
    sim.createSession('alpha', { tags: { team: 'a', env: 'prod' }, name: 'checkout' });
    sim.createSession('beta', { tags: { team: 'a', env: 'dev' } });
    sim.createSession('gamma', { tags: { team: 'b' } }).end();
    const ids = async (q: string): Promise<string[]> => (await list(q)).body.map((s) => s.session_id as string).sort();
    expect(await ids('?limit=100')).toEqual(['alpha', 'beta']);
    expect(await ids('?limit=100&status=deleted')).toEqual(['gamma']);
    expect(await ids('?limit=100&status=all')).toEqual(['alpha', 'beta', 'gamma']);
    expect(await ids('?limit=100&tags%5Bteam%5D=a&tags%5Benv%5D=prod')).toEqual(['alpha']);
    expect(await ids('?limit=100&query=check')).toEqual(['alpha']);
    expect(await ids('?limit=100&query=et')).toEqual(['beta']);
    const deleted = (await list('?status=deleted')).body[0]!;
    expect(Date.parse(deleted.deleted_at as string)).toBeGreaterThan(0);
    expect((await list('?limit=100')).body[0]).not.toHaveProperty('deleted_at');
    expect(deleted).toMatchObject({ session_id: 'gamma', tags: { team: 'b' }, created_at: expect.any(String) });
  });

  it('refuses a limit above 100 and an unknown status', async () => {
    sim = await startSimulator();
    expect((await list('?limit=101')).status).toBe(400);
    expect((await list('?limit=0')).status).toBe(400);
    expect((await list('?status=gone')).status).toBe(400);
  });

  it('answers injected failures, 429 with Retry-After, then lists again', async () => {
    sim = await startSimulator();
    sim.faults.listFailNext = [{ status: 429, retryAfterSeconds: 2 }, { status: 503 }];
    expect(await list('')).toMatchObject({ status: 429, retryAfter: '2' });
    expect((await list('')).status).toBe(503);
    expect((await list('')).status).toBe(200);
  });

  it('filters by region (us-east by default, only the two names the service knows) and lists the region of each session', async () => {
    sim = await startSimulator();
    sim.createSession('east', {});
    sim.createSession('west', { region: 'eu-west' });
    const ids = async (q: string): Promise<string[]> => (await list(q)).body.map((s) => s.session_id as string).sort();
    expect(await ids('?limit=100&region=eu-west')).toEqual(['west']);
    expect(await ids('?limit=100&region=us-east')).toEqual(['east']);
    expect(await ids('?limit=100')).toEqual(['east', 'west']);
    expect((await list('?limit=100&region=eu-west')).body[0]).toMatchObject({ region: 'eu-west' });
    expect((await list('?region=mars')).status).toBe(400);
  });

  it('faults: refused statuses answer 400, and the list can be served oldest first', async () => {
    sim = await startSimulator();
    for (const id of ['a', 'b', 'c']) sim.createSession(id, {});
    sim.faults.listRefusedStatuses = ['all'];
    expect(await list('?status=all')).toMatchObject({ status: 400 });
    expect((await list('?status=active')).status).toBe(200);
    const createdAt = async (): Promise<number[]> =>
      (await list('?limit=100')).body.map((s) => Date.parse(s.created_at as string));
    const newest = await createdAt();
    expect([...newest].sort((x, y) => y - x)).toEqual(newest);
    sim.faults.listOrder = 'oldest';
    const oldest = await createdAt();
    expect([...oldest].sort((x, y) => x - y)).toEqual(oldest);
  });

  it('takes a session name wherever an id goes: the session, its archive and its stream', async () => {
    sim = await startSimulator();
    sim.createSession('old-run', { name: 'nightly' }).end();
    const s = sim.createSession('s-1', { name: 'nightly' });
    s.emit(3);
    const get = (path: string, signal?: AbortSignal): Promise<Response> =>
      fetch(`${sim!.url}${path}`, { headers: { authorization: 'Bearer sim-key' }, ...(signal ? { signal } : {}) });
    // The live session of that name, not the ended one.
    expect(await (await get('/browsers/nightly')).json()).toMatchObject({ session_id: 's-1', name: 'nightly' });
    const events = (await (
      await get('/browsers/nightly/telemetry/events?since=1970-01-01T00:00:00Z')
    ).json()) as unknown[];
    expect(events).toHaveLength(3);
    const ac = new AbortController();
    const stream = await get('/browsers/nightly/telemetry/stream', ac.signal);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    ac.abort();
    expect((await get('/browsers/no-such-name')).status).toBe(404);
  });

  it('has no route with listRoute: false (an older service)', async () => {
    sim = await startSimulator({ listRoute: false });
    expect((await list('')).status).toBe(404);
  });

  it('the spawner creates tagged sessions over time and ends them after their lifetime', async () => {
    sim = await startSimulator();
    // The spawner's clock is faked (a real 250 ms sleep left a loaded machine short of the third
    // session's end); the list is then asked over a real socket.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    try {
      const spawner = new SessionSpawner(sim, { everyMs: 30, tags: { team: 'a' }, lifetimeMs: 60, max: 3 });
      spawner.start();
      vi.advanceTimersByTime(250);
      spawner.stop();
      expect(spawner.created).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
    expect((await list('?status=deleted&tags%5Bteam%5D=a')).body).toHaveLength(3);
  });
});
