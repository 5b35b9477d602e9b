// A reader yields a turn to the event loop (util/fair-share.ts) only after a chunk that more may
// follow at once, and every reader due meanwhile waits for the same turn. At full live rate a read
// empties its socket: such a chunk costs no hold, however long the event loop's phase has run.
// A fake body hands out chunks as the test says; performance.now() and setImmediate are fake, so
// "the slice is over" is an exact instant, whatever the load on the machine.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readConnection, type ConnectionHost } from '../../../src/stream/connection-reader.js';
import { SequencedStream, type StreamItem } from '../../../src/stream/sequenced-stream.js';
import type { StreamBody } from '../../../src/upstream/stream-body.js';
import { yieldIfDue } from '../../../src/util/fair-share.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

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

/** Ends the current slice and lets any pending turn pass, so the next test starts on a fresh slice. */
async function freshSlice(): Promise<void> {
  // Past any slice an earlier test began (each test's fake clock starts afresh from 0).
  let turn: Promise<void> | undefined;
  for (let i = 0; i < 100 && !turn; i++) {
    vi.advanceTimersByTime(60_000);
    turn = yieldIfDue();
  }
  expect(turn, 'a slice that long is over').toBeDefined();
  await vi.advanceTimersToNextTimerAsync();
  await turn;
}

describe('connection reader: turns', () => {
  it('a chunk that emptied the socket is never held for a turn, however long the phase has run', async () => {
    await freshSlice();
    const fake = fakeBody();
    const { send, b } = fake;
    const r = reader(fake);
    for (let seq = 1; seq <= 50; seq++) {
      send(frame(seq), false);
      vi.advanceTimersByTime(1); // 50 ms of reading without the event loop turning
    }
    expect(b.pauses).toBe(0);
    expect(r.items.filter((i) => i.kind === 'event')).toHaveLength(50);
    await r.stop();
  });

  it('a chunk that more may follow is held once the slice is over, until the event loop turns', async () => {
    await freshSlice();
    const fake = fakeBody();
    const { send, b } = fake;
    const r = reader(fake);
    send(frame(1), true);
    expect(b.pauses, 'within the slice').toBe(0);
    vi.advanceTimersByTime(5);
    send(frame(2), true);
    expect(b.paused, 'past the slice: held').toBe(true);
    await vi.advanceTimersToNextTimerAsync(); // the immediate: the turn
    await Promise.resolve();
    expect(b.paused).toBe(false);
    expect(b.resumes).toBe(1);
    send(frame(3), true);
    expect(b.pauses, 'a new slice began with the turn').toBe(1);
    expect(r.items.filter((i) => i.kind === 'event')).toHaveLength(3);
    await r.stop();
  });

  it('readers due in the same slice wait for one turn', async () => {
    await freshSlice();
    vi.advanceTimersByTime(5);
    const first = yieldIfDue();
    expect(first).toBeDefined();
    expect(yieldIfDue()).toBe(first);
    await vi.advanceTimersToNextTimerAsync();
    await first;
    expect(yieldIfDue(), 'a new slice').toBeUndefined();
  });
});
