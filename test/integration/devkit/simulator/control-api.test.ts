// The /_sim/ control API, the pool endpoint, and the standalone simulator process.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { makePool, startSimulator, telemetryConfig } from '../../../../src/devkit/simulator/index.js';
import type { Simulator } from '../../../../src/devkit/simulator/index.js';
import { openStream } from './sse-test-client.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(new URL(path, base), {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: await res.json() };
}

describe('GET /browser_pools/{id_or_name}', () => {
  it('returns the pool by id or by name, 404 and 401 with Error bodies', async () => {
    sim = await startSimulator({ apiKeys: ['k1', 'k2'] });
    const pool = makePool({ id: 'pool_123', name: 'checkout', region: 'eu-west' });
    pool.browser_pool_config.telemetry = telemetryConfig({ screenshot: false }, ['Page.captureScreenshot']);
    sim.addPool(pool);
    const byId = await call(sim.url, 'GET', '/browser_pools/pool_123', undefined, 'k2');
    expect(byId).toEqual({ status: 200, json: pool });
    expect((await call(sim.url, 'GET', '/browser_pools/checkout', undefined, 'k1')).json).toMatchObject({
      id: 'pool_123',
      region: 'eu-west',
    });
    expect(await call(sim.url, 'GET', '/browser_pools/missing', undefined, 'k1')).toEqual({
      status: 404,
      json: { code: 'not_found', message: expect.any(String) },
    });
    expect(await call(sim.url, 'GET', '/browser_pools/pool_123')).toEqual({
      status: 401,
      json: { code: 'unauthorized', message: expect.any(String) },
    });
    expect(byId.json).toMatchObject({
      acquired_count: expect.any(Number),
      available_count: expect.any(Number),
      extension_ids: [],
      created_at: expect.any(String),
      browser_pool_config: {
        telemetry: {
          browser: {
            screenshot: { enabled: false },
            control: { cdp: { excluded_methods: ['Page.captureScreenshot'] } },
          },
        },
      },
    });
  });

  it('a session created with an unknown pool name gets a default pool of that name', async () => {
    sim = await startSimulator();
    sim.createSession('s1', { pool: 'agents' });
    const res = await call(sim.url, 'GET', '/browser_pools/agents', undefined, 'sim-key');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: 'agents', region: 'us-east' });
  });

  it("a pool's telemetry config limits what its sessions capture", async () => {
    sim = await startSimulator({ seed: 3 });
    const off = makePool({ name: 'all-off' });
    off.browser_pool_config.telemetry = telemetryConfig(
      Object.fromEntries(
        [
          'captcha',
          'connection',
          'console',
          'control',
          'interaction',
          'network',
          'page',
          'platform',
          'screenshot',
          'system',
        ].map((c) => [c, false]),
      ),
    );
    sim.addPool(off);
    expect(sim.createSession('a', { pool: 'all-off' }).emit(50)).toEqual([]);
    const netOnly = makePool({ name: 'net' });
    netOnly.browser_pool_config.telemetry = telemetryConfig({
      captcha: false,
      connection: false,
      console: false,
      control: false,
      interaction: false,
      page: false,
      platform: false,
      screenshot: false,
      system: false,
    });
    sim.addPool(netOnly);
    const cats = new Set(
      sim
        .createSession('b', { pool: 'net' })
        .emit(500)
        .map((e) => e.event.category),
    );
    // monitor flows because network is captured (Capture rule 2); some versions label it system.
    expect([...cats].every((c) => ['network', 'monitor', 'system'].includes(c))).toBe(true);
    expect(cats.has('network')).toBe(true);
  });
});

