// The poll loop's decisions with a fake list, a fake store and an injected clock: which walks a
// poll makes (the newest down to a cutoff, the whole live list at a process's first poll and every
// FULL_WALK_MS), which sessions it takes (short ones that ended between two polls included), how
// far it reads (pages that follow new sessions, not the whole list, when the list is newest first),
// a refused claim, and what a failed walk records.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SessionSpec } from '../../../src/config/schema.js';
import { CLOCK_MARGIN_MS, DiscoveryLoop, FULL_WALK_MS, LIST_LAG_MS } from '../../../src/discovery/discovery-loop.js';
import type { ListPageResult } from '../../../src/upstream/client.js';
import type { BrowserListQuery, ListedSession } from '../../../src/upstream/browser-list.js';
import type { DiscoveryClaim } from '../../../src/store/store.js';
import type { Fact } from '../../../src/vocabulary/facts.js';

const INTERVAL = 1000;
const NOW = Date.parse('2026-08-01T12:00:00Z');

/** A session created `ageMs` before NOW, deleted `deletedAgoMs` before NOW when given. */
const at = (id: string, ageMs: number, deletedAgoMs?: number): ListedSession => ({
  id,
  tags: {},
  createdAt: NOW - ageMs,
  ...(deletedAgoMs !== undefined ? { deletedAt: NOW - deletedAgoMs } : {}),
});

