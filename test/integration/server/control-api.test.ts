// The control API on real sockets: bearer token, the Error shape, bad input, PUT/DELETE semantics.
import { beforeEach, describe, expect, it } from 'vitest';
import { eventually, followedIds, startInProcess, worldPerTest } from './bridge-harness.js';

const t = worldPerTest();

const TOKEN = 'control-token-for-tests';
const auth = { authorization: `Bearer ${TOKEN}` };

async function call(
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(`${t.running!.url}${path}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

/** The session service's Error shape: exactly {code, message}, both non-empty strings. */
function expectError(body: unknown, code: string, message?: RegExp): void {
  expect(Object.keys(body as object).sort()).toEqual(['code', 'message']);
  const e = body as { code: string; message: string };
  expect(e.code).toBe(code);
  expect(e.message.length).toBeGreaterThan(0);
  if (message) expect(e.message).toMatch(message);
}

describe('control API with a token', () => {
  beforeEach(async () => {
    t.running = await startInProcess(t.world, {}, { BRIDGE_CONTROL_TOKEN: TOKEN });
  });

  it('answers 401 in the Error shape without the token or with a wrong one, for every /v1 method', async () => {
    for (const [path, init] of [
      ['/v1/sessions', {}],
      ['/v1/sessions/s1', { method: 'PUT', body: '{}' }],
      ['/v1/sessions/s1', { method: 'DELETE' }],
    ] as const) {
      const r = await call(path, init);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
      expect(r.headers.get('content-type')).toBe('application/json');
      expectError(r.body, 'unauthorized');
    }
    const wrong = await call('/v1/sessions', { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).toBe(401);
    const basic = await call('/v1/sessions', {
      headers: { authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}` },
    });
    expect(basic.status).toBe(401);
    // A refused PUT must not have followed anything.
    expect(await followedIds(t.running!.url, TOKEN)).toEqual([]);
  });

  it('accepts the bearer token; health and metrics stay open for probes and scrapers', async () => {
    const ok = await call('/v1/sessions', { headers: auth });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ sessions: [], spool: { records: 0 } });
    expect((await call('/v1/sessions', { headers: { authorization: `bearer ${TOKEN}` } })).status).toBe(200);
    expect((await fetch(`${t.running!.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${t.running!.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${t.running!.url}/metrics`)).status).toBe(200);
  });
});

