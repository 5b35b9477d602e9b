// The subscriber's read loop while reading is held (back-pressure, a repair, a turn) and when the
// connection ends at an awkward moment: during a hold, before the read began, or with stop() called
// from inside the sink. Fakes: a scripted service whose bodies are PassThrough streams that an abort
// destroys (as util/http-client.ts does its bodies), and a sink that records items and returns what
// the test tells it to.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { SequencedStream, type StreamItem } from '../../../src/stream/sequenced-stream.js';
import { Subscriber, type StreamSink } from '../../../src/stream/subscriber.js';
import type { OpenStreamResult } from '../../../src/upstream/client.js';
import { MAX_FRAME_BYTES } from '../../../src/stream/frame-decoder.js';
import { readableBody } from '../../../src/upstream/stream-body.js';

const frame = (seq: number) =>
  `id: ${seq}\ndata: ${JSON.stringify({ seq, event: { ts: seq, type: 'console_log', category: 'console', source: {}, data: {} } })}\n\n`;

/** Each call of openStream takes the next answer: a body to stream, or 404 (the session ended). */
type Answer = PassThrough | 404;

function subscriber(
  answers: Answer[],
  push: (items: StreamItem[]) => void | Promise<void>,
  now?: () => number,
  endRecorded: void | false = undefined,
) {
  const items: StreamItem[] = [];
  const reconnects: number[] = [];
  let opened = 0;
  let ended = false;
  const client = {
    invalidateKey() {},
    openStream: async (_id: string, _pos: unknown, signal: AbortSignal): Promise<OpenStreamResult> => {
      opened++;
      const a = answers.shift() ?? 404;
      if (a === 404) return { kind: 'error', status: 404, error: { code: 'not_found', message: 'gone' } };
      signal.addEventListener('abort', () => a.destroy(Object.assign(new Error('aborted'), { name: 'AbortError' })));
      return { kind: 'stream', body: readableBody(a) };
    },
  };
  const sink: StreamSink = {
    push(got) {
      items.push(...got);
      return push(got);
    },
    ended: async (owed) => {
      items.push(...owed);
      ended = true;
      return endRecorded;
    },
    report(ev) {
      if (ev.type === 'reconnect') reconnects.push(ev.attempt);
    },
  };
  const sub = new Subscriber('s', client, new SequencedStream({ lastSeq: 0, epoch: 0 }, 'oldest'), sink, {
    idleTimeoutMs: 60_000,
    backoff: { initialMs: 1, maxMs: 2, authMs: 5 },
    start: 'oldest',
    ...(now ? { now } : {}),
  });
  return { sub, items, reconnects, opened: () => opened, ended: () => ended };
}

async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

describe('subscriber holds', () => {
  it('a frame too large that ends the connection during a hold is one gap, then a reconnect', async () => {
    const body = new PassThrough();
    // Every push holds reading for a moment (the spool's back-pressure, say).
    const t = subscriber([body], () => new Promise((r) => setTimeout(r, 10)));
    stops.push(() => t.sub.stop());
    t.sub.start();
    // A good frame (its push holds reading), then a frame that overflows the decoder in the same chunk:
    // the abort's error arrives while the first push still holds.
    body.write(frame(1) + 'data: ' + 'x'.repeat(MAX_FRAME_BYTES + 16));
    await until(t.ended, 'the session to end after the reconnect');
    const gaps = t.items.filter((i) => i.kind === 'gap');
    // One gap for the frame; the tail after it is unknown because the end (404) was not seen coming.
    expect(gaps).toEqual([
      expect.objectContaining({ first: 2, last: 2, reason: 'frame_too_large' }),
      expect.objectContaining({ first: 3, last: undefined, reason: 'tail_unknown', final: true }),
    ]);
    expect(t.opened()).toBe(2);
  });

  it('a body destroyed before the read began is a cut connection: the subscriber reconnects', async () => {
    const body = new PassThrough();
    body.destroy();
    await new Promise((r) => setImmediate(r));
    const t = subscriber([body], () => undefined);
    stops.push(() => t.sub.stop());
    t.sub.start();
    await until(t.ended, 'the reconnect (answered 404: ended)');
    expect(t.opened()).toBe(2);
  });

  it('stop() called from inside the sink ends a hold that would never end by itself', async () => {
    const body = new PassThrough();
    let stopping: Promise<void> | undefined;
    const t = subscriber([body], () => {
      stopping = t.sub.stop();
      return new Promise<void>(() => {}); // a spool that never has room again
    });
    t.sub.start();
    body.write(frame(1));
    await until(() => stopping !== undefined, 'the push');
    await expect(
      Promise.race([stopping!.then(() => 'stopped'), new Promise((r) => setTimeout(() => r('hung'), 2000))]),
    ).resolves.toBe('stopped');
    expect(t.sub.currentState).toBe('stopped');
  });

  // An idle session (no events, the service's keepalive every 15 s) whose connections a proxy cuts
  // now and then: each cut counted as one more failed attempt, so after a few the reconnect waited
  // up to upstream.backoff.max, and the first events after the quiet came that late. A keepalive is
  // the service's own word that the stream works, as a frame is; a connection that says nothing is not.
  // Nor is a comment as the connection opens: the service's first keepalive comes 15 s in, and a
  // proxy that greets every stream with a comment and then fails it reconnected at the initial
  // backoff for ever. `aged`: the clock moves 15 s a reading, so every connection is old by its first chunk.
  it.each<[string, (i: number) => string, boolean, number[]]>([
    ['a frame', (i) => frame(i + 1), false, [1, 1, 1]],
    ['a keepalive comment, 15 s in', () => ':keepalive\n\n', true, [1, 1, 1]],
    ['a comment as it opened', () => ':ok\n\n', false, [1, 2, 3]],
    ['nothing', () => '', true, [1, 2, 3]],
  ])('connections cut after %s: the attempts counted before each reconnect', async (_what, said, aged, attempts) => {
    const bodies = [0, 1, 2].map((i) => {
      const b = new PassThrough();
      b.end(said(i));
      return b;
    });
    let clock = 0;
    const t = subscriber(bodies, () => undefined, aged ? () => (clock += 15_000) : undefined);
    stops.push(() => t.sub.stop());
    t.sub.start();
    await until(t.ended, 'the end (404 after the three connections)');
    expect(t.reconnects).toEqual(attempts);
  });

  // A stop that reaches the pipeline while it records the end (its archive read under way) but not
  // yet the subscriber: the pipeline says it did not record the end, and the subscriber must not
  // take the end as its state (a follow after the stop meets the 404 again). It relied on stop()
  // having set its own flag first, an order of microtasks no caller promised.
  it("an end the sink did not record is not the subscriber's end", async () => {
    const body = new PassThrough();
    body.end(frame(1));
    const t = subscriber([body, 404], () => undefined, undefined, false);
    stops.push(() => t.sub.stop());
    t.sub.start();
    await until(t.ended, 'the sink asked to record the end');
    await new Promise((r) => setTimeout(r, 20));
    expect(t.sub.currentState).not.toBe('ended');
    expect(t.opened()).toBe(2);
    await t.sub.stop();
    expect(t.sub.currentState).toBe('stopped');
  });
});
