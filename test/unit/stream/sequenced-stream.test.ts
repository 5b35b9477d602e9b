// Frames → sequenced items (stream/sequenced-stream.ts), table-driven: each case is a script of
// connections, frames and endings, and the items it must produce (events shown by seq only).
import { describe, expect, it } from 'vitest';
import { SequencedStream, type StreamItem } from '../../../src/stream/sequenced-stream.js';
import type { Frame } from '../../../src/stream/frame-decoder.js';

type Step =
  | number // an event with that seq, source id 'A'
  | [seq: number, sourceId: string]
  | { bad: string } // a frame with that id: that does not decode
  | { id: string; seq: number } // a frame whose id: disagrees with its envelope's seq
  | 'connect'
  | 'clean-close'
  | 'reset'
  | 'too-large'
  | 'end';

const frame = (seq: number, sid: string | undefined, id = String(seq)): Frame => ({
  id,
  data: JSON.stringify({
    seq,
    event: {
      ts: 1_700_000_000_000_000 + seq,
      type: 'api_call',
      category: 'control',
      source: sid ? { kind: 'kernel_api', metadata: { telemetry_session_id: sid } } : { kind: 'kernel_api' },
    },
  }),
});

/** Items in a compact form: events as their seq, the rest as short strings. */
function show(items: StreamItem[]): Array<number | string> {
  return items.map((i) => {
    switch (i.kind) {
      case 'event':
        return i.envelope.seq;
      case 'gap':
        return `gap ${i.first}-${i.last ?? ''} ${i.reason} e${i.epoch}`;
      case 'epoch':
        return `epoch ${i.epoch} (${i.change.why})`;
      case 'duplicate':
        return `dup ${i.seq}`;
      case 'malformed':
        return `malformed ${i.frameId ?? ''}`;
    }
  });
}

function run(
  steps: Step[],
  init = { lastSeq: 0, epoch: 0 },
  start: 'oldest' | 'latest' = 'oldest',
): Array<number | string> {
  const s = new SequencedStream(init, start);
  const out: StreamItem[] = [];
  s.newConnection();
  for (const step of steps) {
    if (typeof step === 'number') s.push(frame(step, 'A'), out);
    else if (Array.isArray(step)) s.push(frame(step[0], step[1]), out);
    else if (step === 'connect') s.newConnection();
    else if (step === 'clean-close') s.connectionEnded(true);
    else if (step === 'reset') s.connectionEnded(false);
    else if (step === 'too-large') s.frameTooLarge(out);
    else if (step === 'end') s.sessionEnded(out);
    else if ('bad' in step) s.push({ id: step.bad, data: '{not json' }, out);
    else s.push(frame(step.seq, 'A', step.id), out);
  }
  return show(out);
}

