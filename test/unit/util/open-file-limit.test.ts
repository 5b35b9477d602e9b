import { describe, expect, it } from 'vitest';
import { openFileLimit, openFileWarning } from '../../../src/util/open-file-limit.js';

const limits = (soft: string, hard: string): string =>
  [
    'Limit                     Soft Limit           Hard Limit           Units     ',
    'Max processes             63704                63704                processes ',
    `Max open files            ${soft.padEnd(20)} ${hard.padEnd(20)} files     `,
  ].join('\n');

describe('openFileLimit', () => {
  it.each([
    [limits('1024', '4096'), 1024],
    [limits('unlimited', 'unlimited'), Infinity],
    ['Max processes 1 1 processes', undefined],
    ['', undefined],
  ])('%#: %s → %s', (text, want) => {
    expect(openFileLimit(() => text)).toBe(want);
  });

  it('is undefined where /proc/self/limits cannot be read', () => {
    expect(
      openFileLimit(() => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
  });
});

describe('openFileWarning', () => {
  it.each([
    [undefined, 1000, false],
    [Infinity, 1000, false],
    [1064, 1000, false],
    [1063, 1000, true],
    [256, 1000, true],
    [256, 100, false],
  ])('limit %s, max_sessions %i: warns %s', (limit, maxSessions, warns) => {
    expect(openFileWarning(limit, maxSessions) !== undefined).toBe(warns);
  });

  it('names both numbers and what to change', () => {
    expect(openFileWarning(256, 1000)).toMatch(
      /^the open-file limit is 256, below the 1064 that max_sessions 1000 may need .*Raise it \(ulimit -n, .*\) or lower max_sessions$/,
    );
  });
});
