import { describe, expect, it } from 'vitest';
import { retryInfoDelayMs } from '../../../src/wire/retry-info.js';
import { encodeStatusWithRetryInfo } from '../../../src/devkit/receiver/grpc-answer.js';

describe('RetryInfo in grpc-status-details-bin', () => {
  it.each([0, 250, 1000, 2500, 90_000])('reads a retry_delay of %i ms', (ms) => {
    expect(retryInfoDelayMs(encodeStatusWithRetryInfo(8, 'slow down', ms))).toBe(ms);
  });

  it('caps an absurd retry_delay at ten minutes, as a Retry-After header', () => {
    expect(retryInfoDelayMs(encodeStatusWithRetryInfo(8, 'go away', 10 ** 12))).toBe(600_000);
  });

  it('is absent from a status without details, and from other detail types', () => {
    const bare = Buffer.from([0x08, 0x08, 0x12, 0x02, 0x68, 0x69]); // code 8, message "hi"
    expect(retryInfoDelayMs(bare)).toBeUndefined();
    const otherType = Buffer.from('type.googleapis.com/google.rpc.DebugInfo');
    const any = Buffer.concat([Buffer.from([0x0a, otherType.length]), otherType]);
    expect(retryInfoDelayMs(Buffer.concat([bare, Buffer.from([0x1a, any.length]), any]))).toBeUndefined();
  });

  it('a RetryInfo without a delay says "retry" with no wait', () => {
    const type = Buffer.from('type.googleapis.com/google.rpc.RetryInfo');
    const any = Buffer.concat([Buffer.from([0x0a, type.length]), type]);
    expect(retryInfoDelayMs(Buffer.concat([Buffer.from([0x1a, any.length]), any]))).toBe(0);
  });

  it('damaged bytes are no RetryInfo, never an exception', () => {
    const good = encodeStatusWithRetryInfo(8, 'x', 1000);
    for (let cut = 0; cut < good.length; cut++) expect(() => retryInfoDelayMs(good.subarray(0, cut))).not.toThrow();
    expect(retryInfoDelayMs(Buffer.from([0xff, 0xff, 0xff]))).toBeUndefined();
  });
});
