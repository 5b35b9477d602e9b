// A session's status moves only by facts (session/session-status.ts): the same facts the metrics
// read, so GET /v1/sessions and /metrics cannot disagree.
import { describe, expect, it } from 'vitest';
import { advance, initialStatus, seqIn, tallyFact } from '../../../src/session/session-status.js';
import type { Fact } from '../../../src/vocabulary/facts.js';
import type { SessionRow } from '../../../src/store/store.js';

const row = (checkpoint: number, pool?: string): SessionRow =>
  ({
    spec: { id: 's1', ...(pool ? { pool } : {}) },
    source: 'api',
    checkpoint,
    epoch: 2,
    lifecycle: 'active',
  }) as SessionRow;

describe('initialStatus', () => {
  it('starts idle at the checkpoint, with the pool when there is one', () => {
    expect(initialStatus(row(40, 'p1'))).toEqual({
      id: 's1',
      source: 'api',
      pool: 'p1',
      state: 'idle',
      lastReceivedSeq: 40,
      lastDeliveredSeq: 40,
      epoch: 2,
      received: 0,
      filtered: 0,
      duplicates: 0,
      gaps: 0,
      missingEvents: 0,
      malformedFrames: 0,
      repaired: 0,
      reconnects: {},
    });
    expect(initialStatus(row(0))).not.toHaveProperty('pool');
  });
});

const CASES: Array<[string, Fact, Record<string, unknown>]> = [
  ['received', { f: 'events_received', session: 's1', count: 5 }, { received: 5 }],
  ['duplicates', { f: 'duplicates', session: 's1', count: 2 }, { duplicates: 2 }],
  ['filtered', { f: 'event_filtered', session: 's1', type: 'x', category: 'console', count: 1 }, { filtered: 1 }],
  ['malformed', { f: 'malformed_frame', session: 's1', frameId: '1', bytes: 3, reason: 'r' }, { malformedFrames: 1 }],
  ['gap', { f: 'gap_recorded', session: 's1', first: 3, last: 7, reason: 'evicted' }, { gaps: 1, missingEvents: 5 }],
  ['tail unknown', { f: 'tail_unknown', session: 's1', epoch: 2, afterSeq: 9 }, { gaps: 1, missingEvents: 0 }],
  [
    'repaired',
    { f: 'archive_repaired', session: 's1', first: 1, last: 4, reason: 'malformed', repaired: 4 },
    { repaired: 4 },
  ],
  [
    'epoch',
    {
      f: 'epoch_started',
      session: 's1',
      epoch: 3,
      seq: 1,
      why: 'source_changed',
      previousEpoch: 2,
      previousLastSeq: 50,
    },
    { epoch: 3 },
  ],
  [
    'reconnect',
    { f: 'reconnect_scheduled', session: 's1', reason: 'network', delayMs: 5, attempt: 1 },
    { reconnects: { network: 1 } },
  ],
  [
    'backoff with a reason',
    { f: 'state_changed', session: 's1', state: 'backoff', detail: '503 from the service', at: 0 },
    { state: 'backoff', lastError: '503 from the service' },
  ],
  [
    'connected',
    { f: 'connected', session: 's1', at: Date.UTC(2026, 0, 1) },
    { connectedSince: '2026-01-01T00:00:00.000Z' },
  ],
  [
    'an owed gap: the session waits, and its status says why',
    {
      f: 'archive_repair_owed',
      session: 's1',
      first: 3,
      last: 7,
      detail: '503 from the archive',
      forMs: 60_000,
      at: Date.UTC(2026, 0, 1),
    },
    {
      owedGap: {
        firstSeq: 3,
        lastSeq: 7,
        detail: '503 from the archive',
        since: '2026-01-01T00:00:00.000Z',
        until: '2026-01-01T00:01:00.000Z',
      },
    },
  ],
  [
    'a gap the archive could not be read for',
    { f: 'archive_unreadable', session: 's1', first: 3, last: 7, detail: '503 (owed for 60 s)' },
    { lastError: 'archive unreadable: events 3-7 recorded as a gap (503 (owed for 60 s))' },
  ],
  [
    'the tail of a session that ended unseen, recorded as a gap',
    { f: 'archive_unreadable', session: 's1', first: 9, last: undefined, detail: 'timeout' },
    { lastError: 'archive unreadable: events from 9 recorded as a gap (timeout)' },
  ],
  ['a delivery says nothing of one session', { f: 'records_delivered', count: 9 }, {}],
];

