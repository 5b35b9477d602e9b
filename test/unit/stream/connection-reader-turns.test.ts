// A reader yields a turn to the event loop (util/fair-share.ts) after a chunk that more may follow
// at once, once the slice is over; a busy thread (its slice over) leaves a stream whose read emptied
// the socket for PACE_MS, so that its next read finds several events; within the slice it reads on.
// Every reader due meanwhile waits on the same turn, or the same pace.
// A fake body hands out chunks as the test says; performance.now() and timers are fake (the
// immediate that ends a phase of the loop is real), so "the slice is over" is an exact instant, whatever the load on the machine.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readConnection, type ConnectionHost } from '../../../src/stream/connection-reader.js';
import { SequencedStream, type StreamItem } from '../../../src/stream/sequenced-stream.js';
import type { StreamBody } from '../../../src/upstream/stream-body.js';
import { PACE_MS, yieldIfDue } from '../../../src/util/fair-share.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(async () => {
  // The pending turn and pace, so that the next test begins with no phase of the loop open.
  await vi.runOnlyPendingTimersAsync();
  await loopTurns();
  vi.useRealTimers();
});

/** The event loop turns (setImmediate is the real one: the fake clock moves within a phase of the loop). */
const loopTurns = (): Promise<void> => new Promise((r) => setImmediate(r));

const frame = (seq: number): Buffer =>
  Buffer.from(
    `id: ${seq}\ndata: ${JSON.stringify({ seq, event: { ts: seq, type: 'console_log', category: 'console', source: {}, data: {} } })}\n\n`,
  );

/** A body driven by the test: `send` hands out a chunk as a read would; pauses and resumes are counted. */
function fakeBody() {
  let data: ((chunk: Buffer, more: boolean) => void) | undefined;
  let end: ((err?: Error) => void) | undefined;
  const b = { paused: false, pauses: 0, resumes: 0 };
  const body: StreamBody = {
    start(d, e) {
      data = d;
      end = e;
    },
    pause() {
      b.paused = true;
      b.pauses++;
    },
    resume() {
      b.paused = false;
      b.resumes++;
    },
    destroy() {
      data = undefined;
      end = undefined;
    },
  };
  /** The connection is cut (as the subscriber's abort on stop() does). */
  const cut = (): void => end?.(new Error('aborted'));
  const send = (chunk: Buffer, more: boolean): void => {
    expect(b.paused, 'a held body hands out nothing').toBe(false);
    data?.(chunk, more);
  };
  return { body, send, cut, b };
}

function reader({ body, cut }: { body: StreamBody; cut: () => void }) {
  const items: StreamItem[] = [];
  let stopped = false;
  const host: ConnectionHost = {
    idleTimeoutMs: 60_000,
    now: () => performance.now(),
    stream: new SequencedStream({ lastSeq: 0, epoch: 0 }, 'oldest'),
    hold: { release: undefined },
    push: (got) => void items.push(...got),
    stopped: () => stopped,
    delivered: () => {},
  };
  const done = readConnection(body, new AbortController(), host);
  return {
    items,
    stop: async () => {
      stopped = true;
      host.hold.release?.();
      cut();
      return done;
    },
  };
}

describe('connection reader: turns and pacing', () => {
  it('a thread within its slice reads a stream it emptied again at once', async () => {
    const fake = fakeBody();
    const { send, b } = fake;
    const r = reader(fake);
    for (let seq = 1; seq <= 3; seq++) {
      send(frame(seq), false);
      vi.advanceTimersByTime(1);
    }
    expect(b.pauses).toBe(0);
    expect(r.items.filter((i) => i.kind === 'event')).toHaveLength(3);
    await r.stop();
  });

  it('a busy thread leaves a stream it emptied for PACE_MS, not merely until the loop turns', async () => {
    const fake = fakeBody();
    const { send, b } = fake;
    const r = reader(fake);
    send(frame(1), false); // the first read of a phase of the loop
    vi.advanceTimersByTime(5); // the phase passed the slice
    send(frame(2), false);
    expect(b.paused, 'paced').toBe(true);
    await loopTurns();
    expect(b.paused, 'still paced after the turn').toBe(true);
    await vi.advanceTimersByTimeAsync(PACE_MS);
    expect(b.paused).toBe(false);
    send(frame(3), false);
    expect(b.pauses, 'a new phase began after the turn').toBe(1);
    expect(r.items.filter((i) => i.kind === 'event')).toHaveLength(3);
    await r.stop();
  });

  it('a chunk that more may follow is held once the slice is over, until the event loop turns', async () => {
    const fake = fakeBody();
    const { send, b } = fake;
    const r = reader(fake);
    send(frame(1), true);
    expect(b.pauses, 'within the slice').toBe(0);
    vi.advanceTimersByTime(5);
    send(frame(2), true);
    expect(b.paused, 'past the slice: held').toBe(true);
    await loopTurns();
    expect(b.paused).toBe(false);
    expect(b.resumes).toBe(1);
    send(frame(3), true);
    expect(b.pauses, 'a new slice began with the turn').toBe(1);
    expect(r.items.filter((i) => i.kind === 'event')).toHaveLength(3);
    await r.stop();
  });

  it('a quiet thread never holds a stream: each read begins a phase of its own', async () => {
    const fake = fakeBody();
    const { send, b } = fake;
    const r = reader(fake);
    for (let seq = 1; seq <= 5; seq++) {
      send(frame(seq), seq % 2 === 0);
      await loopTurns();
      vi.advanceTimersByTime(200);
    }
    expect(b.pauses).toBe(0);
    await r.stop();
  });

  it('readers due in the same slice wait for one turn, and those paced for one pace', async () => {
    expect(yieldIfDue(false), 'the first read of a phase').toBeUndefined();
    vi.advanceTimersByTime(5);
    const first = yieldIfDue(true);
    expect(first).toBeDefined();
    expect(yieldIfDue(true)).toBe(first);
    const paced = yieldIfDue(false);
    expect(paced).toBeDefined();
    expect(paced).not.toBe(first);
    expect(yieldIfDue(false)).toBe(paced);
    await vi.advanceTimersByTimeAsync(PACE_MS);
    await Promise.all([first, paced]);
    expect(yieldIfDue(true), 'a new slice').toBeUndefined();
  });
});
