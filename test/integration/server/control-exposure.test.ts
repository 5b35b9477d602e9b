// The control API beyond loopback, on real sockets: closed without a token (health and metrics stay
// open), open with the documented opt-out, token-checked with a token; and bad percent-encoding.
import { request as httpRequest } from 'node:http';
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
      expect(JSON.parse(r.body)).toEqual({
        code: 'forbidden',
        message: expect.stringMatching(/BRIDGE_CONTROL_TOKEN.*BRIDGE_CONTROL_INSECURE=true/),
      });
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
    for (const [path, method] of [
      ['/v1/sessions/%zz', 'GET'],
      ['/v1/sessions/abc%', 'PUT'],
      ['/v1/sessions/%E0%A4%A', 'DELETE'],
    ] as const) {
      const r = await status(path, { method, ...(method === 'PUT' ? { body: '{}' } : {}) });
      expect(r.status, `${method} ${path}`).toBe(400);
      expect(JSON.parse(r.body)).toEqual({
        code: 'invalid_input',
        message: 'session id is not valid percent-encoding',
      });
    }
  });
});

/** A raw request: node:http lets a test send any Host and Origin, as a rebinding browser would. */
function raw(
  path: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  const u = new URL(local(t.running!.url) + path);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method, headers }, (res) => {
      let text = '';
      res
        .setEncoding('utf8')
        .on('data', (c: string) => {
          text += c;
        })
        .on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('DNS rebinding on loopback', () => {
  it('a foreign Host is refused on every route, a foreign Origin on control routes; the bridge follows nothing', async () => {
    t.running = await startInProcess(t.world);
    const port = new URL(t.running.url).port;
    for (const headers of <Array<Record<string, string>>>[
      { host: `rebind.attacker.example:${port}` },
      { host: `127.0.0.1:${port}`, origin: 'http://rebind.attacker.example' },
      { host: `localhost:${port}`, origin: `http://rebind.attacker.example:${port}` },
      { host: `127.0.0.1:${port}`, origin: 'null' },
    ]) {
      const put = await raw('/v1/sessions/x', 'PUT', headers, '{}');
      expect(put.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(put.body).code).toBe('forbidden');
      // The way in named by the keys an operator sets (it said control.allowed_hosts, which is no key).
      expect(JSON.parse(put.body).message).toContain('control_allowed_hosts (BRIDGE_CONTROL_ALLOWED_HOSTS)');
      expect((await raw('/v1/sessions', 'GET', headers)).status).toBe(403);
    }
    expect((await raw('/metrics', 'GET', { host: `rebind.attacker.example:${port}` })).status).toBe(403);
    expect(t.running.bridge.supervisor.status()).toEqual([]);
  });

  it.each<[Record<string, string>]>([
    [{ host: '127.0.0.1' }],
    [{ host: 'LOCALHOST' }],
    [{ host: '[::1]' }],
    [{ host: '127.0.0.1', origin: 'http://localhost:3000' }],
  ])('loopback names and same-host origins still work: %j', async (headers) => {
    t.running = await startInProcess(t.world);
    const port = new URL(t.running.url).port;
    const h = { ...headers, host: `${headers.host}:${port}` };
    expect((await raw('/v1/sessions', 'GET', h)).status).toBe(200);
  });

  it('a name in control_allowed_hosts is served', async () => {
    t.running = await startInProcess(t.world, { control_allowed_hosts: ['bridge.internal'] });
    const port = new URL(t.running.url).port;
    expect(
      (await raw('/v1/sessions', 'GET', { host: `bridge.internal:${port}`, origin: 'https://bridge.internal' })).status,
    ).toBe(200);
    expect((await raw('/v1/sessions', 'GET', { host: `other.internal:${port}` })).status).toBe(403);
  });

  it('beyond loopback with a token, a cross-site Origin is refused even with the token', async () => {
    t.running = await startInProcess(t.world, {}, { ...wildcard, BRIDGE_CONTROL_TOKEN: 'tkn' });
    const port = new URL(local(t.running.url)).port;
    const auth = { authorization: 'Bearer tkn', host: `bridge.example:${port}` };
    expect((await raw('/v1/sessions', 'GET', auth)).status).toBe(200);
    expect((await raw('/v1/sessions', 'GET', { ...auth, origin: 'http://evil.example' })).status).toBe(403);
  });
});
