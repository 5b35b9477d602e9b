// The poll loop's decisions with a fake list and a fake store: when the deleted list is read and
// which deleted sessions are taken, a refused claim, and what a failed walk records.
import { describe, expect, it } from 'vitest';
import type { SessionSpec } from '../../../src/config/schema.js';
import { CLOCK_MARGIN_MS, DiscoveryLoop } from '../../../src/discovery/discovery-loop.js';
import type { ListPageResult } from '../../../src/upstream/client.js';
import type { BrowserListQuery, ListedSession } from '../../../src/upstream/browser-list.js';
import type { DiscoveryClaim } from '../../../src/store/store.js';
import type { Fact } from '../../../src/vocabulary/facts.js';

const INTERVAL = 1000;
const NOW = Date.parse('2026-08-01T12:00:00Z');

function world(o: {
  live?: ListedSession[];
  deleted?: ListedSession[];
  lastSuccessAt: number | null;
  claimed?: boolean;
  fail?: ListPageResult;
  collectorUrl?: string;
}) {
  const queries: BrowserListQuery[] = [];
  const added: SessionSpec[][] = [];
  const recorded: number[] = [];
  const facts: Fact[] = [];
  let last = o.lastSuccessAt;
  const loop = new DiscoveryLoop({
    config: { enabled: true, tags: { team: 'a' }, intervalMs: INTERVAL, start: 'oldest' },
    backoff: { initialMs: 10, maxMs: 100, authMs: 1000 },
    ...(o.collectorUrl !== undefined ? { collectorUrl: o.collectorUrl } : {}),
    emit: (f) => facts.push(f),
    host: {
      discovered: async (specs) => {
        added.push([...specs]);
        return specs.map((s) => s.id);
      },
    },
    store: {
      claimDiscoveryPoll: async (): Promise<DiscoveryClaim> => ({
        claimed: o.claimed ?? true,
        lastSuccessAt: last,
        now: NOW,
      }),
      recordDiscoveryPoll: async (t) => {
        recorded.push(t);
        last = t;
      },
    },
    client: {
      listBrowsers: async (q) => {
        queries.push(q);
        if (o.fail) return o.fail;
        return {
          kind: 'ok',
          sessions: q.status === 'deleted' ? (o.deleted ?? []) : (o.live ?? []),
          invalid: 0,
          nextOffset: undefined,
        };
      },
    },
  });
  return {
    loop,
    queries,
    added,
    recorded,
    facts,
    setLast: (t: number) => {
      last = t;
    },
  };
}

describe('discovery poll', () => {
  it('the first poll ever reads only the live list (nothing can have been missed) and records its start', async () => {
    const w = world({ live: [{ id: 'a', tags: {}, pool: { id: 'p1', name: 'agents' } }], lastSuccessAt: null });
    expect(await w.loop.pollOnce()).toEqual({ outcome: 'ok', delayMs: INTERVAL });
    expect(w.queries.map((q) => q.status)).toEqual([undefined]);
    expect(w.queries[0]).toMatchObject({ limit: 100, offset: 0, tags: { team: 'a' } });
    expect(w.added).toEqual([[{ id: 'a', start: 'oldest', attributes: {}, pool: 'p1' }]]);
    expect(w.recorded).toEqual([NOW]);
    expect(w.facts).toContainEqual({ f: 'sessions_discovered', sessions: ['a'], deleted: false });
  });

  it('a discovered session that exports its telemetry itself is warned about once, naming the same collector', async () => {
    const w = world({
      lastSuccessAt: null,
      collectorUrl: 'http://collector:4318/v1/logs',
      live: [
        { id: 'self', tags: {}, otlpExport: { enabled: true, destination: 'http://collector:4318' } },
        { id: 'elsewhere', tags: {}, otlpExport: { enabled: true, destination: 'prod' } },
        { id: 'off', tags: {}, otlpExport: { enabled: false } },
        { id: 'quiet', tags: {} },
      ],
    });
    await w.loop.pollOnce();
    const warned = w.facts.filter((f) => f.f === 'session_exports_otlp');
    expect(warned).toEqual([
      { f: 'session_exports_otlp', session: 'self', destination: 'http://collector:4318', sameCollector: true },
      { f: 'session_exports_otlp', session: 'elsewhere', destination: 'prod', sameCollector: false },
    ]);
  });

  it('after a restart: the deleted list too, taking sessions deleted since the last success minus the clock margin', async () => {
    const last = NOW - 3_600_000;
    const w = world({
      lastSuccessAt: last,
      deleted: [
        { id: 'recent', tags: {}, deletedAt: last + 1 },
        { id: 'skewed', tags: {}, deletedAt: last - CLOCK_MARGIN_MS + 1 },
        { id: 'old', tags: {}, deletedAt: last - CLOCK_MARGIN_MS - 1 },
        { id: 'no-time', tags: {} },
      ],
    });
    await w.loop.pollOnce();
    expect(w.queries.map((q) => q.status)).toEqual([undefined, 'deleted']);
    expect(w.added.flat().map((s) => s.id)).toEqual(['recent', 'skewed', 'no-time']);
    expect(w.facts).toContainEqual({
      f: 'sessions_discovered',
      sessions: ['recent', 'skewed', 'no-time'],
      deleted: true,
    });
    // The next poll, right after, reads the live list only.
    w.queries.length = 0;
    await w.loop.pollOnce();
    expect(w.queries.map((q) => q.status)).toEqual([undefined]);
  });

  it('a gap in polling longer than two intervals (a service outage) makes the next poll read the deleted list again', async () => {
    const w = world({ lastSuccessAt: NOW - 500 });
    await w.loop.pollOnce(); // the first of this process sweeps
    await w.loop.pollOnce(); // a steady one does not
    w.setLast(NOW - 2 * INTERVAL + 1);
    await w.loop.pollOnce(); // within two intervals: no
    w.setLast(NOW - 2 * INTERVAL - 1);
    await w.loop.pollOnce(); // nobody polled for longer: sweep
    expect(w.queries.map((q) => q.status)).toEqual([undefined, 'deleted', undefined, undefined, undefined, 'deleted']);
  });

  it('a refused claim reads nothing and waits one interval', async () => {
    const w = world({ lastSuccessAt: NOW - 10, claimed: false });
    expect(await w.loop.pollOnce()).toEqual({ outcome: 'skipped', delayMs: INTERVAL });
    expect(w.queries).toEqual([]);
    expect(w.recorded).toEqual([]);
  });

  it('a failed walk records nothing: 429 waits Retry-After, 404 waits long, 5xx backs off', async () => {
    const r429 = world({
      lastSuccessAt: null,
      fail: { kind: 'error', status: 429, error: { code: 'rate_limited', message: 'slow down' }, retryAfterMs: 7000 },
    });
    expect(await r429.loop.pollOnce()).toEqual({ outcome: 'rate_limited', delayMs: 7000 });
    expect(r429.recorded).toEqual([]);
    const r404 = world({
      lastSuccessAt: null,
      fail: { kind: 'error', status: 404, error: { code: 'not_found', message: 'no route' } },
    });
    expect((await r404.loop.pollOnce()).delayMs).toBeGreaterThanOrEqual(60_000);
    const r503 = world({
      lastSuccessAt: null,
      fail: { kind: 'error', status: 503, error: { code: 'x', message: 'y' } },
    });
    const d = await r503.loop.pollOnce();
    expect(d.outcome).toBe('server_error');
    expect(d.delayMs).toBeLessThanOrEqual(100);
    expect(r503.facts.at(-1)).toMatchObject({ f: 'discovery_polled', outcome: 'server_error', status: 503, streak: 1 });
  });
});
