// A valid configuration that still deserves a word: a key given twice, a missing key file hidden by
// a key, nothing to follow.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/errors.js';
import { buildConfig } from '../../../src/config/load-config.js';
import { configWarnings, followWarnings } from '../../../src/config/warnings.js';

const keyFile = join(mkdtempSync(join(tmpdir(), 'warnings-test-')), 'key');
writeFileSync(keyFile, 'k\n');
const base = { BROWSER_API_URL: 'http://svc.test' };

describe('the API key given twice', () => {
  it('a key file that does not exist is refused, even with a key beside it', () => {
    expect(() => buildConfig({}, { ...base, BROWSER_API_KEY: 'k', BROWSER_API_KEY_FILE: '/nonexistent/key' })).toThrow(
      new ConfigError(
        'BROWSER_API_KEY_FILE',
        '/nonexistent/key does not exist (BROWSER_API_KEY is set too, but a key file that is named must exist: remove BROWSER_API_KEY_FILE to use the key alone)',
      ),
    );
  });

  it.each<[string, Record<string, string>, string[]]>([
    ['a key alone says nothing', { BROWSER_API_KEY: 'k' }, []],
    ['a file alone says nothing', { BROWSER_API_KEY_FILE: keyFile }, []],
    [
      'both: which one is used',
      { BROWSER_API_KEY: 'k', BROWSER_API_KEY_FILE: keyFile },
      [
        `an API key and an API key file are both set: the key (BROWSER_API_KEY or upstream.api_key) is used and ${keyFile} is not read; unset one`,
      ],
    ],
  ])('%s', (_name, env, want) => {
    expect(configWarnings(buildConfig({}, { ...base, ...env }))).toEqual(want);
  });
});

describe('followWarnings', () => {
  it.each<[string, Record<string, string>, number]>([
    ['no session and no discovery: it says the bridge follows only what PUT adds', {}, 1],
    ['a named session', { BRIDGE_SESSIONS: 's1' }, 0],
    ['discovery', { BRIDGE_DISCOVER: 'true', BRIDGE_DISCOVER_TAGS: 'team=a' }, 0],
  ])('%s', (_name, env, n) => {
    const w = followWarnings(buildConfig({}, { ...base, BROWSER_API_KEY: 'k', ...env }));
    expect(w).toHaveLength(n);
    if (n > 0) expect(w[0]).toMatch(/only the sessions PUT \/v1\/sessions\/\{id\} adds$/);
  });
});
