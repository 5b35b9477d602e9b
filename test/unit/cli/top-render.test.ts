import { describe, expect, it } from 'vitest';
import { paint } from '../../../src/cli/ansi.js';
import { displayWidth } from '../../../src/cli/display-width.js';
import { defaultUrl } from '../../../src/cli/top-command.js';
import {
  buildModel,
  parseMetrics,
  parseOthersStale,
  type SessionStatusView,
  type Snapshot,
} from '../../../src/cli/top-model.js';
import {
  formatBytes,
  initialView,
  onKey,
  renderPlain,
  renderScreen,
  visibleRows,
  type ViewState,
} from '../../../src/cli/top-render.js';

const METRICS = `# HELP bridge_build_info x
# TYPE bridge_build_info gauge
bridge_build_info{version="1.2.3",node="20.1.0"} 1
bridge_events_delivered_total 1000
bridge_events_received_total 1200
bridge_export_requests_total{outcome="success"} 10
bridge_export_requests_total{outcome="error"} 2
bridge_export_requests_total{outcome="http_503"} 3
bridge_spool_bytes 1048576
bridge_spool_capacity_bytes 4194304
bridge_spool_records 200
bridge_oldest_undelivered_age_seconds 75.4
`;

const session = (id: string, o: Partial<SessionStatusView> = {}): SessionStatusView => ({
  id,
  state: 'streaming',
  source: 'config',
  lastReceivedSeq: 100,
  lastDeliveredSeq: 100,
  received: 100,
  gaps: 0,
  missingEvents: 0,
  reconnects: {},
  ...o,
});

const first: Snapshot = {
  atMs: 0,
  metrics: parseMetrics(METRICS),
  sessions: [session('a', { received: 100 }), session('b', { received: 50 }), session('c', { received: 0 })],
};
const second: Snapshot = {
  atMs: 2000,
  metrics: parseMetrics(
    METRICS.replace('delivered_total 1000', 'delivered_total 1400')
      .replace('received_total 1200', 'received_total 1500')
      .replace('outcome="http_503"} 3', 'outcome="http_503"} 7'),
  ),
  sessions: [
    session('a', { received: 300, lastReceivedSeq: 300, lastDeliveredSeq: 250 }),
    session('b', {
      received: 51,
      lastReceivedSeq: 51,
      lastDeliveredSeq: 51,
      state: 'backoff',
      lastError: 'HTTP 503',
      reconnects: { server_error: 2, network: 1 },
      source: 'discovery',
    }),
    session('c', { received: 0, gaps: 2, missingEvents: 40, lastReceivedSeq: 0, lastDeliveredSeq: 0 }),
  ],
};
const model = buildModel(first, second);

describe('top model', () => {
  it('rates come from two reads; lag is received minus delivered; failures are every non-success outcome', () => {
    expect(model.version).toBe('1.2.3');
    expect(model.sessions.map((s) => [s.id, s.rate, s.lag, s.reconnects])).toEqual([
      ['a', 100, 50, 0],
      ['b', 0.5, 0, 3],
      ['c', 0, 0, 0],
    ]);
    expect(model.exporter).toEqual({
      deliveredRate: 200,
      receivedRate: 150,
      failureRate: 2,
      failures: 9,
      spoolBytes: 1048576,
      spoolCapacity: 4194304,
      spoolRecords: 200,
      oldestAgeSeconds: 75.4,
    });
  });

  it('the first read has no rates', () => {
    const m = buildModel(undefined, first);
    expect(m.sessions[0]!.rate).toBeUndefined();
    expect(m.exporter.deliveredRate).toBeUndefined();
  });

  it('reads labels with escapes and skips comments', () => {
    expect(parseMetrics('# HELP x y\nm{a="q\\"uote",b="x\\\\y"} 2\n')).toEqual([
      { name: 'm', labels: { a: 'q"uote', b: 'x\\y' }, value: 2 },
    ]);
  });
});

