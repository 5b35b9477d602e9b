// The control API beyond loopback, on real sockets: closed without a token (health and metrics stay
// open), open with the documented opt-out, token-checked with a token; and bad percent-encoding.
import { describe, expect, it } from 'vitest';
import { startInProcess, worldPerTest } from './bridge-harness.js';

const t = worldPerTest();

/** The surface listens on every interface; requests still go to loopback. */
const wildcard = { BRIDGE_LISTEN: '0.0.0.0:0' };
const local = (url: string): string => url.replace('0.0.0.0', '127.0.0.1');

async function status(path: string, init: RequestInit = {}): Promise<{ status: number; body: string }> {
  const res = await fetch(`${local(t.running!.url)}${path}`, init);
  return { status: res.status, body: await res.text() };
}

describe('control API beyond loopback', () => {
  it('without a token: health, readiness and metrics answer; every control route is refused with 403 and why', async () => {
    t.running = await startInProcess(t.world, {}, wildcard);
    expect(t.running.http.control.mode).toBe('closed');
    expect((await status('/healthz')).status).toBe(200);
    expect((await status('/readyz')).status).toBe(200);
    expect((await status('/metrics')).status).toBe(200);
    for (const [path, init] of [
      ['/v1/sessions', {}],
      ['/v1/sessions/s1', {}],
      ['/v1/sessions/s1', { method: 'PUT', body: '{}' }],
      ['/v1/sessions/s1', { method: 'DELETE' }],
    ] as const) {
      const r = await status(path, init);
      expect(r.status, `${init.method ?? 'GET'} ${path}`).toBe(403);
      expect(JSON.parse(r.body)).toEqual({ code: 'forbidden', message: expect.stringMatching(/BRIDGE_CONTROL_TOKEN.*BRIDGE_CONTROL_INSECURE=true/) });
    }
    // The refused PUT followed nothing.
    expect(t.running.bridge.supervisor.status()).toEqual([]);
  });

  it('with the opt-out the control API answers without a token', async () => {
    t.running = await startInProcess(t.world, {}, wildcard, { insecure: true });
    expect(t.running.http.control.mode).toBe('open-insecure');
    expect((await status('/v1/sessions')).status).toBe(200);
  });

  it('with a token it is required, and enough', async () => {
    t.running = await startInProcess(t.world, {}, { ...wildcard, BRIDGE_CONTROL_TOKEN: 'tkn' });
    expect((await status('/v1/sessions')).status).toBe(401);
    expect((await status('/v1/sessions', { headers: { authorization: 'Bearer tkn' } })).status).toBe(200);
  });

  it('on loopback without a token the control API stays open, as before', async () => {
    t.running = await startInProcess(t.world);
    expect(t.running.http.control.mode).toBe('open-loopback');
    expect((await status('/v1/sessions')).status).toBe(200);
  });
});

describe('malformed session ids', () => {
  it('a bad percent-encoding answers 400 in the Error shape, not 500', async () => {
    t.running = await startInProcess(t.world);
    for (const [path, method] of [['/v1/sessions/%zz', 'GET'], ['/v1/sessions/abc%', 'PUT'], ['/v1/sessions/%E0%A4%A', 'DELETE']] as const) {
      const r = await status(path, { method, ...(method === 'PUT' ? { body: '{}' } : {}) });
      expect(r.status, `${method} ${path}`).toBe(400);
      expect(JSON.parse(r.body)).toEqual({ code: 'invalid_input', message: 'session id is not valid percent-encoding' });
    }
  });
});
