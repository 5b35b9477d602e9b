// A session followed again by a new pipeline (moved to an ingest worker, or back after a worker
// died) keeps the counts its earlier followers made: GET /v1/sessions must not reset them.
import { describe, expect, it } from 'vitest';
import { addCounts, carryCounts } from '../../../src/session/carried-status.js';
import { initialStatus, type SessionStatus } from '../../../src/session/session-status.js';
import type { FollowedSession } from '../../../src/session/session-pipeline.js';
import type { SessionRow } from '../../../src/store/store.js';

const row = (checkpoint: number): SessionRow =>
  ({ spec: { id: 's1' }, source: 'discovery', checkpoint, epoch: 1, lifecycle: 'active' }) as SessionRow;

const status = (checkpoint: number, o: Partial<SessionStatus>): SessionStatus => ({
  ...initialStatus(row(checkpoint)),
  ...o,
});

describe('addCounts', () => {
  const cases: Array<[string, SessionStatus, SessionStatus, Partial<SessionStatus>]> = [
    [
      'counts add up; positions and state are the later follower’s',
      status(0, {
        received: 125,
        lastReceivedSeq: 125,
        lastDeliveredSeq: 100,
        state: 'streaming',
        gaps: 1,
        missingEvents: 3,
      }),
      status(125, { received: 175, lastReceivedSeq: 300, lastDeliveredSeq: 300, state: 'ended' }),
      { received: 300, lastReceivedSeq: 300, lastDeliveredSeq: 300, state: 'ended', gaps: 1, missingEvents: 3 },
    ],
    [
      'reconnects add up by reason',
      status(0, { reconnects: { network: 2, server_error: 1 } }),
      status(0, { reconnects: { network: 1, idle: 1 } }),
      { reconnects: { network: 3, server_error: 1, idle: 1 } },
    ],
    [
      'an earlier error does not outlive the move',
      status(0, { lastError: '502 bad_gateway', filtered: 4, duplicates: 2, malformedFrames: 1, repaired: 1 }),
      status(0, { filtered: 1 }),
      { lastError: undefined, filtered: 5, duplicates: 2, malformedFrames: 1, repaired: 1 },
    ],
  ];
  it.each(cases)('%s', (_name, earlier, later, want) => {
    const got = addCounts(earlier, later);
    for (const [k, v] of Object.entries(want)) expect(got[k as keyof SessionStatus], k).toEqual(v);
  });
});

describe('carryCounts', () => {
  it('is the session itself when nothing was counted before', () => {
    const s = { id: 's1' } as FollowedSession;
    expect(carryCounts(undefined, s)).toBe(s);
  });

  it('reports the new follower’s status on top of the earlier counts, and forwards everything else', async () => {
    const calls: string[] = [];
    let now = status(125, { received: 10, lastReceivedSeq: 135 });
    const inner: FollowedSession = {
      id: 's1',
      spec: { id: 's1', attributes: {} },
      source: 'discovery',
      updateSpec: () => calls.push('spec'),
      setEnrichment: () => calls.push('enrich'),
      start: () => calls.push('start'),
      stop: (removed) => (calls.push(`stop ${removed}`), Promise.resolve()),
      status: () => now,
      delivered: (seq, epoch) => calls.push(`delivered ${seq} ${epoch}`),
      spansSettled: () => (calls.push('settled'), Promise.resolve()),
    };
    const s = carryCounts(status(0, { received: 125, lastReceivedSeq: 125 }), inner);
    s.start();
    s.delivered(130, 2);
    expect(s.status()).toMatchObject({ received: 135, lastReceivedSeq: 135 });
    now = status(125, { received: 175, lastReceivedSeq: 300 });
    expect(s.status()).toMatchObject({ received: 300, lastReceivedSeq: 300 });
    expect([s.id, s.source]).toEqual(['s1', 'discovery']);
    // A removal for good reaches the follower as one (its open spans are flushed as removed).
    await s.stop(true);
    await s.spansSettled();
    expect(calls).toEqual(['start', 'delivered 130 2', 'stop true', 'settled']);
  });
});
