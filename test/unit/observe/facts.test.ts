// Facts → metrics and log lines (observe/): each fact moves exactly the series it names, once, and
// says what an operator needs at the level that fits; counts and per-request facts write no line.
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { Writable } from 'node:stream';
import { createMetrics, type BridgeMetrics } from '../../../src/observe/metrics.js';
import { countFact } from '../../../src/observe/fact-metrics.js';
import { logFact } from '../../../src/observe/fact-log.js';
import { createFactSink } from '../../../src/observe/facts.js';
import type { Fact } from '../../../src/vocabulary/facts.js';

/** Every series of the bridge's own counters and histograms, as `name{labels} value` lines. */
async function series(m: BridgeMetrics): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const family of await m.registry.collect()) {
    if (!family.name.startsWith('bridge_') || family.type === 'gauge') continue;
    for (const { name, labels: l, value } of family.samples) {
      if (name.endsWith('_bucket') || name.endsWith('_sum')) continue;
      const labels = Object.entries(l)
        .map(([k, x]) => `${k}="${x}"`)
        .join(',');
      out.set(labels ? `${name}{${labels}}` : name, value);
    }
  }
  return out;
}

/** The series a fact moved, with how much. */
async function moved(fact: Fact): Promise<Record<string, number>> {
  const m = createMetrics({ defaultMetrics: false });
  const before = await series(m);
  countFact(m, fact);
  const after = await series(m);
  const out: Record<string, number> = {};
  for (const [k, v] of after) if (v !== (before.get(k) ?? 0)) out[k] = v - (before.get(k) ?? 0);
  return out;
}

