// The pool resolver against the simulator's GET /browser_pools/{id_or_name} (and, for statuses the
// simulator does not produce on that route, a small real HTTP server), over real sockets.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSpec } from '../../../src/config/schema.js';
import type { AttributeValue } from '../../../src/vocabulary/log-record.js';
import { PoolResolver, type PoolSessions } from '../../../src/daemon/pool-resolver.js';
import {
  makePool,
  startSimulator,
  telemetryConfig,
  TELEMETRY_CATEGORIES,
  type Simulator,
} from '../../../src/devkit/simulator/index.js';
import { createApiKeyProvider } from '../../../src/upstream/api-key.js';
import { UpstreamClient } from '../../../src/upstream/client.js';

const KEY = 'sim-key-do-not-print';

/** A stand-in for the supervisor: a session list and the attributes it was given. */
class FakeSessions implements PoolSessions {
  specs: SessionSpec[] = [];
  attrs = new Map<string, Record<string, AttributeValue>>();
  add(id: string, pool?: string): void {
    this.specs.push({ id, attributes: {}, ...(pool ? { pool } : {}) });
  }
  followed(): Array<{ spec: SessionSpec }> {
    return this.specs.map((spec) => ({ spec }));
  }
  setSessionAttributes(id: string, attrs: Record<string, AttributeValue>): boolean {
    if (!this.specs.some((s) => s.id === id)) return false;
    this.attrs.set(id, { ...this.attrs.get(id), ...attrs });
    return true;
  }
}

interface LogLine {
  level: number;
  msg: string;
  [k: string]: unknown;
}

function capturingLogger(): { log: pino.Logger; lines: LogLine[]; text: () => string } {
  const lines: LogLine[] = [];
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString();
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as LogLine);
      cb();
    },
  });
  return { log: pino({ level: 'debug' }, sink), lines, text: () => text };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(
  opts: { url?: string; key?: string; refreshMs?: number; syncMs?: number; now?: () => number } = {},
) {
  let url = opts.url;
  let sim: Simulator | undefined;
  if (!url) {
    sim = await startSimulator({ apiKeys: [KEY] });
    cleanups.push(() => sim!.close());
    url = sim.url;
  }
  const client = new UpstreamClient({
    baseUrl: url,
    apiKey: createApiKeyProvider({ apiKey: opts.key ?? KEY }),
    connectTimeoutMs: 2000,
  });
  cleanups.push(() => client.close());
  const sessions = new FakeSessions();
  const logger = capturingLogger();
  const resolver = new PoolResolver({
    client,
    sessions,
    log: logger.log,
    refreshMs: opts.refreshMs ?? 60_000,
    syncMs: opts.syncMs ?? 60_000,
    retry: { initialMs: 50, maxMs: 200 },
    ...(opts.now ? { now: opts.now } : {}),
  });
  cleanups.push(() => resolver.stop());
  return { sim, client, sessions, resolver, ...logger };
}