describe('control API', () => {
  it('creates, emits, produces, lists, restarts, injects and ends sessions', async () => {
    sim = await startSimulator({ seed: 4 });
    expect((await call(sim.url, 'POST', '/_sim/sessions/x', { pool: 'p1' })).status).toBe(201);
    expect((await call(sim.url, 'POST', '/_sim/sessions/x', {})).status).toBe(409);
    expect((await call(sim.url, 'POST', '/_sim/sessions/off', { telemetry: false })).json).toMatchObject({
      telemetry: false,
    });
    expect((await call(sim.url, 'POST', '/_sim/sessions/x/emit?count=7')).json).toMatchObject({ lastSeq: 7, count: 7 });
    expect(
      (await call(sim.url, 'POST', '/_sim/sessions/x/emit?count=3&types=network_request,cdp_command')).json,
    ).toMatchObject({ lastSeq: 10 });
    // Types the session does not capture (console is opt-in) or that do not exist: said, not an empty success.
    expect((await call(sim.url, 'POST', '/_sim/sessions/plain', {})).status).toBe(201);
    const uncaptured = await call(sim.url, 'POST', '/_sim/sessions/plain/emit?count=2&types=console_log');
    expect(uncaptured.status).toBe(400);
    expect(JSON.stringify(uncaptured.json)).toContain('captures none of console_log');
    expect((await call(sim.url, 'POST', '/_sim/sessions/x/emit?count=1&types=no_such_type')).status).toBe(400);
    expect((await call(sim.url, 'POST', '/_sim/sessions/x/malformed?kind=envelope')).json).toMatchObject({ seq: 11 });
    await call(sim.url, 'POST', '/_sim/sessions/x/produce?rate=500');
    await new Promise((r) => setTimeout(r, 200));
    await call(sim.url, 'POST', '/_sim/sessions/x/produce?rate=0');
    const list = (await call(sim.url, 'GET', '/_sim/sessions')).json as Array<{
      id: string;
      lastSeq: number;
      emitted: number;
      ended: boolean;
      pool: string | null;
    }>;
    const x = list.find((s) => s.id === 'x');
    expect(x?.lastSeq).toBeGreaterThan(20);
    expect(x?.emitted).toBe((x?.lastSeq ?? 0) - 1);
    expect(x?.pool).toEqual(expect.any(String));
    expect((await call(sim.url, 'POST', '/_sim/sessions/x/restart')).json).toMatchObject({ lastSeq: 0 });
    expect((await call(sim.url, 'POST', '/_sim/sessions/x/end')).json).toMatchObject({ ended: true });
    expect((await call(sim.url, 'POST', '/_sim/sessions/x/emit')).status).toBe(409);
    expect((await call(sim.url, 'POST', '/_sim/sessions/nope/emit')).status).toBe(404);
    // An ended session may be created again (a new session under the same id).
    expect((await call(sim.url, 'POST', '/_sim/sessions/x', { rate: 100 })).status).toBe(201);
    expect((await call(sim.url, 'GET', '/_sim/stats')).json).toMatchObject({ requests: 0 });
  });

  it('POST /_sim/produce sets the rate of every live session at once', async () => {
    sim = await startSimulator({ seed: 5 });
    for (const id of ['a', 'b', 'gone']) sim.createSession(id);
    sim.session('gone')?.end();
    expect((await call(sim.url, 'POST', '/_sim/produce?rate=400')).json).toEqual({ sessions: 2, rate: 400 });
    await new Promise((r) => setTimeout(r, 250));
    expect((await call(sim.url, 'POST', '/_sim/produce?rate=0')).json).toEqual({ sessions: 2, rate: 0 });
    const stopped = ['a', 'b'].map((id) => sim!.session(id)!.emitted);
    for (const n of stopped) expect(n).toBeGreaterThan(20);
    await new Promise((r) => setTimeout(r, 150));
    expect(['a', 'b'].map((id) => sim!.session(id)!.emitted)).toEqual(stopped);
    expect(sim.session('gone')?.emitted).toBe(0);
    expect((await call(sim.url, 'POST', '/_sim/produce?rate=-1')).status).toBe(400);
    expect((await call(sim.url, 'POST', '/_sim/produce?rate=1&count=x')).status).toBe(400);
  });

  it('produce with a count stops by itself after exactly that many events', async () => {
    sim = await startSimulator({ seed: 6 });
    for (const id of ['a', 'b']) sim.createSession(id);
    await call(sim.url, 'POST', '/_sim/produce?rate=1000&count=40');
    await call(sim.url, 'POST', '/_sim/sessions/b/produce?rate=1000&count=70');
    await new Promise((r) => setTimeout(r, 400));
    expect(['a', 'b'].map((id) => sim!.session(id)!.emitted)).toEqual([40, 70]);
  });

  it('PUT /_sim/faults merges and validates', async () => {
    sim = await startSimulator();
    sim.createSession('s1');
    const r = await call(sim.url, 'PUT', '/_sim/faults', {
      failNext: [{ status: 429, retryAfterSeconds: 3 }],
      crlf: true,
      chunkSize: 5,
    });
    expect(r.json).toMatchObject({
      failNext: [{ status: 429, retryAfterSeconds: 3 }],
      crlf: true,
      chunkSize: 5,
      splitData: false,
      wrongContentType: 0,
    });
    expect((await call(sim.url, 'PUT', '/_sim/faults', { chunkSize: null })).json).not.toHaveProperty('chunkSize');
    expect((await call(sim.url, 'PUT', '/_sim/faults', { bogus: 1 })).status).toBe(400);
    expect((await call(sim.url, 'PUT', '/_sim/faults', { crlf: 'yes' })).status).toBe(400);
    const st = await openStream(sim.url, 's1');
    expect(st.status).toBe(429);
    expect(st.headers['retry-after']).toBe('3');
  });
});

describe('standalone process (main.ts)', () => {
  it('prints {"url"} when listening, serves the sessions, and exits 0 on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/devkit/simulator/main.ts',
        '--port',
        '0',
        '--sessions',
        'a,b',
        '--rate',
        '200',
        '--buffer',
        '50',
        '--keepalive-ms',
        '100',
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', () => reject(new Error('simulator exited early')));
    });
    const { url } = JSON.parse(line) as { url: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const st = await openStream(url, 'b', { replay: 'all' });
    const frames = await st.waitFrames(60, 10_000);
    expect(Number(frames[0]?.id)).toBeGreaterThanOrEqual(1);
    const list = (await call(url, 'GET', '/_sim/sessions')).json as Array<{ id: string }>;
    expect(list.map((s) => s.id).sort()).toEqual(['a', 'b']);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect((await st.done).clean).toBe(false);
  });
});