describe('top model: ended sessions, other replicas, the exporter', () => {
  // The service ends a session by resetting its stream and answering 502 until the 404: the end
  // leaves a reconnect and an error behind, which must not make a normal end look like a failure.
  const endings: Snapshot = {
    atMs: 0,
    metrics: [],
    sessions: [
      session('a-ended', {
        state: 'ended',
        lastError: '502 bad_gateway: browser session a-ended is unavailable',
        reconnects: { network: 1, server_error: 1 },
      }),
      session('b-live', { lastReceivedSeq: 120, lastDeliveredSeq: 100 }),
      session('c-backoff', { state: 'backoff', lastError: 'HTTP 503' }),
      session('d-unknown', { state: 'unknown', lastError: '404 not found' }),
    ],
  };

  it('an ended session is "ended" with no error, and sorts below the live ones whatever the sort', () => {
    const m = buildModel(undefined, endings);
    expect(m.sessions.find((r) => r.id === 'a-ended')).toMatchObject({ state: 'ended', lastError: '', done: true });
    expect(m.sessions.find((r) => r.id === 'c-backoff')).toMatchObject({ lastError: 'HTTP 503', done: false });
    // A session the service never knew keeps its error (it is one), but is not read either.
    expect(m.sessions.find((r) => r.id === 'd-unknown')).toMatchObject({ lastError: '404 not found', done: true });
    for (const view of [
      initialView(),
      initialView('id'),
      { ...initialView('id'), descending: true },
      initialView('error'),
    ])
      expect(
        visibleRows(m.sessions, view)
          .slice(2)
          .map((r) => r.id)
          .sort(),
      ).toEqual(['a-ended', 'd-unknown']);
    expect(renderPlain(m, 'u', initialView('id')).split('\n').slice(3)).toEqual([
      'SESSION    STATE      SOURCE  RATE/s  LAG  GAPS  MISSING  RECONN  LAST ERROR',
      'b-live     streaming  config       -   20     0        0       0  -',
      'c-backoff  backoff    config       -    0     0        0       0  HTTP 503',
      'a-ended    ended      config       -    0     0        0       2  -',
      'd-unknown  unknown    config       -    0     0        0       0  404 not found',
      '',
    ]);
  });

  it('with the shared store, an OWNER column; another replica’s session is "elsewhere", not idle', () => {
    const at = (atMs: number): Snapshot => ({
      atMs,
      metrics: [],
      replica: 'r1',
      sessions: [
        session('mine', { owner: 'r1' }),
        session('theirs', { state: 'idle', owner: 'r2' }),
        session('nobody', { state: 'idle', owner: null }),
      ],
    });
    // Two reads: a rate for this replica's sessions, none for another's (its numbers are that replica's).
    const m = buildModel(at(0), at(2000));
    expect(renderPlain(m, 'u', initialView('id')).split('\n').slice(3, 7)).toEqual([
      'SESSION  STATE      SOURCE  OWNER  RATE/s  LAG  GAPS  MISSING  RECONN  LAST ERROR',
      'mine     streaming  config  r1        0.0    0     0        0       0  -',
      'nobody   idle       config  -         0.0    0     0        0       0  -',
      'theirs   elsewhere  config  r2          -    0     0        0       0  -',
    ]);
    expect(visibleRows(m.sessions, { ...initialView(), filter: 'r2' }).map((r) => r.id)).toEqual(['theirs']);
  });

  it('says why the exporter fails when the bridge says it', () => {
    const m = buildModel(undefined, { ...first, exporterError: 'connect ECONNREFUSED 127.0.0.1:4318' });
    expect(renderPlain(m, 'u').split('\n')[2]).toBe('exporter failing: connect ECONNREFUSED 127.0.0.1:4318');
    expect(renderPlain(model, 'u').split('\n')[2]).toBe('');
  });
});

