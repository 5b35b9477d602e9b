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

// A bare number is milliseconds: `timeout: 5` meant as five seconds made every export time out and
// be retried for ever, with nothing said at start.
describe('durations too short to be meant', () => {
  const env = { ...base, BROWSER_API_KEY: 'k', BRIDGE_SESSIONS: 's1' };
  it.each<[string, Record<string, unknown>, Record<string, string>, RegExp[]]>([
    ['the defaults say nothing', {}, {}, []],
    [
      'exporter.timeout: 5',
      { exporter: { timeout: 5 } },
      {},
      [
        /^the export timeout \(exporter\.timeout.*\) is 5 ms \(a number without a unit is milliseconds; write "5s" for seconds\)/,
      ],
    ],
    ['exporter.timeout: "5s"', { exporter: { timeout: '5s' } }, {}, []],
    ['OTEL_EXPORTER_OTLP_TIMEOUT=30', {}, { OTEL_EXPORTER_OTLP_TIMEOUT: '30' }, [/^the export timeout .* is 30 ms/]],
    ['OTEL_EXPORTER_OTLP_TIMEOUT=10000 (the spec default)', {}, { OTEL_EXPORTER_OTLP_TIMEOUT: '10000' }, []],
    ['shutdown.grace: 0 (no grace, on purpose)', { shutdown: { grace: 0 } }, {}, []],
    ['shutdown.grace: 10', { shutdown: { grace: 10 } }, {}, [/^shutdown\.grace is 10 ms .*goes to the spool/]],
    ['spool.memory_max_age: 10', { spool: { memory_max_age: 10 } }, {}, [/^spool\.memory_max_age is 10 ms .*spill/]],
    [
      'spool.memory_max_age: 10 in always mode (no memory window)',
      { spool: { mode: 'always', memory_max_age: 10 } },
      {},
      [],
    ],
    [
      'a span timeout of its own, with traces on',
      { traces: { enabled: true } },
      { OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '20' },
      [/^the span export timeout \(OTEL_EXPORTER_OTLP_TRACES_TIMEOUT\) is 20 ms/],
    ],
    [
      'one short timeout for both signals: named once',
      { traces: { enabled: true }, exporter: { timeout: 5 } },
      {},
      [/^the export timeout/],
    ],
  ])('%s', (_name, raw, more, want) => {
    const w = configWarnings(buildConfig(raw, { ...env, ...more }));
    expect(w).toHaveLength(want.length);
    want.forEach((re, i) => expect(w[i]).toMatch(re));
  });
});

describe('BRIDGE_SESSIONS naming an id twice', () => {
  it.each<[string, string, string[]]>([
    ['distinct ids say nothing', 's1,s2', []],
    ['an id twice', 's1, s2,s1', ['BRIDGE_SESSIONS names an id more than once ("s1"): each is followed once']],
    [
      'many: five named, the rest counted',
      'a,a,b,b,c,c,d,d,e,e,f,f,g,g',
      ['BRIDGE_SESSIONS names 7 ids more than once ("a", "b", "c", "d", "e" and 2 more): each is followed once'],
    ],
  ])('%s', (_name, list, want) => {
    const env = { ...base, BROWSER_API_KEY: 'k', BRIDGE_SESSIONS: list };
    const config = buildConfig({}, env);
    expect(new Set(config.sessions.map((s) => s.id)).size).toBe(config.sessions.length);
    expect(configWarnings(config, env)).toEqual(want);
  });
});

// An id in BRIDGE_SESSIONS that the file's `sessions:` also lists is followed once, as the file's
// entry: with a start, a pool or attributes of its own, that is not what the bare id says, and the
// operator who exported the variable is told which one runs.
describe('BRIDGE_SESSIONS naming an id the file lists with options', () => {
  it.each<[string, unknown[], string, string[]]>([
    ['a bare id in both says nothing: the same session either way', ['s1'], 's1', []],
    ['a file entry with no options says nothing', [{ id: 's1' }], 's1,s2', []],
    [
      'the file gives a start',
      [{ id: 's1', start: 'latest' }],
      's1',
      [
        'session "s1" is in BRIDGE_SESSIONS and in the file\'s sessions with start: latest: it is followed once, as the file\'s entry says',
      ],
    ],
    [
      'a pool and attributes',
      [{ id: 's1', pool: 'p1', attributes: { team: 'a', tier: 2 } }, 's2'],
      's2,s1',
      [
        'session "s1" is in BRIDGE_SESSIONS and in the file\'s sessions with pool: p1, attributes: team, tier: it is followed once, as the file\'s entry says',
      ],
    ],
    [
      'several: five named, the rest counted',
      ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id) => ({ id, start: 3 })),
      'a,b,c,d,e,f,g,h',
      [
        '7 sessions are in BRIDGE_SESSIONS and in the file\'s sessions with options ("a", "b", "c", "d", "e" and 2 more): each is followed once, as the file\'s entry says',
      ],
    ],
  ])('%s', (_name, sessions, list, want) => {
    const env = { ...base, BROWSER_API_KEY: 'k', BRIDGE_SESSIONS: list };
    const config = buildConfig({ sessions }, env);
    expect(configWarnings(config, env)).toEqual(want);
  });
});