async function until(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A server answering every pool lookup with `status` and an Error body; counts requests. */
async function faultServer(
  status: number,
  headers: Record<string, string> = {},
): Promise<{ url: string; requests: () => number }> {
  let n = 0;
  const server: Server = createServer((req, res) => {
    n++;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ code: `code_${status}`, message: `injected ${status}` }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => n };
}

describe('pool resolver', () => {
  it('adds pool id, name and region to every session of the pool, with one lookup per distinct pool', async () => {
    const { sim, sessions, resolver } = await setup();
    sim!.addPool(makePool({ id: 'pool_a', name: 'scrapers', region: 'eu-west' }));
    sim!.addPool(makePool({ id: 'pool_b', name: 'other', region: 'us-east' }));
    sessions.add('s1', 'scrapers');
    sessions.add('s2', 'scrapers');
    sessions.add('s3', 'pool_b');
    sessions.add('s4');
    resolver.start();
    await until(() => sessions.attrs.size === 3);
    expect(sessions.attrs.get('s1')).toEqual({
      'browser.pool.id': 'pool_a',
      'browser.pool.name': 'scrapers',
      'cloud.region': 'eu-west',
    });
    expect(sessions.attrs.get('s2')).toEqual(sessions.attrs.get('s1'));
    expect(sessions.attrs.get('s3')).toEqual({
      'browser.pool.id': 'pool_b',
      'browser.pool.name': 'other',
      'cloud.region': 'us-east',
    });
    expect(sessions.attrs.has('s4')).toBe(false);
    expect(sim!.stats.requests).toBe(2);
    expect(resolver.poolStatus()).toMatchObject([
      { ref: 'pool_b', sessions: ['s3'], state: 'resolved', pool: { id: 'pool_b', name: 'other', region: 'us-east' } },
      { ref: 'scrapers', sessions: ['s1', 's2'], state: 'resolved', pool: { id: 'pool_a' } },
    ]);
  });

  it('warns once per pool per condition across refreshes, and again only when a condition is new', async () => {
    const { sim, sessions, resolver, lines } = await setup({ refreshMs: 100 });
    const allOff = Object.fromEntries(TELEMETRY_CATEGORIES.map((c) => [c, false]));
    const pool = makePool({
      id: 'pool_q',
      name: 'quiet',
      browser_pool_config: { telemetry: telemetryConfig(allOff, ['Input.insertText']) },
    });
    sim!.addPool(pool);
    sessions.add('s1', 'quiet');
    sessions.add('s2', 'quiet');
    resolver.start();
    await until(() => sim!.stats.requests >= 4);
    const conditions = (): unknown[] =>
      lines.filter((l) => l.condition !== undefined).map((l) => [l.condition, l.level]);
    expect(conditions()).toEqual([
      ['telemetry-off', 40],
      ['cdp-excluded', 30],
    ]);
    expect(lines.find((l) => l.condition === 'cdp-excluded')?.msg).toContain('Input.insertText');
    expect(resolver.poolStatus()[0]?.findings.map((f) => f.level)).toEqual(['warn', 'info']);

    // The pool starts exporting OTLP itself: one new warning, the old ones are not repeated.
    pool.browser_pool_config.telemetry!.export = { otlp: { enabled: true, destination: 'dest-9' } };
    const before = sim!.stats.requests;
    await until(() => sim!.stats.requests >= before + 3);
    expect(conditions()).toEqual([
      ['telemetry-off', 40],
      ['cdp-excluded', 30],
      ['otlp-export', 40],
    ]);
    expect(lines.find((l) => l.condition === 'otlp-export')?.msg).toContain('twice');
  });

  it('refreshes: a changed pool changes the attributes', async () => {
    const { sim, sessions, resolver } = await setup({ refreshMs: 100 });
    const pool = makePool({ id: 'pool_r', name: 'before', region: 'us-east' });
    sim!.addPool(pool);
    sessions.add('s1', 'pool_r');
    resolver.start();
    await until(() => sessions.attrs.get('s1')?.['browser.pool.name'] === 'before');
    pool.name = 'after';
    pool.region = 'eu-west';
    await until(() => sessions.attrs.get('s1')?.['browser.pool.name'] === 'after');
    expect(sessions.attrs.get('s1')?.['cloud.region']).toBe('eu-west');
  });

  it('sessions added later get known attributes at the next sync, without another lookup', async () => {
    const { sim, sessions, resolver } = await setup({ syncMs: 50 });
    sim!.addPool(makePool({ id: 'pool_s', name: 'shared' }));
    sessions.add('s1', 'shared');
    resolver.start();
    await until(() => sessions.attrs.has('s1'));
    sessions.add('s2', 'shared');
    await until(() => sessions.attrs.has('s2'));
    expect(sim!.stats.requests).toBe(1);
    // A pool reference nobody uses any more is dropped from the status.
    sessions.specs = [];
    await until(() => resolver.poolStatus().length === 0);
  });

  it.each([
    [401, 'unauthorized'],
    [404, 'not_found'],
  ])('a %i from the service is recorded and logged without the key, and never throws', async (status, code) => {
    const { sim, sessions, resolver, lines, text } = await setup({
      key: status === 401 ? 'wrong-key-do-not-print' : KEY,
    });
    sim!.addPool(makePool({ id: 'pool_x' }));
    sessions.add('s1', status === 404 ? 'no-such-pool' : 'pool_x');
    resolver.start();
    await until(() => resolver.poolStatus()[0]?.state === 'error');
    const st = resolver.poolStatus()[0]!;
    expect(st.lastError).toMatchObject({ status, code });
    expect(sessions.attrs.size).toBe(0);
    const err = lines.find((l) => l.level === 50);
    expect(err).toMatchObject({ status, code, pool: st.ref });
    expect(String(err?.error)).toContain(`${status} ${code}`);
    expect(text()).not.toContain('do-not-print');
  });

  it.each([403, 500, 503])('a %i is recorded; transient ones are retried with backoff', async (status) => {
    const fault = await faultServer(status);
    const { sessions, resolver, lines } = await setup({ url: fault.url });
    sessions.add('s1', 'p');
    resolver.start();
    await until(() => resolver.poolStatus()[0]?.state === 'error');
    expect(resolver.poolStatus()[0]?.lastError).toMatchObject({
      status,
      code: `code_${status}`,
      message: `injected ${status}`,
    });
    if (status >= 500) {
      await until(() => fault.requests() >= 3);
      // The same error again is not news: one error line, the repeats at debug.
      expect(lines.filter((l) => l.level === 50)).toHaveLength(1);
    } else {
      await new Promise((r) => setTimeout(r, 300));
      expect(fault.requests()).toBe(1);
    }
  });

  it('429 waits for Retry-After before asking again', async () => {
    const fault = await faultServer(429, { 'retry-after': '1' });
    const { sessions, resolver, lines } = await setup({ url: fault.url });
    sessions.add('s1', 'p');
    resolver.start();
    await until(() => fault.requests() === 1);
    await new Promise((r) => setTimeout(r, 600));
    expect(fault.requests()).toBe(1);
    await until(() => fault.requests() === 2, 3000);
    expect(lines[0]).toMatchObject({ level: 40, status: 429, retryInMs: 1000 });
  });

  it('network errors are recorded; stop() cancels what is pending and is idempotent', async () => {
    const fault = await faultServer(500);
    const closedUrl = fault.url;
    await cleanups.pop()!(); // close the server: connections are now refused
    const { sessions, resolver } = await setup({ url: closedUrl });
    sessions.add('s1', 'p');
    resolver.start();
    await until(() => resolver.poolStatus()[0]?.state === 'error');
    expect(resolver.poolStatus()[0]?.lastError).toMatchObject({ code: 'network_error', message: 'ECONNREFUSED' });
    expect(resolver.poolStatus()[0]?.lastError?.status).toBeUndefined();
    await resolver.stop();
    await resolver.stop();
    resolver.sync();
    expect(resolver.poolStatus()[0]?.state).toBe('error');
  });

  it('a stored reference no request can ask for is refused once, never requested nor retried; the other pools are looked up', async () => {
    // A session stored by a version that took the list's pools unchecked: `..` was refused by the
    // client and retried for ever as a network error.
    const fault = await faultServer(404);
    const { sessions, resolver, lines } = await setup({ url: fault.url });
    sessions.add('s1', '..');
    sessions.add('s2', 'x\u001b]0;title\u0007');
    sessions.add('s3', 'fine');
    resolver.start();
    await until(() => fault.requests() === 1);
    await new Promise((r) => setTimeout(r, 500));
    resolver.sync();
    expect(fault.requests()).toBe(1);
    expect(resolver.poolStatus()).toMatchObject([
      { ref: '..', state: 'error', sessions: ['s1'], lastError: { code: 'invalid_reference' } },
      { ref: 'fine', state: 'error', lastError: { status: 404 } },
      {
        ref: 'x\u001b]0;title\u0007',
        state: 'error',
        lastError: {
          code: 'invalid_reference',
          message: 'cannot be requested: it contains a control character (U+001B)',
        },
      },
    ]);
    const refused = lines.filter((l) => l.msg.includes('cannot be requested'));
    expect(refused.map((l) => l.msg)).toEqual([
      'pool ".." cannot be requested (it is dots only, which a URL reads as a path step): never looked up; delivery continues without pool attributes',
      'pool "x\ufffd]0;title\ufffd" cannot be requested (it contains a control character (U+001B)): never looked up; delivery continues without pool attributes',
    ]);
    expect(lines.some((l) => l.code === 'network_error')).toBe(false);
  });

  it('recovers: attributes appear once the lookup succeeds again', async () => {
    const { sim, sessions, resolver, lines } = await setup({ refreshMs: 100 });
    sessions.add('s1', 'late');
    resolver.start();
    await until(() => resolver.poolStatus()[0]?.state === 'error');
    sim!.addPool(makePool({ id: 'pool_late', name: 'late' }));
    await until(() => sessions.attrs.has('s1'));
    expect(resolver.poolStatus()[0]).toMatchObject({ state: 'resolved', pool: { id: 'pool_late' } });
    expect(resolver.poolStatus()[0]?.lastError).toBeUndefined();
    expect(lines.some((l) => l.msg === 'pool lookup succeeds again')).toBe(true);
  });

  it('stamps lookups, resolutions and errors with the injected clock', async () => {
    // A clock far from the wall's: a stamp taken from new Date() would not be this one.
    let now = Date.parse('2001-02-03T04:05:06.000Z');
    const { sim, sessions, resolver } = await setup({ refreshMs: 100, now: () => now });
    sessions.add('s1', 'late');
    sessions.add('s2', '..');
    resolver.start();
    await until(() =>
      resolver.poolStatus().every((p) => (p.state === 'error' && p.lastLookupAt !== undefined) || p.ref === '..'),
    );
    expect(resolver.poolStatus()).toMatchObject([
      { ref: '..', lastError: { code: 'invalid_reference', at: '2001-02-03T04:05:06.000Z' } },
      {
        ref: 'late',
        lastLookupAt: '2001-02-03T04:05:06.000Z',
        lastError: { status: 404, at: '2001-02-03T04:05:06.000Z' },
      },
    ]);
    now += 60_000;
    sim!.addPool(makePool({ id: 'pool_late', name: 'late' }));
    await until(() => sessions.attrs.has('s1'));
    expect(resolver.poolStatus()[1]).toMatchObject({
      state: 'resolved',
      lastLookupAt: '2001-02-03T04:06:06.000Z',
      lastResolvedAt: '2001-02-03T04:06:06.000Z',
    });
  });
});