const S = 'sess-1';
const CASES: Array<[Fact, Record<string, number>]> = [
  [{ f: 'events_received', session: S, count: 3 }, { bridge_events_received_total: 3 }],
  [{ f: 'duplicates', count: 2 }, { bridge_events_duplicate_total: 2 }],
  [
    { f: 'malformed_frame', session: S, frameId: '7', bytes: 10, reason: 'not JSON' },
    { bridge_malformed_frames_total: 1 },
  ],
  [
    { f: 'epoch_started', session: S, epoch: 1, seq: 1, why: 'source_changed', previousEpoch: 0, previousLastSeq: 9 },
    { bridge_service_epochs_total: 1 },
  ],
  [
    { f: 'gap_recorded', session: S, first: 5, last: 9, reason: 'evicted' },
    { bridge_gap_records_total: 1, bridge_missing_events_total: 5 },
  ],
  [
    { f: 'tail_unknown', session: S, epoch: 0, afterSeq: 4 },
    { bridge_gap_records_total: 1, bridge_tails_unknown_total: 1 },
  ],
  [
    { f: 'archive_repaired', session: S, first: 1, last: 3, reason: 'malformed', repaired: 3 },
    { bridge_archive_repaired_events_total: 3 },
  ],
  [
    { f: 'reconnect_scheduled', session: S, reason: 'idle', delayMs: 10, attempt: 1 },
    { 'bridge_reconnects_total{reason="idle"}': 1 },
  ],
  [
    { f: 'event_filtered', session: S, type: 'foo_bar', category: 'newcat', count: 2 },
    { 'bridge_events_filtered_total{category="other"}': 2 },
  ],
  [
    { f: 'event_filtered', type: 'console_log', category: 'console', count: 1 },
    { 'bridge_events_filtered_total{category="console"}': 1 },
  ],
  [
    { f: 'record_oversized', type: 'console_log', action: 'body_cut', count: 1 },
    { 'bridge_records_oversized_total{action="body_cut"}': 1 },
  ],
  [
    { f: 'values_redacted', type: 'network_request', kind: 'header', count: 4 },
    { 'bridge_records_redacted_total{kind="header"}': 4 },
  ],
  [{ f: 'screenshot_written', count: 1 }, { 'bridge_screenshots_total{outcome="written"}': 1 }],
  [{ f: 'screenshot_failed', count: 1 }, { 'bridge_screenshots_total{outcome="write_failed"}': 1 }],
  [
    { f: 'commit_failed', error: 'SQLITE_FULL', code: 'SQLITE_FULL', streak: 1 },
    { bridge_spool_commit_errors_total: 1 },
  ],
  [{ f: 'writes_fenced', sessions: ['a', 'b'] }, { bridge_fenced_writes_total: 2 }],
  [
    { f: 'export_attempted', outcome: 'http_503', success: false, seconds: 0.2 },
    {
      'bridge_export_requests_total{outcome="http_503"}': 1,
      'bridge_export_duration_seconds_count{outcome="failure"}': 1,
    },
  ],
  [{ f: 'records_delivered', count: 10 }, { bridge_events_delivered_total: 10 }],
  [
    { f: 'records_rejected', reason: 'invalid', count: 1, endpoint: 'http://c/v1/logs', error: 'bad' },
    { 'bridge_events_rejected_total{reason="invalid"}': 1 },
  ],
  [{ f: 'lease_renewed', recovered: false }, { 'bridge_lease_renewals_total{outcome="success"}': 1 }],
  [
    { f: 'lease_renewal_failed', error: 'timeout', first: true },
    { 'bridge_lease_renewals_total{outcome="failure"}': 1 },
  ],
  [{ f: 'lease_expired', sessions: 3 }, { bridge_lease_expirations_total: 1 }],
  [
    { f: 'sessions_claimed', sessions: 3, backlogRecords: 0, replica: 'r1' },
    { 'bridge_session_handovers_total{kind="claimed"}': 3 },
  ],
  [{ f: 'sessions_lost', sessions: ['a'], why: 'fenced' }, { 'bridge_session_handovers_total{kind="lost"}': 1 }],
  [{ f: 'sessions_handed_over', sessions: 2 }, { 'bridge_session_handovers_total{kind="handed_over"}': 2 }],
  [
    {
      f: 'config_reloaded',
      reason: 'SIGHUP',
      added: [],
      removed: [],
      updated: [],
      mappingChanged: false,
      startChanged: false,
      restartRequired: [],
    },
    { 'bridge_config_reloads_total{outcome="applied"}': 1 },
  ],
  [
    { f: 'config_rejected', reason: 'SIGHUP', key: 'spool.max_bytes', error: 'bad' },
    { 'bridge_config_reloads_total{outcome="rejected"}': 1 },
  ],
  [
    { f: 'session_refused', sessions: ['x'], source: 'api', followed: 1000, limit: 1000, remote: '127.0.0.1' },
    { 'bridge_sessions_refused_total{source="api"}': 1 },
  ],
  [
    { f: 'session_refused', sessions: ['a', 'b', 'c'], source: 'discovery', followed: 2, limit: 2 },
    { 'bridge_sessions_refused_total{source="discovery"}': 3 },
  ],
  [
    {
      f: 'export_answer_unrecognized',
      endpoint: 'http://c/v1/logs',
      status: 200,
      contentType: 'text/html',
      bytes: 120,
      count: 1,
    },
    { bridge_export_unrecognized_answers_total: 1 },
  ],
  // Facts that only a log line or a status reports.
  [{ f: 'state_changed', session: S, state: 'streaming', at: 0 }, {}],
  [{ f: 'connected', session: S, at: 0 }, {}],
  [{ f: 'session_ended', session: S, lastSeq: 3, epoch: 0, detail: '404' }, {}],
  [{ f: 'export_recovered', endpoint: 'http://c', records: 1 }, {}],
  [{ f: 'commit_recovered' }, {}],
];

describe('facts → metrics', () => {
  it.each(CASES)('%o moves %o', async (fact, expected) => {
    expect(await moved(fact)).toEqual(expected);
  });
});

