// A body's deadline grows with what arrives (the connect timeout plus what the minimum rate needs
// for the bytes so far), on an injected clock: a slow, steady body is read whole, a stalled one is
// cut and says so, a reset says so.
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readPaced } from '../../../src/upstream/read-body.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const KIB = 1024;
const opts = { timeoutMs: 1000, maxBytes: 10 * 1024 * KIB, minBytesPerSecond: 64 * KIB };

describe('readPaced', () => {
  it('reads a body that arrives for ten times the timeout, steadily above the rate', async () => {
    const body = new PassThrough();
    const read = readPaced(body, opts);
    // 128 KiB every second for 10 s: 2 s of allowance each, 1 s apart.
    for (let i = 0; i < 10; i++) {
      body.write(Buffer.alloc(128 * KIB, 0x41));
      await vi.advanceTimersByTimeAsync(1000);
    }
    body.end();
    const r = await read;
    expect(r.cut).toBeUndefined();
    expect(r.text).toHaveLength(1280 * KIB);
  });

  it('cuts a body that stalls: after the timeout plus what the rate allows for the bytes received', async () => {
    const body = new PassThrough();
    const read = readPaced(body, opts);
    body.write(Buffer.alloc(64 * KIB, 0x41)); // one more second of allowance: 2 s in all
    await vi.advanceTimersByTimeAsync(1900);
    let settled = false;
    void read.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    const r = await read;
    expect(r.cut).toMatch(/65536 bytes in 2\d{3} ms/);
  });

  it('a reset mid-body is a cut, with what arrived kept', async () => {
    const body = new PassThrough();
    const read = readPaced(body, opts);
    body.write('[{"seq":1');
    await vi.advanceTimersByTimeAsync(10);
    body.destroy(new Error('socket hang up'));
    const r = await read;
    expect(r).toEqual({ text: '[{"seq":1', cut: 'socket hang up' });
  });
});

describe('readPaced with a large-body gate', () => {
  it('stops reading past the threshold until the gate opens, and the wait does not count against the rate', async () => {
    const body = new PassThrough();
    let open!: () => void;
    let entered = 0;
    const read = readPaced(body, {
      ...opts,
      gate: {
        aboveBytes: 100 * KIB,
        enter: () => {
          entered++;
          return new Promise<void>((r) => (open = r));
        },
      },
    });
    body.write(Buffer.alloc(64 * KIB, 0x41));
    await vi.advanceTimersByTimeAsync(10);
    expect(entered).toBe(0);
    body.write(Buffer.alloc(64 * KIB, 0x41));
    await vi.advanceTimersByTimeAsync(10);
    expect(entered).toBe(1);
    // Waiting a minute for the permit: far beyond the deadline, which is paused meanwhile.
    await vi.advanceTimersByTimeAsync(60_000);
    open();
    body.end(Buffer.alloc(64 * KIB, 0x41));
    const r = await read;
    expect(r.cut).toBeUndefined();
    expect(r.text).toHaveLength(192 * KIB);
    expect(entered).toBe(1);
  });
});
