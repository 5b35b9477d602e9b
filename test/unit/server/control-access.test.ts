// Who may use the control API: a pure decision from the listen address, the token and the opt-out.
import { describe, expect, it } from 'vitest';
import { bearerToken, decideControlAccess, isLoopback, tokenMatches } from '../../../src/server/control-access.js';

describe('isLoopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
    ['192.168.1.2', false],
    ['bridge.internal', false],
    ['128.0.0.1', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });
});

describe('decideControlAccess', () => {
  it.each([
    ['0.0.0.0', 'tok', false, 'token'],
    ['127.0.0.1', 'tok', false, 'token'],
    ['127.0.0.1', undefined, false, 'open-loopback'],
    ['::1', undefined, true, 'open-loopback'],
    ['0.0.0.0', undefined, false, 'closed'],
    ['0.0.0.0', '', false, 'closed'],
    ['10.1.2.3', undefined, false, 'closed'],
    ['0.0.0.0', undefined, true, 'open-insecure'],
  ] as const)('listen %s, token %s, insecure %s → %s', (host, token, insecure, mode) => {
    expect(decideControlAccess(host, token, insecure).mode).toBe(mode);
  });
});

describe('tokens', () => {
  it('match only exactly, whatever the length of the guess', () => {
    expect(tokenMatches('s3cret', 's3cret')).toBe(true);
    for (const guess of ['', 's', 's3cre', 's3cret ', 's3cretx', 'S3CRET', 'x'.repeat(1000)])
      expect(tokenMatches(guess, 's3cret')).toBe(false);
  });
  it('an empty presented token never matches, even an empty expected one', () => {
    expect(tokenMatches('', '')).toBe(false);
  });
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Bearer   abc  ', 'abc'],
    ['Bearer a b', 'a b'],
    ['Basic abc', ''],
    ['Bearer', ''],
    ['abc', ''],
    [undefined, ''],
  ])('bearer token of %s is "%s"', (header, token) => {
    expect(bearerToken(header)).toBe(token);
  });
});