describe('tallyFact', () => {
  it('an end clears the error the stream got as the session ended (a normal end is not a failure)', () => {
    const s = initialStatus(row(0));
    tallyFact(s, { f: 'state_changed', session: 's1', state: 'backoff', detail: '502 bad_gateway', at: 0 });
    expect(s.lastError).toBe('502 bad_gateway');
    tallyFact(s, { f: 'state_changed', session: 's1', state: 'ended', at: 1 });
    expect(s.state).toBe('ended');
    expect(s.lastError).toBeUndefined();
  });

  it.each(CASES)('%s', (_name, fact, change) => {
    const s = initialStatus(row(0));
    tallyFact(s, fact);
    const expected = { ...initialStatus(row(0)), ...change };
    expect(s).toEqual(expected);
  });

  const OWED: Fact = {
    f: 'archive_repair_owed',
    session: 's1',
    first: 8,
    last: 9,
    detail: 'HTTP 503: overloaded',
    forMs: 60_000,
    at: Date.UTC(2026, 0, 1),
  };

  it('an owed gap shows, with the time it is recorded as lost unless the archive answers', () => {
    const s = initialStatus(row(0));
    tallyFact(s, OWED);
    expect(s.owedGap).toEqual({
      firstSeq: 8,
      lastSeq: 9,
      detail: 'HTTP 503: overloaded',
      since: '2026-01-01T00:00:00.000Z',
      until: '2026-01-01T00:01:00.000Z',
    });
    tallyFact(s, { ...OWED, last: undefined });
    expect(s.owedGap).not.toHaveProperty('lastSeq');
  });

  it.each<[string, Fact]>([
    ['repaired', { f: 'archive_repaired', session: 's1', first: 8, last: 9, reason: 'malformed', repaired: 2 }],
    [
      'recorded as lost',
      { f: 'archive_unreadable', session: 's1', first: 8, last: 9, detail: 'HTTP 503 (owed for 60 s)' },
    ],
    [
      'a gap record (the archive answered without the events)',
      { f: 'gap_recorded', session: 's1', first: 8, last: 9, reason: 'malformed' },
    ],
    ['an unknown tail', { f: 'tail_unknown', session: 's1', epoch: 0, afterSeq: 7 }],
    ['stopped', { f: 'state_changed', session: 's1', state: 'stopped', at: 1 }],
    ['ended', { f: 'state_changed', session: 's1', state: 'ended', at: 1 }],
  ])('an owed gap is no longer shown once %s', (_name, fact) => {
    const s = initialStatus(row(0));
    tallyFact(s, OWED);
    tallyFact(s, fact);
    expect(s).not.toHaveProperty('owedGap');
  });

  it('leaving streaming forgets since when it was connected', () => {
    const s = initialStatus(row(0));
    tallyFact(s, { f: 'connected', session: 's1', at: 0 });
    tallyFact(s, { f: 'state_changed', session: 's1', state: 'backoff', at: 1 });
    expect(s).not.toHaveProperty('connectedSince');
  });
});

describe('stream positions: seqs start again with each service epoch', () => {
  it.each([
    // from, to (epoch, seq), where it ends
    [{ epoch: 0, seq: 30 }, [0, 31], { epoch: 0, seq: 31 }],
    [{ epoch: 0, seq: 30 }, [0, 12], { epoch: 0, seq: 30 }], // acknowledged out of order: never back
    [{ epoch: 0, seq: 30 }, [1, 3], { epoch: 1, seq: 3 }], // a new epoch: its seq, however low
    [{ epoch: 1, seq: 3 }, [0, 30], { epoch: 1, seq: 3 }], // the old epoch's last ack after the new one's
  ] as const)('advance(%o, %o) → %o', (from, [epoch, seq], to) => {
    const p = { ...from };
    advance(p, epoch, seq);
    expect(p).toEqual(to);
  });

  it.each([
    [{ epoch: 1, seq: 5 }, 1, 5],
    [{ epoch: 0, seq: 30 }, 1, 0], // nothing of epoch 1 yet: not 30
  ] as const)('seqIn(%o, %i) = %i', (p, epoch, seq) => {
    expect(seqIn(p, epoch)).toBe(seq);
  });
});
