// A value below its key's lower bound names that bound, in the key's unit, and what was given. A
// duration or a size written as a number said "must be between 1 and 9007199254740991 (got 0)"
// for `spool.commit_interval: 0`: an upper bound no key has, and no unit.
import { describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/config/load-config.js';

const env = { BROWSER_API_URL: 'http://svc.test', BROWSER_API_KEY: 'k' };
const problem = (raw: Record<string, unknown>): string => {
  try {
    buildConfig(raw, env);
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