describe('control API without a token', () => {
  beforeEach(async () => {
    t.running = await startInProcess(t.world);
  });

  it('rejects bad input with 400 and a message naming the problem', async () => {
    const put = (path: string, body: string): Promise<{ status: number; body: unknown }> =>
      call(path, { method: 'PUT', body, headers: { 'content-type': 'application/json' } });

    const badId = await put('/v1/sessions/has%20space', '{}');
    expect(badId.status).toBe(400);
    expectError(badId.body, 'invalid_input', /session id/);
    expect((await call('/v1/sessions/' + 'x'.repeat(129), { method: 'DELETE' })).status).toBe(400);

    const badJson = await put('/v1/sessions/s1', '{"pool": ');
    expect(badJson.status).toBe(400);
    expectError(badJson.body, 'invalid_json', /JSON/);

    const unknownKey = await put('/v1/sessions/s1', '{"pol": "p"}');
    expect(unknownKey.status).toBe(400);
    expectError(unknownKey.body, 'invalid_input', /body\.pol: unknown key/);

    const badStart = await put('/v1/sessions/s1', '{"start": "yesterday"}');
    expect(badStart.status).toBe(400);
    expectError(badStart.body, 'invalid_input', /body\.start/);

    const badAttr = await put('/v1/sessions/s1', '{"attributes": {"team": {"nested": true}}}');
    expect(badAttr.status).toBe(400);
    expectError(badAttr.body, 'invalid_input', /body\.attributes\.team/);

    const notObject = await put('/v1/sessions/s1', '["s1"]');
    expect(notObject.status).toBe(400);
    expectError(notObject.body, 'invalid_input', /JSON object/);

    const tooBig = await put('/v1/sessions/s1', JSON.stringify({ attributes: { big: 'x'.repeat(70_000) } }));
    expect(tooBig.status).toBe(413);
    expectError(tooBig.body, 'body_too_large');

    const wrongMethod = await call('/v1/sessions', { method: 'POST', body: '{}' });
    expect(wrongMethod.status).toBe(405);
    expectError(wrongMethod.body, 'method_not_allowed');
    expectError((await call('/nowhere')).body, 'not_found');

    // None of the refused requests followed anything.
    expect(await followedIds(t.running!.url)).toEqual([]);
  });

  // RFC 9110: HEAD is GET without the body (a load balancer's or uptime checker's probe), and a
  // method a route does not take is 405 with the methods it does take in Allow, not "no route" 404.
  it('HEAD answers as GET without a body; another method on a route is 405 naming the allowed ones', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/v1/sessions']) {
      const get = await fetch(`${t.running!.url}${path}`);
      const head = await fetch(`${t.running!.url}${path}`, { method: 'HEAD' });
      expect([path, head.status, head.headers.get('content-type')]).toEqual([
        path,
        get.status,
        get.headers.get('content-type'),
      ]);
      expect(await head.text()).toBe('');
    }
    for (const [method, path, allow] of [
      ['POST', '/healthz', 'GET, HEAD'],
      ['DELETE', '/readyz', 'GET, HEAD'],
      ['PUT', '/metrics', 'GET, HEAD'],
      ['POST', '/v1/sessions', 'GET, HEAD'],
      ['PATCH', '/v1/sessions/s1', 'GET, HEAD, PUT, DELETE'],
      ['POST', '/v1/sessions/s1', 'GET, HEAD, PUT, DELETE'],
    ] as const) {
      const r = await call(path, { method });
      expect([method, path, r.status, r.headers.get('allow')]).toEqual([method, path, 405, allow]);
      expectError(r.body, 'method_not_allowed');
    }
    expect(await followedIds(t.running!.url)).toEqual([]);
  });

  // An absolute-form target that is no URL (Node's parser lets it through) is the client's mistake:
  // it was a 500 and an error log line per request, a flood any client could cause.
  it('a request target that is not a URL is 400 invalid_input, not a 500', async () => {
    const { connect } = await import('node:net');
    const { port } = new URL(t.running!.url);
    for (const target of ['http://[::1/healthz', 'http://x:99999/v1/sessions', 'http://%zz/metrics']) {
      const answer = await new Promise<string>((resolve, reject) => {
        const c = connect(Number(port), '127.0.0.1', () =>
          c.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
        );
        let out = '';
        c.on('data', (d: Buffer) => (out += d.toString()));
        c.on('error', reject);
        c.on('close', () => resolve(out));
      });
      expect([target, answer.split('\r\n')[0]]).toEqual([target, 'HTTP/1.1 400 Bad Request']);
      expectError(
        JSON.parse(answer.slice(answer.indexOf('{'), answer.lastIndexOf('}') + 1)),
        'invalid_input',
        /not a valid URL/,
      );
    }
  });

  it('PUT creates (201), PUT again updates in place (200), DELETE stops (204) and then 404', async () => {
    const s = t.world.sim.createSession('s1');
    const created = await call('/v1/sessions/s1', {
      method: 'PUT',
      body: JSON.stringify({ start: 'oldest', attributes: { team: 'a' } }),
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: 's1', source: 'api' });

    s.emit(5);
    await t.world.receiver.waitFor((rs) => rs.filter((r) => r.attributes['team'] === 'a').length === 5);

    const updated = await call('/v1/sessions/s1', {
      method: 'PUT',
      body: JSON.stringify({ attributes: { team: 'b' } }),
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: 's1', source: 'api' });
    s.emit(5);
    // The new attributes apply to later records; the stream was not reconnected for it.
    await t.world.receiver.waitFor((rs) => rs.filter((r) => r.attributes['team'] === 'b').length === 5);
    // (PUT also asks the service whether the session exists: count stream connections, not sockets.)
    expect((await call('/v1/sessions/s1')).body).toMatchObject({ reconnects: {} });

    const one = await call('/v1/sessions/s1');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      id: 's1',
      state: 'streaming',
      lastReceivedSeq: 10,
      lastDeliveredSeq: 10,
      received: 10,
    });

    const list = await call('/v1/sessions');
    expect((list.body as { sessions: unknown[] }).sessions).toHaveLength(1);

    const del = await call('/v1/sessions/s1', { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await call('/v1/sessions/s1')).body).toMatchObject({ id: 's1', state: 'stopped' });
    const again = await call('/v1/sessions/s1', { method: 'DELETE' });
    expect(again.status).toBe(404);
    expectError(again.body, 'not_found', /s1/);
    expectError((await call('/v1/sessions/never-seen')).body, 'not_found');
  });

  it('PUT with start "latest" skips what the service retained before', async () => {
    const s = t.world.sim.createSession('late');
    s.emit(20);
    expect((await call('/v1/sessions/late', { method: 'PUT', body: '{"start": "latest"}' })).status).toBe(201);
    await eventually(
      async () => ((await call('/v1/sessions/late')).body as { state: string }).state === 'streaming' || undefined,
      'stream open',
    );
    s.emit(3);
    await t.world.receiver.waitFor((rs) => rs.length === 3);
    expect(t.world.receiver.records.map((r) => r.attributes['browser.telemetry.seq'])).toEqual([21, 22, 23]);
  });
});

describe('sessions added at run time', () => {
  it('survive a restart from the same state directory; a deleted one does not come back', async () => {
    const keep = t.world.sim.createSession('keep');
    t.world.sim.createSession('drop');
    t.running = await startInProcess(t.world);
    expect(
      (await call('/v1/sessions/keep', { method: 'PUT', body: '{"attributes": {"added": "at-run-time"}}' })).status,
    ).toBe(201);
    expect((await call('/v1/sessions/drop', { method: 'PUT' })).status).toBe(201);
    keep.emit(4);
    await t.world.receiver.waitFor((rs) => rs.length === 4);
    expect((await call('/v1/sessions/drop', { method: 'DELETE' })).status).toBe(204);
    await t.running.stop();

    // Same state dir, same (session-less) configuration: only the store knows about "keep".
    t.running = await startInProcess(t.world);
    await eventually(
      async () => ((await call('/v1/sessions/keep')).body as { state: string }).state === 'streaming' || undefined,
      'keep followed again',
    );
    expect(await followedIds(t.running.url)).toEqual(['keep']);
    expect((await call('/v1/sessions/keep')).body).toMatchObject({ source: 'api', lastDeliveredSeq: 4 });
    keep.emit(3);
    await t.world.receiver.waitFor((rs) => rs.length === 7);
    // Resumed after its checkpoint with the attributes it was added with: no replay, no loss.
    expect(t.world.receiver.records.map((r) => r.attributes['browser.telemetry.seq'])).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(t.world.receiver.records.every((r) => r.attributes['added'] === 'at-run-time')).toBe(true);
  });
});