function capture(): { log: pino.Logger; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(c, _e, cb) {
      chunks.push(String(c));
      cb();
    },
  });
  const log = pino({ level: 'debug' }, sink);
  return {
    log,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('facts → log lines', () => {
  it('counts and per-request facts write no line; a gap is a warning naming the session and the seqs', () => {
    const { log, lines } = capture();
    logFact(log, { f: 'events_received', session: S, count: 3 });
    logFact(log, { f: 'export_attempted', outcome: 'success', success: true, seconds: 0.01 });
    logFact(log, { f: 'gap_recorded', session: S, first: 5, last: 9, reason: 'evicted' });
    const out = lines();
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ level: 40, session: S, firstSeq: 5, lastSeq: 9, count: 5, reason: 'evicted' });
  });

  it('a failure in a row is said the first time and every 50th (commit), every 20th attempt (export)', () => {
    const { log, lines } = capture();
    for (let streak = 1; streak <= 100; streak++)
      logFact(log, { f: 'commit_failed', error: 'full', code: 'SQLITE_FULL', streak });
    for (let attempt = 1; attempt <= 41; attempt++)
      logFact(log, {
        f: 'export_failed',
        endpoint: 'e',
        status: 503,
        grpcCode: undefined,
        records: 1,
        attempt,
        delayMs: 5,
        error: 'x',
      });
    const out = lines();
    expect(out.filter((l) => l.streak !== undefined).map((l) => l.streak)).toEqual([1, 50, 100]);
    expect(out.filter((l) => l.attempt !== undefined).map((l) => l.attempt)).toEqual([1, 21, 41]);
  });

  it.each([
    ['SQLITE_FULL', 'disk full?'],
    [undefined, 'the store failed or did not answer'],
    ['ECONNREFUSED', 'the shared store cannot be reached'],
    ['08006', 'the shared store cannot be reached'],
    ['53100', "the database server's disk is full"],
    ['57P01', 'the database server is shutting down or restarting'],
    ['53300', 'the database server is out of resources (memory, connections)'],
    ['42P01', 'the shared store refused the write (SQLSTATE 42P01)'],
    ['SQLITE_READONLY_DBMOVED', 'the state database is read-only or its volume fails'],
    ['SQLITE_IOERR_WRITE', 'the state database is read-only or its volume fails'],
    ['STATE_FILE_GONE', 'the state database is gone'],
    ['SQLITE_CANTOPEN', 'a file of the state database cannot be opened (open-file limit?)'],
    [
      'SQLITE_BUSY',
      'another program holds the state database locked: a sqlite3 shell or a backup inside a transaction?',
    ],
    [
      'SQLITE_BUSY_SNAPSHOT',
      'another program holds the state database locked: a sqlite3 shell or a backup inside a transaction?',
    ],
    [
      'SQLITE_LOCKED_SHAREDCACHE',
      'another program holds the state database locked: a sqlite3 shell or a backup inside a transaction?',
    ],
  ])('a spool delete that fails with %s says: %s', (code, cause) => {
    const { log, lines } = capture();
    logFact(log, { f: 'delete_failed', error: 'x', code, streak: 1 });
    expect(lines()[0]).toMatchObject({ level: 50, msg: expect.stringContaining(`(${cause})`) });
    expect(lines()[0]!.code).toBe(code);
  });

  it('a full volume holding reading back: a warning with the free bytes and the reserve, and a line when reading resumes, for the first pause and every 50th', () => {
    const { log, lines } = capture();
    for (let times = 1; times <= 50; times++) {
      logFact(log, { f: 'volume_full', freeBytes: 1_100_000, reserveBytes: 8 * 1024 * 1024, times });
      logFact(log, { f: 'volume_room', times });
    }
    expect(lines()).toMatchObject([
      {
        level: 40,
        freeBytes: 1_100_000,
        reserveBytes: 8 * 1024 * 1024,
        msg: expect.stringContaining('reading paused'),
      },
      { level: 30, times: 1, msg: expect.stringContaining('reading resumes') },
      { level: 40, times: 50 },
      { level: 30, times: 50, msg: expect.stringContaining('reading resumes') },
    ]);
  });

  it('a 2xx that is not OTLP is a warning, the first time and every 50th', () => {
    const { log, lines } = capture();
    for (let count = 1; count <= 100; count++)
      logFact(log, {
        f: 'export_answer_unrecognized',
        endpoint: 'http://c/v1/logs',
        status: 200,
        contentType: 'text/html',
        bytes: 120,
        count,
      });
    const out = lines();
    expect(out.map((l) => [l.count, l.level])).toEqual([
      [1, 40],
      [50, 40],
      [100, 40],
    ]);
    expect(out[0]).toMatchObject({ endpoint: 'http://c/v1/logs', status: 200, contentType: 'text/html', bytes: 120 });
  });

  it('spans dropped over a full queue only when not quiet, failed span exports now and then', () => {
    const { log, lines } = capture();
    for (let times = 1; times <= 100; times++) {
      const quiet = times % 40 !== 1 ? { quiet: true as const } : {};
      logFact(log, {
        f: 'spans_dropped',
        count: 3,
        reason: 'overflow',
        times,
        dropped: 3 * times,
        queueMaxBytes: 9,
        ...quiet,
      });
      logFact(log, {
        f: 'spans_export_failed',
        endpoint: 'http://c/v1/traces',
        status: 401,
        spans: 3,
        attempt: times,
        delayMs: 1000,
        error: 'HTTP 401: bad token',
      });
    }
    const out = lines();
    expect(out.filter((l) => l.queueMaxBytes === 9).map((l) => l.dropped)).toEqual([3, 123, 243]);
    expect(out.filter((l) => l.status === 401).map((l) => l.attempt)).toEqual([1, 21, 41, 61, 81]);
  });

  it('a malformed frame is logged without its payload', () => {
    const { log, lines } = capture();
    logFact(log, { f: 'malformed_frame', session: S, frameId: '12', bytes: 99, reason: 'not JSON' });
    expect(lines()[0]).toEqual(expect.objectContaining({ session: S, frameId: '12', bytes: 99, reason: 'not JSON' }));
  });

  it('a pause of delivery for stalled checkpoints: a warning with how long the write waited, the gauge at 1, then a line with how long it lasted and 0', async () => {
    const { log, lines } = capture();
    const m = createMetrics({ defaultMetrics: false });
    const sink = createFactSink(m, log);
    const gauge = async (): Promise<number | undefined> =>
      (await m.registry.collect()).find((f) => f.name === 'bridge_delivery_paused')?.samples[0]?.value;
    expect(await gauge()).toBe(0);
    sink({ f: 'delivery_paused', waitedMs: 2100 });
    expect(await gauge()).toBe(1);
    sink({ f: 'delivery_resumed', pausedMs: 5000, why: 'written' });
    expect(await gauge()).toBe(0);
    expect(lines()).toMatchObject([
      { level: 40, waitedMs: 2100 },
      { level: 30, pausedMs: 5000, msg: 'checkpoints are written again: delivery from memory resumes' },
    ]);
  });

  it.each<['written' | 'closing' | 'given_up', RegExp]>([
    ['written', /^checkpoints are written again/],
    ['closing', /for the stop's drain/],
    // Said while the store may still be down: the pause ended because nothing waits any more.
    ['given_up', /no longer waits: the sessions whose checkpoints could not be written were given up/],
  ])('the end of a pause says why it ended: %s', (why, words) => {
    const { log, lines } = capture();
    createFactSink(createMetrics({ defaultMetrics: false }), log)({ f: 'delivery_resumed', pausedMs: 10, why });
    expect((lines()[0] as { msg: string }).msg).toMatch(words);
  });

  it('the sink sends one fact to both', async () => {
    const { log, lines } = capture();
    const m = createMetrics({ defaultMetrics: false });
    createFactSink(m, log)({ f: 'tail_unknown', session: S, epoch: 2, afterSeq: 40 });
    expect((await series(m)).get('bridge_tails_unknown_total')).toBe(1);
    expect(lines()[0]).toMatchObject({ session: S, epoch: 2, afterSeq: 40 });
  });
});

describe('reconnect lines', () => {
  it('the first two in a row are routine (info: how the service ends a session), the third a warning; a refused key an error at once', () => {
    const { log, lines } = capture();
    for (const attempt of [1, 2, 3])
      logFact(log, { f: 'reconnect_scheduled', session: S, reason: 'server_error', delayMs: 100, attempt });
    logFact(log, { f: 'reconnect_scheduled', session: S, reason: 'unauthorized', delayMs: 100, attempt: 1 });
    logFact(log, { f: 'reconnect_scheduled', session: S, reason: 'closed', delayMs: 0, attempt: 1 });
    expect(lines().map((l) => [l.attempt, l.reason, l.level])).toEqual([
      [1, 'server_error', 30],
      [2, 'server_error', 30],
      [3, 'server_error', 40],
      [1, 'unauthorized', 50],
      [1, 'closed', 20],
    ]);
  });
});
