// Columns by display width: what top and tail align and cut by.
import { describe, expect, it } from 'vitest';
import { cutToWidth, displayWidth, padEndToWidth, padStartToWidth } from '../../../src/cli/display-width.js';

describe('displayWidth', () => {
  it.each<[string, string, number]>([
    ['ASCII', 'sess_01 streaming', 17],
    ['empty', '', 0],
    ['Latin with a precomposed accent', 'café', 4],
    ['Latin with a combining accent', 'cafe\u0301', 4],
    ['CJK ideographs, two columns each', '会话', 4],
    ['Hangul syllables', '세션', 4],
    ['Hiragana', 'せっしょん', 10],
    ['fullwidth Latin', 'ＡＢ', 4],
    ['an emoji (a surrogate pair)', '🚀', 2],
    ['an emoji with a skin tone', '👍🏽', 2],
    ['a ZWJ family, one cluster', '👨‍👩‍👧', 2],
    ['a flag, two regional indicators', '🇯🇵', 2],
    ['a text symbol with VS16', '❤️', 2],
    ['a text symbol without it', '❤', 1],
    ['arrows and ellipsis are narrow', '→…', 2],
    ['mixed', 'a会🚀b', 6],
    ['a zero-width space', 'a\u200bb', 2],
  ])('%s', (_name, text, width) => {
    expect(displayWidth(text)).toBe(width);
  });
});

describe('cutToWidth', () => {
  it.each<[string, string, number, string]>([
    ['fits: unchanged', 'abc', 3, 'abc'],
    ['ASCII cut with an ellipsis', 'abcdef', 4, 'abc…'],
    ['CJK cut on a character boundary', '会话状态', 5, '会话…'],
    ['CJK: a wide character that would pass the edge is left out', '会话状态', 4, '会…'],
    ['an emoji is never split into half a surrogate pair', 'ab🚀🚀', 4, 'ab…'],
    ['a ZWJ sequence stays whole or goes', 'x👨‍👩‍👧y', 3, 'x…'],
    ['a combining accent stays with its letter', 'cafe\u0301s', 4, 'caf…'],
    ['width 1: the ellipsis alone', 'abc', 1, '…'],
    ['width 0: nothing', 'abc', 0, ''],
  ])('%s', (_name, text, width, expected) => {
    const cut = cutToWidth(text, width);
    expect(cut).toBe(expected);
    expect(displayWidth(cut)).toBeLessThanOrEqual(width);
  });
});

describe('padding', () => {
  it.each<[string, string, number, string, string]>([
    ['ASCII', 'ab', 4, 'ab  ', '  ab'],
    ['CJK counts two a character', '会', 4, '会  ', '  会'],
    ['an emoji counts two', '🚀', 3, '🚀 ', ' 🚀'],
    ['already wider: unchanged', '会话', 2, '会话', '会话'],
  ])('%s', (_name, text, width, end, start) => {
    expect(padEndToWidth(text, width)).toBe(end);
    expect(padStartToWidth(text, width)).toBe(start);
  });
});