describe('top rendering', () => {
  it('the plain table', () => {
    expect(renderPlain(model, 'http://127.0.0.1:9464')).toBe(
      [
        'bridge 1.2.3 at http://127.0.0.1:9464   sessions 3 (2 streaming, 1 backoff)   received 150/s',
        'exporter delivered 200/s, failed 2.0/s (9 failed requests)   spool 1.0 MiB / 4.0 MiB (25%), 200 records, oldest 1m15s',
        '',
        'SESSION  STATE      SOURCE     RATE/s  LAG  GAPS  MISSING  RECONN  LAST ERROR',
        'a        streaming  config        100   50     0        0       0  -',
        'b        backoff    discovery     0.5    0     0        0       3  HTTP 503',
        'c        streaming  config        0.0    0     2       40       0  -',
        '',
      ].join('\n'),
    );
  });

  it.each<[string, ViewState, string[]]>([
    ['lag, largest first (default)', initialView(), ['a', 'b', 'c']],
    ['rate, largest first', initialView('rate'), ['a', 'b', 'c']],
    ['gaps, largest first', initialView('gaps'), ['c', 'a', 'b']],
    ['state, A→Z', initialView('state'), ['b', 'a', 'c']],
    ['id reversed', { ...initialView('id'), descending: true }, ['c', 'b', 'a']],
    ['last error, largest first', initialView('error'), ['b', 'a', 'c']],
    ['filtered by state', { ...initialView(), filter: 'BACK' }, ['b']],
    ['filtered by error text', { ...initialView(), filter: '503' }, ['b']],
    ['filtered by source', { ...initialView(), filter: 'discov' }, ['b']],
    ['filtered to nothing', { ...initialView(), filter: 'zzz' }, []],
  ])('sorting and filtering: %s', (_name, view, ids) => {
    expect(visibleRows(model.sessions, view).map((r) => r.id)).toEqual(ids);
  });

  it.each<[string, string[], Partial<ViewState> | 'quit']>([
    ['a sort key selects it', ['g'], { sort: 'gaps', descending: true }],
    ['the same key again reverses', ['g', 'g'], { sort: 'gaps', descending: false }],
    ['text sorts start A→Z', ['i'], { sort: 'id', descending: false }],
    ['/ types a filter', ['/', 'a', 'b', '\u007f', 'x', '\r'], { filter: 'ax', editing: false }],
    ['keys while typing are text, not commands', ['/', 'q', 'g'], { filter: 'qg', editing: true, sort: 'lag' }],
    ['Esc while typing clears', ['/', 'a', '\u001b'], { filter: '', editing: false }],
    ['Esc clears a kept filter', ['/', 'a', '\r', '\u001b'], { filter: '' }],
    ['a sort keeps the filter', ['/', 'a', '\r', 'r'], { filter: 'a', sort: 'rate' }],
    ['unknown keys do nothing', ['x', 'Z'], { sort: 'lag', descending: true, filter: '' }],
    ['q quits', ['q'], 'quit'],
    ['Ctrl-C quits, even while typing', ['/', '\u0003'], 'quit'],
  ])('keys: %s', (_name, keys, expected) => {
    let view: ViewState | 'quit' = initialView();
    for (const k of keys) if (view !== 'quit') view = onKey(view, k);
    if (expected === 'quit') expect(view).toBe('quit');
    else expect(view).toMatchObject(expected);
  });

  it.each<[number, number]>([
    [80, 24],
    [40, 12],
    [120, 8],
    [20, 5],
  ])('a %ix%i screen is filled exactly and nothing is wider', (width, height) => {
    const lines = renderScreen(model, initialView(), { url: 'http://127.0.0.1:9464', width, height, p: paint(false) });
    expect(lines).toHaveLength(height);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(width);
    expect(lines.at(-1)).toMatch(/^sort: i id|^sort: i i…|^sort…/);
  });

  it.each<[string, number]>([
    ['CJK', 30],
    ['emoji', 24],
  ])('wide characters (%s) in ids and errors: columns line up and no row passes a %i-column screen', (kind, width) => {
    const wide = kind === 'CJK' ? '会话一' : '🚀🚀';
    const model = buildModel(undefined, {
      ...second,
      sessions: [
        session(`s-${wide}`, { state: 'backoff', lastError: `连接被拒绝 ${wide} 连接被拒绝` }),
        session('plain'),
      ],
    });
    const lines = renderScreen(model, initialView('id'), { url: 'u', width, height: 12, p: paint(false) });
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(width);
    const table = renderPlain(model, 'u', initialView('id')).split('\n');
    const rows = table.filter((l) => l.startsWith('s-') || l.startsWith('plain'));
    // The STATE column starts at the same screen column on every row.
    const stateAt = rows.map((l) => displayWidth(l.slice(0, l.search(/backoff|streaming/))));
    expect(new Set(stateAt).size).toBe(1);
  });

  it('too many sessions for the screen: the last visible row says how many are hidden', () => {
    const many = buildModel(undefined, {
      ...second,
      sessions: Array.from({ length: 30 }, (_, i) => session(`s${String(i).padStart(2, '0')}`)),
    });
    const lines = renderScreen(many, initialView('id'), { url: 'u', width: 100, height: 10, p: paint(false) });
    expect(lines[3]).toMatch(/^SESSION\*/);
    expect(lines.slice(4, 8).map((l) => l.split(' ')[0])).toEqual(['s00', 's01', 's02', 's03']);
    expect(lines[8]).toBe('… 26 more sessions (filter with /)');
  });

  it('a read error shows under the summary; typing a filter shows on the key line', () => {
    const lines = renderScreen(
      model,
      { ...initialView(), editing: true, filter: 'ab' },
      { url: 'u', width: 200, height: 12, error: 'cannot reach the bridge', p: paint(false) },
    );
    expect(lines[2]).toBe('! cannot reach the bridge');
    expect(lines.at(-1)).toBe('filter: ab█   (Enter keep, Esc clear)');
  });

  it.each<[number, string]>([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1.0 KiB'],
    [268435456, '256 MiB'],
    [1.5 * 1024 ** 3, '1.5 GiB'],
  ])('%i bytes is %s', (n, text) => {
    expect(formatBytes(n)).toBe(text);
  });

  it.each<[string | undefined, string]>([
    [undefined, 'http://127.0.0.1:9464'],
    ['127.0.0.1:9464', 'http://127.0.0.1:9464'],
    ['0.0.0.0:8080', 'http://127.0.0.1:8080'],
    ['[::]:9464', 'http://[::1]:9464'],
    ['[::1]:9000', 'http://[::1]:9000'],
    ['bridge.internal:9464', 'http://bridge.internal:9464'],
    ['off', 'http://127.0.0.1:9464'],
  ])('BRIDGE_LISTEN %s → %s', (listen, url) => {
    expect(defaultUrl(listen)).toBe(url);
  });
});