function world(o: {
  sessions?: ListedSession[];
  lastSuccessAt: number | null;
  claimed?: boolean;
  fail?: ListPageResult;
  /** The list's order: newest first (the simulator's), or as given. */
  order?: 'newest' | 'as-given';
  /** Statuses the service answers 400 (`default`: a request without one). */
  refuse?: ReadonlyArray<'active' | 'deleted' | 'all' | 'default'>;
  collectorUrl?: string;
}) {
  const queries: BrowserListQuery[] = [];
  const added: SessionSpec[][] = [];
  const recorded: number[] = [];
  const facts: Fact[] = [];
  const known = new Set<string>();
  let last = o.lastSuccessAt;
  let clock = NOW;
  const sessions = o.sessions ?? [];
  const loop = new DiscoveryLoop({
    config: { enabled: true, tags: { team: 'a' }, intervalMs: INTERVAL, start: 'oldest' },
    backoff: { initialMs: 10, maxMs: 100, authMs: 1000 },
    ...(o.collectorUrl !== undefined ? { collectorUrl: o.collectorUrl } : {}),
    emit: (f) => facts.push(f),
    now: () => clock,
    host: {
      discovered: async (specs) => {
        added.push([...specs]);
        const fresh = specs.filter((s) => !known.has(s.id)).map((s) => s.id);
        for (const id of fresh) known.add(id);
        return fresh;
      },
    },
    store: {
      claimDiscoveryPoll: async (): Promise<DiscoveryClaim> => ({
        claimed: o.claimed ?? true,
        lastSuccessAt: last,
        now: clock,
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
        if (o.refuse?.includes(q.status ?? 'default'))
          return { kind: 'error', status: 400, error: { code: 'invalid_input', message: `bad status ${q.status}` } };
        const status = q.status ?? 'active';
        const all = sessions.filter((s) => status === 'all' || (status === 'deleted') === (s.deletedAt !== undefined));
        if ((o.order ?? 'newest') === 'newest') all.sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0));
        const page = all.slice(q.offset, q.offset + q.limit);
        const more = q.offset + page.length < all.length;
        return { kind: 'ok', sessions: page, invalid: 0, nextOffset: more ? q.offset + page.length : undefined };
      },
    },
  });
  return {
    loop,
    queries,
    added,
    recorded,
    facts,
    sessions,
    ids: () => [...new Set(added.flat().map((s) => s.id))],
    setLast: (t: number) => {
      last = t;
    },
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('discovery poll', () => {
  it('the first poll ever reads only the live list (nothing can have been missed) and records its start', async () => {
    const w = world({
      sessions: [{ id: 'a', tags: {}, createdAt: NOW - 10, pool: { id: 'p1', name: 'agents' } }, at('gone', 20, 5)],
      lastSuccessAt: null,
    });
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
      sessions: [
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

  it('after a restart: the newest of status=all down to the last success minus the clock margin, then the live list', async () => {
    const last = NOW - 3_600_000;
    const w = world({
      lastSuccessAt: last,
      sessions: [
        at('live-old', 7_200_000),
        at('short-recent', 3_000_000, 2_999_000),
        at('created-in-margin', 3_600_000 + CLOCK_MARGIN_MS - 1, 3_600_000),
        at('deleted-since', 9_000_000, 10_000),
        at('old', 9_000_000, 3_600_000 + CLOCK_MARGIN_MS + 1),
      ],
    });
    await w.loop.pollOnce();
    expect(w.queries.map((q) => q.status)).toEqual(['all', undefined]);
    expect(w.ids().sort()).toEqual(['created-in-margin', 'deleted-since', 'live-old', 'short-recent']);
    expect(w.facts).toContainEqual({
      f: 'sessions_discovered',
      sessions: ['short-recent', 'created-in-margin', 'deleted-since'],
      deleted: true,
    });
  });

  it('a session created and deleted between two polls is taken by the next, as deleted', async () => {
    const w = world({ lastSuccessAt: null, sessions: [at('long', 60_000)] });
    await w.loop.pollOnce();
    w.advance(INTERVAL);
    w.sessions.push({ id: 'blink', tags: {}, createdAt: NOW + 200, deletedAt: NOW + 700 });
    await w.loop.pollOnce();
    expect(w.queries.map((q) => q.status)).toEqual([undefined, 'all']);
    expect(w.facts).toContainEqual({ f: 'sessions_discovered', sessions: ['blink'], deleted: true });
  });

  it('steady polls read the pages of new sessions, not the whole list; the live list again after FULL_WALK_MS', async () => {
    // 1,000 live sessions, one a second, the newest 70 s old.
    const old = Array.from({ length: 1000 }, (_, i) => at(`old-${i}`, 70_000 + i * 1000));
    const w = world({ lastSuccessAt: null, sessions: old });
    await w.loop.pollOnce();
    expect(w.queries).toHaveLength(10); // the first poll of the process: the whole live list
    w.queries.length = 0;
    w.advance(INTERVAL);
    // 150 new ones. The cutoff is the newest seen last time (70 s old) minus the lag: the 150, the
    // 61 old ones within the lag, and the page that reaches below it are read; 7 pages are not.
    expect(LIST_LAG_MS).toBe(60_000);
    for (let i = 0; i < 150; i++) w.sessions.push({ id: `new-${i}`, tags: {}, createdAt: NOW + 500 - i });
    await w.loop.pollOnce();
    expect(w.queries.map((q) => [q.status, q.offset])).toEqual([
      ['all', 0],
      ['all', 100],
      ['all', 200],
    ]);
    expect(w.ids().filter((id) => id.startsWith('new-'))).toHaveLength(150);
    w.queries.length = 0;
    w.advance(FULL_WALK_MS);
    await w.loop.pollOnce();
    expect(w.queries.filter((q) => q.status === undefined)).toHaveLength(12);
  });

  it('a list that is not newest first is read to its end, every poll', async () => {
    const sessions = Array.from({ length: 250 }, (_, i) => at(`s-${i}`, LIST_LAG_MS * 10 - i * 1000));
    const w = world({ lastSuccessAt: null, sessions, order: 'as-given' });
    await w.loop.pollOnce();
    w.queries.length = 0;
    w.advance(INTERVAL);
    await w.loop.pollOnce();
    expect(w.queries.map((q) => [q.status, q.offset])).toEqual([
      ['all', 0],
      ['all', 100],
      ['all', 200],
    ]);
  });

  it('a list that is not newest first is said once, not at every poll', async () => {
    const sessions = Array.from({ length: 5 }, (_, i) => at(`s-${i}`, LIST_LAG_MS * 10 - i * 1000));
    const w = world({ lastSuccessAt: NOW - 10, sessions, order: 'as-given' });
    for (let i = 0; i < 3; i++) {
      await w.loop.pollOnce();
      w.advance(INTERVAL);
    }
    expect(w.facts.filter((f) => f.f === 'discovery_list_shape')).toEqual([
      { f: 'discovery_list_shape', shape: 'not_newest_first', detail: expect.stringContaining('whole list') },
    ]);
    // Newest first: nothing to say.
    const n = world({ lastSuccessAt: NOW - 10, sessions });
    await n.loop.pollOnce();
    expect(n.facts.filter((f) => f.f === 'discovery_list_shape')).toEqual([]);
  });

  // A service that refuses status=all: the newest sessions are read as active and deleted apart,
  // and one that refuses those too as the default (live) list alone; said once, when the mode drops.
  const REFUSALS = [
    {
      refuse: ['all'],
      statuses: ['active', 'deleted'],
      finds: ['new', 'short'],
      said: ['status=active and status=deleted'],
    },
    {
      refuse: ['all', 'deleted'],
      statuses: [undefined],
      finds: ['new'],
      said: ['live list alone'],
    },
    {
      refuse: ['all', 'active'],
      statuses: [undefined],
      finds: ['new'],
      said: ['live list alone'],
    },
  ] as const;
  for (const k of REFUSALS) {
    it(`refusing ${k.refuse.join(' and ')}: reads ${k.statuses.map((s) => s ?? 'the default list').join(' and ')}, says so once`, async () => {
      const w = world({
        lastSuccessAt: NOW - 10,
        refuse: k.refuse,
        sessions: [at('old', LIST_LAG_MS * 20), at('new', 1000), at('short', 2000, 500)],
      });
      expect((await w.loop.pollOnce()).outcome).toBe('ok');
      expect(w.ids()).toEqual(expect.arrayContaining([...k.finds]));
      const shapes = w.facts.filter((f) => f.f === 'discovery_list_shape');
      expect(shapes.map((f) => f.shape)).toEqual(k.said.map(() => 'status_refused'));
      k.said.forEach((words, i) => expect(shapes[i]).toMatchObject({ detail: expect.stringContaining(words) }));
      // The next poll starts in the mode the last one ended in: no refused request, nothing said again.
      w.queries.length = 0;
      w.advance(INTERVAL);
      expect((await w.loop.pollOnce()).outcome).toBe('ok');
      expect([...new Set(w.queries.map((q) => q.status))]).toEqual([...k.statuses]);
      expect(w.facts.filter((f) => f.f === 'discovery_list_shape')).toHaveLength(k.said.length);
    });
  }

  it('a service that refuses even the default list: a failed poll, nothing recorded', async () => {
    const w = world({ lastSuccessAt: NOW - 10, refuse: ['all', 'active', 'deleted', 'default'] });
    const r = await w.loop.pollOnce();
    expect(r.outcome).toBe('failed');
    expect(w.recorded).toEqual([]);
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

  it('nextPass answers after a pass begun after the call (not the one under way), and at stop', async () => {
    vi.useFakeTimers();
    const w = world({ lastSuccessAt: null });
    w.loop.start(); // the first pass begins at once
    let answered = 0;
    void w.loop.nextPass().then(() => answered++);
    await w.loop.settled(); // the first pass is over: it began before the call
    await vi.advanceTimersByTimeAsync(0);
    expect(answered).toBe(0);
    await vi.advanceTimersByTimeAsync(INTERVAL); // the second pass
    expect(answered).toBe(1);
    expect(w.recorded).toHaveLength(2);

    const atStop = w.loop.nextPass();
    await w.loop.stop();
    await atStop;
    await w.loop.nextPass(); // stopped: at once
  });
});

afterEach(() => {
  vi.useRealTimers();
});
