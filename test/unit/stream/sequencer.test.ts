import { describe, expect, it } from 'vitest';
import { Sequencer, type SeqDecision } from '../../../src/stream/sequencer.js';

type Step = [seq: number, expected: SeqDecision] | 'reconnect';

const cases: Array<{ name: string; start: 'oldest' | 'latest' | number; last: number; epoch?: number; steps: Step[] }> =
  [
    {
      name: 'contiguous from 1',
      start: 'oldest',
      last: 0,
      steps: [
        [1, { kind: 'accept' }],
        [2, { kind: 'accept' }],
      ],
    },
    {
      name: 'oldest: first seq > 1 is a gap (evicted before we saw them)',
      start: 'oldest',
      last: 0,
      steps: [[5, { kind: 'accept', gapFirst: 1, gapLast: 4 }]],
    },
    {
      name: 'latest: first seq is the baseline',
      start: 'latest',
      last: 0,
      steps: [
        [500, { kind: 'accept' }],
        [502, { kind: 'accept', gapFirst: 501, gapLast: 501 }],
      ],
    },
    {
      name: 'resume after checkpoint, jump is a gap',
      start: 'oldest',
      last: 10,
      steps: [
        [11, { kind: 'accept' }],
        [15, { kind: 'accept', gapFirst: 12, gapLast: 14 }],
      ],
    },
    // A resume after 10 answered with seq ≤ 10: the service lost the position (spec rule 6 forbids it), a new epoch.
    {
      name: 'seqs at or below Last-Event-ID at connection start are a new epoch, not duplicates',
      start: 'oldest',
      last: 10,
      steps: [
        'reconnect',
        [
          9,
          {
            kind: 'accept',
            gapFirst: 1,
            gapLast: 8,
            newEpoch: { why: 'resume_ignored', previous: { epoch: 0, lastSeq: 10 }, acrossReconnect: true },
          },
        ],
        [10, { kind: 'accept' }],
        [11, { kind: 'accept' }],
      ],
    },
    {
      name: 'seq backwards within one connection is a new epoch',
      start: 'oldest',
      last: 0,
      steps: [
        'reconnect',
        [1, { kind: 'accept' }],
        [2, { kind: 'accept' }],
        [
          1,
          {
            kind: 'accept',
            newEpoch: { why: 'seq_backwards', previous: { epoch: 0, lastSeq: 2 }, acrossReconnect: false },
          },
        ],
        [2, { kind: 'accept' }],
      ],
    },
    {
      name: 'new epoch starting above 1 reports the gap in the new epoch',
      start: 'oldest',
      last: 0,
      steps: [
        'reconnect',
        [7, { kind: 'accept', gapFirst: 1, gapLast: 6 }],
        [
          3,
          {
            kind: 'accept',
            newEpoch: { why: 'seq_backwards', previous: { epoch: 0, lastSeq: 7 }, acrossReconnect: false },
            gapFirst: 1,
            gapLast: 2,
          },
        ],
      ],
    },
    { name: 'numeric start resumes after that seq', start: 40, last: 40, steps: [[41, { kind: 'accept' }]] },
  ];

describe('Sequencer', () => {
  for (const c of cases) {
    it(c.name, () => {
      const s = new Sequencer({ lastSeq: c.last, epoch: c.epoch ?? 0 }, c.start);
      s.newConnection();
      for (const step of c.steps) {
        if (step === 'reconnect') {
          s.newConnection();
          continue;
        }
        expect(s.decide(step[0]), `seq ${step[0]}`).toEqual(step[1]);
      }
    });
  }

  it('a changed telemetry_session_id after a reconnect is a new epoch even when seq replays from 1', () => {
    const s = new Sequencer({ lastSeq: 0, epoch: 0 }, 'oldest');
    s.newConnection();
    for (let i = 1; i <= 5; i++) expect(s.decide(i, 'A')).toEqual({ kind: 'accept' });
    s.newConnection();
    expect(s.decide(1, 'B')).toEqual({
      kind: 'accept',
      newEpoch: { why: 'source_changed', previous: { epoch: 0, lastSeq: 5, sourceId: 'A' }, acrossReconnect: true },
    });
    expect(s.decide(2, 'B')).toEqual({ kind: 'accept' });
    expect([s.epoch, s.lastSeq, s.sourceId]).toEqual([1, 2, 'B']);
  });

  it('a changed telemetry_session_id after silence past the old seq is a new epoch with the skipped seqs missing', () => {
    const s = new Sequencer({ lastSeq: 0, epoch: 0 }, 'oldest');
    s.newConnection();
    s.decide(1, 'A');
    s.decide(2, 'A');
    s.newConnection();
    expect(s.decide(3, 'B')).toEqual({
      kind: 'accept',
      gapFirst: 1,
      gapLast: 2,
      newEpoch: { why: 'source_changed', previous: { epoch: 0, lastSeq: 2, sourceId: 'A' }, acrossReconnect: true },
    });
  });

  it('events at or below the resumed Last-Event-ID are a new epoch, with a source id, the same one, or none', () => {
    const s = new Sequencer({ lastSeq: 40, epoch: 0 }, 'oldest');
    s.newConnection();
    expect(s.decide(1, 'B')).toEqual({
      kind: 'accept',
      newEpoch: { why: 'resume_ignored', previous: { epoch: 0, lastSeq: 40 }, acrossReconnect: true },
    });
    const t = new Sequencer({ lastSeq: 40, epoch: 0 }, 'oldest');
    t.newConnection();
    expect(t.decide(1)).toEqual({
      kind: 'accept',
      newEpoch: { why: 'resume_ignored', previous: { epoch: 0, lastSeq: 40 }, acrossReconnect: true },
    });
    const u = new Sequencer({ lastSeq: 40, epoch: 0, sourceId: 'A' }, 'oldest');
    u.newConnection();
    expect(u.decide(1, 'A')).toEqual({
      kind: 'accept',
      newEpoch: { why: 'resume_ignored', previous: { epoch: 0, lastSeq: 40, sourceId: 'A' }, acrossReconnect: true },
    });
    expect(u.decide(2, 'A')).toEqual({ kind: 'accept' });
  });

  it('counts epochs', () => {
    const s = new Sequencer({ lastSeq: 0, epoch: 0 }, 'oldest');
    s.newConnection();
    s.decide(1);
    s.decide(1);
    expect(s.epoch).toBe(1);
    expect(s.lastSeq).toBe(1);
  });
});