describe('text from the daemon cannot steer the terminal', () => {
  it('lastError, id and state lose their control characters in the plain table and the screen', () => {
    const evil = `upstream said \u001b[2J\u001b]8;;http://x\u0007click\u001b]8;;\u0007\rgone`;
    const snap: Snapshot = {
      atMs: 0,
      metrics: parseMetrics(METRICS),
      sessions: [session('s\u001b[1m', { state: 'retrying\u009b', lastError: evil })],
    };
    const model = buildModel(undefined, snap);
    const text =
      renderPlain(model, 'http://x') +
      renderScreen(model, initialView(), {
        url: 'http://x',
        width: 200,
        height: 20,
        error: `fetch \u001b[5mfailed`,
        p: paint(false),
      }).join('\n');
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(text).toContain('upstream said \ufffd[2J');
    expect(text).toContain('fetch \ufffd[5mfailed');
  });
});

describe("top: the other replicas' sessions while the shared store does not answer", () => {
  it.each([
    [{ ageMs: 7178 }, { othersStaleMs: 7178 }],
    [{ ageMs: null }, { othersStaleMs: null }],
    [undefined, {}],
    [{}, {}],
    [{ ageMs: -1 }, {}],
    [{ ageMs: 'soon' }, {}],
    ['stale', {}],
  ])('reads othersStale %j', (given, read) => {
    expect(parseOthersStale(given)).toEqual(read);
  });

  it("says so under the summary: how old the other replicas' rows are, or that only this one's are listed", () => {
    const replicated: Snapshot = { ...first, replica: 'r1' };
    const lines = (s: Snapshot): string[] => renderPlain(buildModel(undefined, s), 'u').split('\n');
    expect(lines({ ...replicated, othersStaleMs: 7178 })[2]).toBe(
      "store not answering: other replicas' sessions as of 7s ago",
    );
    expect(lines({ ...replicated, othersStaleMs: 95_000 })[2]).toBe(
      "store not answering: other replicas' sessions as of 1m35s ago",
    );
    expect(lines({ ...replicated, othersStaleMs: null })[2]).toBe(
      "store not answering: only this replica's sessions are listed",
    );
    expect(lines(replicated)[2]).toBe('');
  });
});
