// A value below its key's lower bound names that bound, in the key's unit, and what was given. A
// duration or a size written as a number said "must be between 1 and 9007199254740991 (got 0)"
// for `spool.commit_interval: 0`: an upper bound no key has, and no unit. Above, every duration
// stops at what a timer can wait (2^31-1 ms): beyond it Node's setTimeout fires after 1 ms, and an
// exporter.timeout meant as "never" aborted every export at once.
import { describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/config/load-config.js';

const env = { BROWSER_API_URL: 'http://svc.test', BROWSER_API_KEY: 'k' };
const problem = (raw: Record<string, unknown>, extra: Record<string, string> = {}): string => {
  try {
    buildConfig(raw, { ...env, ...extra });
  } catch (err) {
    return (err as Error).message;
  }
  return 'valid';
};

describe('lower bounds', () => {
  it.each([
    [{ spool: { commit_interval: 0 } }, 'spool.commit_interval: must be at least 1 ms (got 0)'],
    [{ spool: { commit_interval: '0s' } }, 'spool.commit_interval: must be at least 1 ms (got "0s")'],
    [{ spool: { max_bytes: 1024 } }, 'spool.max_bytes: must be at least 1048576 bytes (got 1024)'],
    [{ spool: { max_bytes: '1KiB' } }, 'spool.max_bytes: must be at least 1048576 bytes (got "1KiB")'],
  ])('%j', (raw, said) => expect(problem(raw)).toBe(said));

  it('a key with both bounds still names both', () => {
    expect(problem({ exporter: { concurrency: 100 } })).toBe(
      'exporter.concurrency: must be between 1 and 64 (got 100)',
    );
  });
});

describe('the upper bound of every duration: the longest a timer waits', () => {
  const said = (key: string, got: string): string =>
    `${key}: must be at most 596h (about 24 days, the longest a timer waits) (got ${got})`;
  it.each([
    [{ exporter: { timeout: 2 ** 31 } }, said('exporter.timeout', '2147483648')],
    [{ exporter: { timeout: '2147483648' } }, said('exporter.timeout', '"2147483648"')],
    [{ upstream: { idle_timeout: '600h' } }, said('upstream.idle_timeout', '"600h"')],
    [{ upstream: { backoff: { auth: '9'.repeat(400) } } }, said('upstream.backoff.auth', `"${'9'.repeat(400)}"`)],
    [{ shutdown: { grace: '1000h' } }, said('shutdown.grace', '"1000h"')],
  ])('%j', (raw, message) => expect(problem(raw)).toBe(message));

  it('an environment variable too', () => {
    expect(problem({}, { OTEL_EXPORTER_OTLP_TIMEOUT: '99999999999999999999' })).toBe(
      said('OTEL_EXPORTER_OTLP_TIMEOUT', '"99999999999999999999"'),
    );
  });

  it('596h itself is valid', () => {
    expect(problem({ exporter: { timeout: '596h' }, upstream: { idle_timeout: 2 ** 31 - 1 } })).toBe('valid');
  });
});
