import { describe, expect, it } from 'vitest';
import { defaultFaults, mergeFaults } from '../../../../src/devkit/simulator/faults.js';

describe('mergeFaults', () => {
  it('merges present keys, clears optional ones with null', () => {
    const f = defaultFaults();
    expect(
      mergeFaults(f, { crlf: true, cutAfterFrames: 4, failNext: [{ status: 429, retryAfterSeconds: 2 }] }),
    ).toBeUndefined();
    expect(f).toMatchObject({
      crlf: true,
      cutAfterFrames: 4,
      failNext: [{ status: 429, retryAfterSeconds: 2 }],
      splitData: false,
    });
    expect(mergeFaults(f, { cutAfterFrames: null })).toBeUndefined();
    expect(f).not.toHaveProperty('cutAfterFrames');
    expect(f.crlf).toBe(true);
  });

  it('rejects invalid patches without changing anything', () => {
    const f = defaultFaults();
    for (const bad of [
      null,
      [],
      { chunkSize: 0 },
      { failNext: [{ status: 42 }] },
      { wrongContentType: -1 },
      { endedServerErrors: 1.5 },
      { nope: true },
      { crlf: true, splitData: 1 },
    ]) {
      expect(mergeFaults(f, bad)).toEqual(expect.any(String));
    }
    expect(f).toEqual(defaultFaults());
  });

  it.each([
    [{ wrongContentType: -1 }, 'wrongContentType must be a non-negative integer'],
    [{ endedServerErrors: 'x' }, 'endedServerErrors must be a non-negative integer'],
  ])('says which count is wrong: %j', (patch, message) => {
    expect(mergeFaults(defaultFaults(), patch)).toBe(message);
  });

  it('takes both counts', () => {
    const f = defaultFaults();
    expect(mergeFaults(f, { wrongContentType: 2, endedServerErrors: 3 })).toBeUndefined();
    expect(f).toMatchObject({ wrongContentType: 2, endedServerErrors: 3 });
  });
});
