// A small error body read with a cap and a deadline, from either source of a StreamBody (our own
// socket, a node:http answer through readableBody): what arrived is kept whatever ends the read, the
// body is dropped, and nothing is left armed.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readCapped, readableBody, type StreamBody } from '../../../src/upstream/stream-body.js';

afterEach(() => {
  vi.useRealTimers();
});

/** A StreamBody a test drives: `send` hands out a read, `finish` ends it (with an error or not). */
function fakeBody(before?: { end?: Error | true }) {
  let data: ((c: Buffer, more: boolean) => void) | undefined;
  let end: ((err?: Error) => void) | undefined;
  const f = {
    destroyed: false,
    body: {
      start(d, e) {
        data = d;
        end = e;
        if (before?.end) e(before.end === true ? undefined : before.end);
      },
      pause: () => undefined,
      resume: () => undefined,
      destroy() {
        f.destroyed = true;
      },
    } satisfies StreamBody,
    send(text: string) {
      // The bytes are valid during the call only: overwritten after it, as our socket's buffer is.
      const b = Buffer.from(text);
      data!(b, false);
      b.fill(0x23);
    },
    finish: (err?: Error) => end!(err),
  };
  return f;
}

describe('readCapped', () => {
  it.each([
    ['a whole body', ['{"code":', '"nope"}'], undefined, '{"code":"nope"}'],
    ['a body cut by a reset', ['{"co'], new Error('read ECONNRESET'), '{"co'],
  ])('%s: what arrived', async (_what, reads, err, text) => {
    const f = fakeBody();
    const p = readCapped(f.body, 1000);
    for (const r of reads) f.send(r);
    f.finish(err);
    expect(await p).toBe(text);
    expect(f.destroyed).toBe(true);
  });

  it('stops at the cap and drops the rest of the body', async () => {
    const f = fakeBody();
    const p = readCapped(f.body, 1000, 8);
    f.send('0123');
    f.send('456789abc');
    expect(await p).toBe('01234567');
    expect(f.destroyed).toBe(true);
  });

  it('gives a stalled body up at its deadline with what arrived, and leaves no timer', async () => {
    vi.useFakeTimers();
    const f = fakeBody();
    const p = readCapped(f.body, 1000);
    f.send('{"partial');
    await vi.advanceTimersByTimeAsync(999);
    expect(f.destroyed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await p).toBe('{"partial');
    expect(f.destroyed).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a body that ended before the read started: empty, no timer left', async () => {
    vi.useFakeTimers();
    const f = fakeBody({ end: new Error('socket hang up') });
    expect(await readCapped(f.body, 1000)).toBe('');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a node:http answer that stalls: dropped at the deadline, and an error after that is harmless', async () => {
    vi.useFakeTimers();
    const r = new PassThrough();
    const p = readCapped(readableBody(r), 500);
    r.write('{"code":"slow"');
    await vi.advanceTimersByTimeAsync(500);
    expect(await p).toBe('{"code":"slow"');
    expect(r.destroyed).toBe(true);
    r.emit('error', new Error('late reset'));
  });
});
