// ProtoWriter's string fields against a reference built the plain way (tag, varint of
// Buffer.byteLength, Buffer.from), for the paths the writer takes: short strings, long strings
// written before their length is known (ASCII, and UTF-8 longer than the length reserved for it),
// strings too large for the room left (counted first), and lone surrogates, which Node writes as
// U+FFFD in both.
import { describe, expect, it } from 'vitest';
import { ProtoWriter, varintSize, writeVarint } from '../../../src/wire/proto-writer.js';

function varint(n: number): Buffer {
  const b = Buffer.alloc(varintSize(n));
  writeVarint(b, 0, n);
  return b;
}

/** `field` as a length-delimited string, written the plain way. */
function stringField(field: number, s: string): Buffer {
  const bytes = Buffer.from(s, 'utf8');
  return Buffer.concat([varint((field << 3) | 2), varint(bytes.length), bytes]);
}

const strings: Array<[string, string]> = [
  ['empty', ''],
  ['short ASCII', 'browser.session.id'],
  ['42 units of 3 bytes (the short limit)', '€'.repeat(42)],
  ['43 ASCII units (just past it)', 'a'.repeat(43)],
  ['127 and 128 bytes', 'a'.repeat(127) + '|' + 'b'.repeat(128)],
  ['length of one varint byte, UTF-8 of two', 'é'.repeat(100)],
  ['length of two varint bytes, UTF-8 of three', '€'.repeat(6000)],
  ['astral pairs', '😀'.repeat(50)],
  ['lone surrogates, short', 'a\ud800b\udc00'],
  ['lone surrogates, long', 'x'.repeat(60) + '\ud83d' + 'y'.repeat(60) + '\ude00'],
  ['control characters and NUL', '\u0000\u0001\n\t"\\'.repeat(20)],
];

describe('ProtoWriter string fields', () => {
  for (const [name, s] of strings) {
    it(`${name}: the bytes of the plain encoding`, () => {
      const w = new ProtoWriter();
      w.string(3, s);
      expect(w.copy()).toEqual(stringField(3, s));
    });

    it(`${name}: the same when the writer must grow or count first`, () => {
      // A writer with little room: the long path sizes the string exactly instead of reserving thrice.
      const w = new ProtoWriter(16);
      w.raw(Buffer.from('0123456789'));
      w.string(3, s);
      expect(w.copy()).toEqual(Buffer.concat([Buffer.from('0123456789'), stringField(3, s)]));
    });

    it(`${name}: as an AnyValue, the bytes of a nested string_value`, () => {
      const w = new ProtoWriter();
      w.anyString(2, s);
      const inner = stringField(1, s);
      expect(w.copy()).toEqual(Buffer.concat([varint((2 << 3) | 2), varint(inner.length), inner]));
    });
  }
});
