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

/** `field` as a length-delimited message around `content`, written the plain way. */
function message(field: number, content: Buffer): Buffer {
  return Buffer.concat([varint((field << 3) | 2), varint(content.length), content]);
}

// Content sizes either side of each varint width (1, 2, 3 bytes), for both reservations.
const sizes = [0, 1, 126, 127, 128, 129, 16_382, 16_383, 16_384, 16_385, 2_097_152];

describe('ProtoWriter nested messages', () => {
  for (const size of sizes) {
    const content = Buffer.alloc(size, 0x61);
    for (const width of [1, 2, 3]) {
      it(`${size} bytes with ${width} length byte(s) reserved: the minimal length varint`, () => {
        const w = new ProtoWriter(16);
        w.raw(Buffer.from('xy'));
        const at = w.begin(5, width);
        w.raw(content);
        w.end(at, width);
        expect(w.copy()).toEqual(Buffer.concat([Buffer.from('xy'), message(5, content)]));
      });
    }
  }

  it('nested messages of every reservation, each around a boundary', () => {
    const w = new ProtoWriter(16);
    const outer = w.begin(2, 2);
    const small = w.begin(5, 2);
    w.raw(Buffer.alloc(10, 0x62));
    w.end(small, 2);
    const inner = w.begin(6);
    w.raw(Buffer.alloc(200, 0x63));
    w.end(inner);
    const wide = w.begin(7, 3);
    w.raw(Buffer.alloc(127, 0x64));
    w.end(wide, 3);
    w.end(outer, 2);
    const expected = message(
      2,
      Buffer.concat([
        message(5, Buffer.alloc(10, 0x62)),
        message(6, Buffer.alloc(200, 0x63)),
        message(7, Buffer.alloc(127, 0x64)),
      ]),
    );
    expect(w.copy()).toEqual(expected);
  });
});

// Long string values reserve the AnyValue's length for ASCII; these cross a width boundary only
// once their UTF-8 is counted (or sit right at one as ASCII).
const longValues: Array<[string, string]> = [
  ['ASCII, AnyValue of 127 bytes', 'a'.repeat(124)],
  ['ASCII, AnyValue of 128 bytes', 'a'.repeat(125)],
  ['ASCII, string of 127 bytes (AnyValue 130)', 'a'.repeat(127)],
  ['ASCII, AnyValue of 16,383 bytes', 'a'.repeat(16_380)],
  ['ASCII, AnyValue of 16,384 bytes', 'a'.repeat(16_381)],
  ['two-byte UTF-8 that crosses 128 only as bytes', 'é'.repeat(60)],
  ['three-byte UTF-8 that crosses 16,384 only as bytes', '€'.repeat(6_000)],
  ['one unit past the limit, one multi-byte character', 'a'.repeat(123) + 'é'],
  ['a screenshot-sized base64 string', 'iVBORw0KGgo'.repeat(3_000)],
];

describe('ProtoWriter long AnyValue strings', () => {
  for (const [name, s] of longValues) {
    it(`${name}: the bytes of a nested string_value`, () => {
      for (const initial of [16, 64 * 1024]) {
        const w = new ProtoWriter(initial);
        w.anyString(2, s);
        expect(w.copy()).toEqual(message(2, stringField(1, s)));
      }
    });
  }
});

// A KeyValue written in one piece (keyStringValue) from a cached key field: keys and values
// either side of the KeyValue's one-byte length (127 / 128 bytes), UTF-8 longer than its units,
// and lone surrogates (U+FFFD, three bytes, as Buffer.from writes them).
const keyValues: Array<[string, string, string]> = [
  ['empty key and value', '', ''],
  ['a short attribute', 'browser.session.id', 'session-7'],
  ['a value of 40 ASCII units (the limit)', 'url.full', 'h'.repeat(40)],
  ['40 units of 3 bytes', 'message', '€'.repeat(40)],
  ['KeyValue of 127 bytes', 'k'.repeat(81), 'v'.repeat(40)],
  ['KeyValue of 128 bytes', 'k'.repeat(82), 'v'.repeat(40)],
  ['128 bytes only once the value is UTF-8', 'k'.repeat(82), 'v'.repeat(38) + 'é'],
  ['a long key beside 120 bytes of value', 'k'.repeat(190), '€'.repeat(40)],
  ['astral pairs', 'text', '😀'.repeat(20)],
  ['lone surrogates', 'text', 'a\ud800b\udc00' + '\ud83d'.repeat(10)],
];

describe('ProtoWriter KeyValue of a short string', () => {
  for (const [name, key, value] of keyValues) {
    it(`${name}: the bytes of KeyValue{key, AnyValue{string_value}}`, () => {
      for (const field of [1, 6]) {
        // Little room, so that the writer grows; something before it, so that positions are not 0.
        const w = new ProtoWriter(16);
        w.raw(Buffer.from('xy'));
        w.keyStringValue(field, stringField(1, key), value);
        const kv = message(field, Buffer.concat([stringField(1, key), message(2, stringField(1, value))]));
        expect(w.copy()).toEqual(Buffer.concat([Buffer.from('xy'), kv]));
      }
    });
  }
});

// An integer KeyValue in one piece (keyUintValue): values either side of each varint width up to
// 2^53 - 1, and keys that put the KeyValue at 127 and 128 bytes.
const keyInts: Array<[string, string, number]> = [
  ['zero', 'nav_seq', 0],
  ['127 and one varint byte', 'status', 127],
  ['128 and two varint bytes', 'status', 128],
  ['2^32', 'node_id', 2 ** 32],
  ['the largest safe integer', 'big', Number.MAX_SAFE_INTEGER],
  ['KeyValue of 127 bytes', 'k'.repeat(121), 1],
  ['KeyValue of 128 bytes', 'k'.repeat(122), 1],
  ['a long key', 'k'.repeat(190), 300],
];

describe('ProtoWriter KeyValue of a non-negative integer', () => {
  for (const [name, key, n] of keyInts) {
    it(`${name}: the bytes of KeyValue{key, AnyValue{int_value}}`, () => {
      const w = new ProtoWriter(16);
      w.raw(Buffer.from('xy'));
      w.keyUintValue(6, stringField(1, key), n);
      const int = Buffer.concat([Buffer.from([(3 << 3) | 0]), varint(n)]);
      const kv = message(6, Buffer.concat([stringField(1, key), message(2, int)]));
      expect(w.copy()).toEqual(Buffer.concat([Buffer.from('xy'), kv]));
    });
  }
});