const cases: Array<{
  name: string;
  steps: Step[];
  want: Array<number | string>;
  init?: { lastSeq: number; epoch: number };
  start?: 'oldest' | 'latest';
}> = [
  { name: 'contiguous events pass through', steps: [1, 2, 3], want: [1, 2, 3] },
  {
    name: 'a first seq above 1 is history evicted before the bridge followed',
    steps: [5, 6],
    want: ['gap 1-4 evicted_before_follow e0', 5, 6],
  },
  {
    name: 'a jump after the bridge had a position is an eviction',
    init: { lastSeq: 10, epoch: 0 },
    steps: [11, 15],
    want: [11, 'gap 12-14 evicted e0', 15],
  },
  { name: 'latest: the first seq is the baseline', start: 'latest', steps: [500, 501], want: [500, 501] },
  // A resume after 2 answered from 1: the service lost the position (a correct one never does this).
  {
    name: 'a replay at or below Last-Event-ID after reconnect is a new epoch, not duplicates',
    steps: [1, 2, 'reset', 'connect', 1, 2, 3],
    want: [1, 2, 'gap 3- tail_unknown e0', 'epoch 1 (resume_ignored)', 1, 2, 3],
  },
  {
    name: 'malformed frames become a malformed gap, split from evicted seqs',
    steps: [1, { bad: '2' }, { bad: '3' }, 6],
    want: [1, 'malformed 2', 'malformed 3', 'gap 2-3 malformed e0', 'gap 4-5 evicted e0', 6],
  },
  {
    name: 'a malformed frame read again after a reconnect is a duplicate, not one more malformed frame',
    steps: [1, { bad: '2' }, 'reset', 'connect', { bad: '2' }, 3],
    want: [1, 'malformed 2', 'dup 2', 'gap 2-2 malformed e0', 3],
  },
  {
    name: 'an id: that disagrees with seq is malformed, not a restart',
    steps: [1, 2, { id: '3', seq: 1000 }, 4, 5],
    want: [1, 2, 'malformed 3', 'gap 3-3 malformed e0', 4, 5],
  },
  {
    name: 'a malformed frame whose id is above a seq that follows it placed nothing: no gap up to its id at the end',
    steps: [1, { bad: '9007199254740000' }, 2, 3, 'clean-close', 'end'],
    want: [1, 'malformed 9007199254740000', 2, 3],
  },
  {
    name: 'of two malformed frames before a seq, the one below it is a gap and the one above it is forgotten',
    steps: [1, { bad: '2' }, { bad: '900' }, 3, 'clean-close', 'end'],
    want: [1, 'malformed 2', 'malformed 900', 'gap 2-2 malformed e0', 3],
  },
  {
    name: 'a decodable frame whose seq jumps more than 2^32 is malformed: no gap up to it, no restart after it',
    steps: [1, 2, 9_007_199_254_740_000, 3, 'clean-close', 'end'],
    want: [1, 2, 'malformed 9007199254740000', 3],
  },
  {
    name: 'a first event far into a long history is taken as it is',
    steps: [4_000_000_000, 4_000_000_001],
    want: ['gap 1-3999999999 evicted_before_follow e0', 4_000_000_000, 4_000_000_001],
  },
  {
    name: 'a frame too large is the next seq, reported and passed',
    steps: [1, 'too-large', 3],
    want: [1, 'gap 2-2 frame_too_large e0', 3],
  },
  {
    name: 'a new telemetry_session_id replaying from 1 after a reset: the old tail is unknown, a new epoch starts',
    steps: [1, 2, 3, 'reset', 'connect', [1, 'B'], [2, 'B']],
    want: [1, 2, 3, 'gap 4- tail_unknown e0', 'epoch 1 (source_changed)', 1, 2],
  },
  {
    name: 'a new telemetry_session_id past the old seq: the seqs before it are a service_restart gap',
    steps: [1, 2, 'reset', 'connect', [5, 'B']],
    want: [1, 2, 'gap 3- tail_unknown e0', 'epoch 1 (source_changed)', 'gap 1-4 service_restart e1', 5],
  },
  {
    name: 'seq backwards on a live connection without source ids is a new epoch',
    steps: [
      [1, ''],
      [2, ''],
      [1, ''],
    ],
    want: [1, 2, 'epoch 1 (seq_backwards)', 1],
  },
  {
    name: 'the session ends after a reset: the tail is unknown',
    steps: [1, 2, 'reset', 'end'],
    want: [1, 2, 'gap 3- tail_unknown e0'],
  },
  { name: 'the session ends after a clean close: nothing is owed', steps: [1, 2, 'clean-close', 'end'], want: [1, 2] },
  {
    name: 'malformed frames at the very end become a gap when the session ends',
    steps: [1, { bad: '2' }, 'clean-close', 'end'],
    want: [1, 'malformed 2', 'gap 2-2 malformed e0'],
  },
];

describe('SequencedStream', () => {
  for (const c of cases) {
    it(c.name, () => {
      expect(run(c.steps, c.init, c.start)).toEqual(c.want);
    });
  }

  it('gap items carry the epoch source id and the last event time, where an archive read may start', () => {
    const s = new SequencedStream({ lastSeq: 0, epoch: 0 }, 'oldest');
    const out: StreamItem[] = [];
    s.newConnection();
    s.push(frame(1, 'A'), out);
    s.push(frame(4, 'A'), out);
    expect(out[1]).toEqual({
      kind: 'gap',
      first: 2,
      last: 3,
      reason: 'evicted',
      epoch: 0,
      sourceId: 'A',
      nearTsMicros: 1_700_000_000_000_001,
    });
  });
});
