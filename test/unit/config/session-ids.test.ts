// Session ids and pool references where they enter: the file, BRIDGE_SESSIONS, the control API body.
// A dot-segment (`.`, `..`) would be removed by the URL parser, turning a session's stream into a
// request for another path of the service with the key.
import { describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/config/load-config.js';
import {
  parseSessionList,
  parseSessionSpec,
  poolRefProblem,
  sessionIdProblem,
  validPoolRef,
  validSessionId,
} from '../../../src/config/sessions.js';

describe('validSessionId', () => {
  it.each([
    ['.', false],
    ['..', false],
    ['...', false],
    ['', false],
    ['a/b', false],
    ['a'.repeat(129), false],
    ['a', true],
    ['.a', true],
    ['a..b', true],
    ['..a', true],
    ['s_1-x~y', true],
    ['a'.repeat(128), true],
  ])('%j → %s', (id, ok) => {
    expect(validSessionId(id)).toBe(ok);
  });
});

describe('dot-only ids and pools are rejected everywhere they enter', () => {
  it.each(['.', '..', '....'])('%j', (id) => {
    expect(() => parseSessionSpec({ id }, 'sessions[0]')).toThrow(/not dots only/);
    expect(() => parseSessionList(`ok,${id}`, 'BRIDGE_SESSIONS')).toThrow(/not a valid session id/);
    expect(() => parseSessionSpec({ id: 'ok', pool: id }, 'sessions[0]')).toThrow(/pool.*not dots only/);
    expect(validPoolRef(id)).toBe(false);
  });
  it('an ordinary pool name passes', () => {
    expect(parseSessionSpec({ id: 'ok', pool: 'my pool.v2' }, 'body').pool).toBe('my pool.v2');
  });
});

describe('a pool reference must be one a request can ask for (GET /browser_pools/{ref})', () => {
  it.each([
    ['scrapers', undefined],
    ['my pool.v2', undefined],
    ['p'.repeat(256), undefined],
    ['', 'it is empty'],
    ['..', 'it is dots only, which a URL reads as a path step'],
    ['p'.repeat(257), 'it is longer than 256 characters (257)'],
    ['a/b', 'it contains "/"'],
    ['a\\b', 'it contains "\\"'],
    ['a?b=1', 'it contains "?"'],
    ['a#b', 'it contains "#"'],
    ['a\nb', 'it contains a control character (U+000A)'],
    ['\u001b[31m', 'it contains a control character (U+001B)'],
    ['a\u0085b', 'it contains a control character (U+0085)'],
  ])('%j → %s', (ref, problem) => {
    expect(poolRefProblem(ref)).toBe(problem);
    expect(validPoolRef(ref)).toBe(problem === undefined);
  });
  it('a session id with a character no request can carry names it by code point, never as itself', () => {
    // A bidirectional override or half of a pair quoted raw would reach the log line that refuses it.
    expect(sessionIdProblem('abc\u202edef')).toBe(
      'it contains U+202E (ids are letters, digits, ".", "_", "~" and "-")',
    );
    expect(sessionIdProblem('a\u{1F600}')).toBe('it contains U+1F600 (ids are letters, digits, ".", "_", "~" and "-")');
    expect(sessionIdProblem('a b')).toBe('it contains " " (ids are letters, digits, ".", "_", "~" and "-")');
  });

  it('the configuration and the control API refuse it with the reason', () => {
    expect(() => parseSessionSpec({ id: 'ok', pool: 'a/b' }, 'sessions[0]')).toThrow(
      /sessions\[0\]\.pool: .*it contains "\/"/,
    );
  });
});

describe('a long list of sessions', () => {
  // Each id was looked for in the list so far (file and BRIDGE_SESSIONS alike): 40,000 ids took 8 s
  // to load, and a reload as long again; 100,000 about a minute. A generous bound, 20 times what
  // linear work needs on a loaded machine, still far below what quadratic work takes.
  const env = { BROWSER_API_URL: 'http://svc.test', BROWSER_API_KEY: 'k', BRIDGE_MAX_SESSIONS: '1000000' };
  const ids = Array.from({ length: 100_000 }, (_, i) => `s-${i}`);

  it('100,000 in the file and as many in BRIDGE_SESSIONS load in a few seconds, duplicates across them once', () => {
    const t0 = performance.now();
    const config = buildConfig(
      { sessions: ids },
      { ...env, BRIDGE_SESSIONS: [...ids.slice(50_000), 'extra'].join(',') },
    );
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(config.sessions).toHaveLength(100_001);
  }, 120_000);

  it('an id listed twice in the file is still named', () => {
    expect(() => buildConfig({ sessions: [...ids.slice(0, 1000), 's-10'] }, env)).toThrow(
      'sessions[1000].id: session "s-10" is listed twice',
    );
  });
});
