// FNV-1a against the reference's published vectors (ASCII text: its bytes are its UTF-16 units),
// Latin-1 text (one unit, one byte), units above U+00FF (one step each) and a seeded basis; the
// expected values were computed apart, over the bytes or units listed.
import { expect, it } from 'vitest';
import { FNV1A_OFFSET_BASIS, fnv1a32 } from '../../../src/util/fnv1a.js';

it.each<[string, string, number | undefined, number]>([
  ['the empty string is the offset basis', '', undefined, 0x811c9dc5],
  ['reference vector "a"', 'a', undefined, 0xe40c292c],
  ['reference vector "b"', 'b', undefined, 0xe70c2de5],
  ['reference vector "c"', 'c', undefined, 0xe60c2c52],
  ['reference vector "foo"', 'foo', undefined, 0xa9f37ed7],
  ['reference vector "foobar"', 'foobar', undefined, 0xbf9cf968],
  ['reference vector "chongo was here!\\n"', 'chongo was here!\n', undefined, 0xd49930d5],
  ['Latin-1 "café" as bytes 63 61 66 e9', 'café', undefined, 0x3308be7c],
  ['Latin-1 "\\u00ff" as byte ff', '\u00ff', undefined, 0x7a0b824e],
  ['"€" as one unit 20ac', '€', undefined, 0xa93e2c4b],
  ['"😀" as two units d83d de00', '😀', undefined, 0xcb31c4b8],
  ['the offset basis given is the default', 'a', FNV1A_OFFSET_BASIS, 0xe40c292c],
  ['basis 0', 'a', 0, 0x610098b3],
  ['basis deadbeef', 'a', 0xdeadbeef, 0x1982f98a],
  ['the empty string with a basis is the basis', '', 42, 42],
])('%s', (_name, text, basis, hash) => {
  expect(fnv1a32(text, basis)).toBe(hash);
});
