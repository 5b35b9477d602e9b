import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createResponseParser, HttpParseError, type ResponseHead } from '../../../src/upstream/http-response-parser.js';

interface Parsed {
  heads: ResponseHead[];
  body: string;
  ended: boolean;
  error?: string;
}

/**
 * Feeds `wire` cut at `cuts`, each piece through one scratch buffer that the next piece overwrites
 * (as the shared read buffer is): whatever the parser kept by reference would come out garbled.
 */
function parse(wire: string, cuts: number[] = [], eof = true): Parsed {
  const bytes = Buffer.from(wire, 'latin1');
  const scratch = Buffer.alloc(bytes.length + 16, 0x7e);
  const got: Parsed = { heads: [], body: '', ended: false };
  const parser = createResponseParser({
    head: (h) => got.heads.push(h),
    body: (buf, s, e) => {
      got.body += buf.toString('latin1', s, e);
    },
    end: () => {
      got.ended = true;
    },
  });
  const bounds = [0, ...cuts, bytes.length];
  try {
    for (let i = 0; i + 1 < bounds.length; i++) {
      scratch.fill(0x7e);
      const n = bytes.copy(scratch, 0, bounds[i], bounds[i + 1]);
      parser.feed(scratch, n);
    }
    if (eof) parser.eof();
  } catch (err) {
    if (!(err instanceof HttpParseError)) throw err;
    got.error = err.message;
  }
  return got;
}

/** Every way of cutting `wire` in two, then in single bytes: the result must not depend on the cuts. */
function everySplit(wire: string, eof = true): Parsed {
  const whole = parse(wire, [], eof);
  for (let i = 1; i < wire.length; i++) expect(parse(wire, [i], eof), `cut at ${i}`).toEqual(whole);
  expect(
    parse(
      wire,
      Array.from({ length: wire.length - 1 }, (_, i) => i + 1),
      eof,
    ),
    'byte by byte',
  ).toEqual(whole);
  return whole;
}

const SSE = 'content-type: text/event-stream\r\n';

describe('the stream response parser', () => {
  const good: Array<[string, string, Partial<Parsed> & { status: number }]> = [
    [
      'a chunked body',
      `HTTP/1.1 200 OK\r\n${SSE}transfer-encoding: chunked\r\n\r\n5\r\nid: 1\r\nb;ext=1\r\n\ndata: abc\n\r\n0\r\n\r\n`,
      { status: 200, body: 'id: 1\ndata: abc\n', ended: true },
    ],
    [
      'a chunked body with trailers and lone LFs',
      `HTTP/1.1 200 OK\n${SSE}Transfer-Encoding: gzip, chunked\n\n3\nabc\n0\nx-trailer: 1\n\n`,
      { status: 200, body: 'abc', ended: true },
    ],
    [
      'a content-length body',
      `HTTP/1.1 404 Not Found\r\ncontent-length: 13\r\n\r\n{"code":"x"}\n`,
      { status: 404, body: '{"code":"x"}\n', ended: true },
    ],
    [
      'a repeated equal content-length',
      `HTTP/1.1 500 Oops\r\ncontent-length: 2, 2\r\ncontent-length: 2\r\n\r\nab`,
      { status: 500, body: 'ab', ended: true },
    ],
    [
      'a body read until close',
      `HTTP/1.0 200 OK\r\n${SSE}\r\ndata: 1\n\n`,
      { status: 200, body: 'data: 1\n\n', ended: true },
    ],
    [
      'another transfer coding than chunked last: read until close',
      `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked, gzip\r\ncontent-length: 1\r\n\r\nabc`,
      { status: 200, body: 'abc', ended: true },
    ],
    ['a 204 without a body', `HTTP/1.1 204 No Content\r\n\r\n`, { status: 204, body: '', ended: true }],
    ['a zero content-length', `HTTP/1.1 401 No\r\ncontent-length: 0\r\n\r\n`, { status: 401, body: '', ended: true }],
    [
      'interim answers before the real one',
      `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: x\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nz`,
      { status: 200, body: 'z', ended: true },
    ],
    ['a status line without a reason', `HTTP/1.1 429\r\ncontent-length: 0\r\n\r\n`, { status: 429, ended: true }],
    [
      'sizes padded with leading zeros past the digit bounds (RFC 9112: 1*HEXDIG, 1*DIGIT)',
      `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0000000000000003\r\nabc\r\n0000000000000000\r\n\r\n`,
      { status: 200, body: 'abc', ended: true },
    ],
    [
      'chunk-size lines in every form: upper case, spaces before the end, an extension, LF alone',
      `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2 \r\nab\r\nA\nabcdefghij\r\n1;x=y\r\nc\r\n00\r\n\r\n`,
      { status: 200, body: 'ababcdefghijc', ended: true },
    ],
    [
      'a content-length padded with leading zeros',
      `HTTP/1.1 404 No\r\ncontent-length: 00000000000000000002\r\n\r\nab`,
      { status: 404, body: 'ab', ended: true },
    ],
    [
      'bytes after the end are ignored',
      `HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nzHTTP/1.1`,
      { status: 200, body: 'z' },
    ],
  ];
  for (const [name, wire, want] of good) {
    it(`reads ${name}, cut anywhere`, () => {
      const got = everySplit(wire);
      expect(got.error).toBeUndefined();
      expect(got.heads.map((h) => h.statusCode)).toEqual([want.status]);
      if (want.body !== undefined) expect(got.body).toBe(want.body);
      if (want.ended !== undefined) expect(got.ended).toBe(want.ended);
    });
  }

  it('lowercases names and joins repeated fields', () => {
    const got = parse(`HTTP/1.1 429 Slow\r\nRetry-After: 3\r\nX-A: 1\r\nx-a:  2 \r\ncontent-length: 0\r\n\r\n`);
    expect(got.heads[0]!.headers).toEqual({ 'retry-after': '3', 'x-a': '1, 2', 'content-length': '0' });
  });

  const bad: Array<[string, string, RegExp, boolean?]> = [
    ['not HTTP', 'SSH-2.0-OpenSSH_9.6\r\n\r\n', /not an HTTP\/1.1 status line/],
    ['HTTP/2 framing', 'HTTP/2 200\r\n\r\n', /status line/],
    ['a status of two digits', 'HTTP/1.1 20 OK\r\n\r\n', /status line/],
    ['a header without a colon', 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n', /malformed header line/],
    ['a space before the colon', 'HTTP/1.1 200 OK\r\nname : x\r\n\r\n', /malformed header line/],
    ['obsolete line folding', 'HTTP/1.1 200 OK\r\nx: 1\r\n  2\r\n\r\n', /obsolete line folding/],
    ['a control character in a value', 'HTTP/1.1 200 OK\r\nx: a\x01b\r\n\r\n', /control characters/],
    ['differing content-lengths', 'HTTP/1.1 200 OK\r\ncontent-length: 1, 2\r\n\r\nab', /invalid Content-Length/],
    ['a negative content-length', 'HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n', /invalid Content-Length/],
    [
      'a chunk size that is not hex',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n',
      /invalid chunk size/,
    ],
    [
      'a chunk size too large',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1000000000000\r\n',
      /invalid chunk size/,
    ],
    [
      'a chunk longer than its size',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n',
      /not followed by CRLF/,
    ],
    ['101 to a GET', 'HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\n\r\n', /101/],
    ['nothing at all', '', /closed before a response/],
    ['a head cut off', 'HTTP/1.1 200 OK\r\ncontent-', /closed in the response head/],
    ['a body shorter than its length', 'HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc', /7 bytes before/],
    [
      'a chunked body cut mid-chunk',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nab',
      /inside a chunked/,
    ],
    [
      'a chunked body without its last chunk',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1\r\na\r\n',
      /inside a chunked/,
    ],
  ];
  for (const [name, wire, why] of bad) {
    it(`rejects ${name}, cut anywhere`, () => {
      const got = wire === '' ? parse(wire) : everySplit(wire);
      expect(got.error).toMatch(why);
    });
  }

  it('rejects a head over its limit without holding more than the limit', () => {
    const parser = createResponseParser({ head: () => {}, body: () => {}, end: () => {} }, 64);
    parser.feed(Buffer.from('HTTP/1.1 200 OK\r\nx: '));
    expect(() => parser.feed(Buffer.from('a'.repeat(100)))).toThrow(/response head over 64 bytes/);
  });

  it('reads any chunked body the same however its reads are cut, whatever its size lines look like', () => {
    const sizeLine = fc.record({
      zeros: fc.integer({ min: 0, max: 3 }),
      upper: fc.boolean(),
      tail: fc.constantFrom('', ' ', ';ext=1', '\t;a'),
      end: fc.constantFrom('\r\n', '\n'),
    });
    const piece = fc.tuple(fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 40 }), sizeLine);
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 6 }),
        sizeLine,
        fc.array(fc.nat(), { maxLength: 8 }),
        (pieces, last, cutSeeds) => {
          const line = (size: number, f: { zeros: number; upper: boolean; tail: string; end: string }): string => {
            const hex = size.toString(16);
            return `${'0'.repeat(f.zeros)}${f.upper ? hex.toUpperCase() : hex}${f.tail}${f.end}`;
          };
          let wire = 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n';
          for (const [data, f] of pieces) wire += `${line(data.length, f)}${data}\r\n`;
          wire += `${line(0, last)}\r\n`;
          const cuts = [...new Set(cutSeeds.map((c) => 1 + (c % (wire.length - 1))))].sort((a, b) => a - b);
          expect(parse(wire, cuts)).toEqual({
            heads: [{ statusCode: 200, headers: { 'transfer-encoding': 'chunked' } }],
            body: pieces.map(([data]) => data).join(''),
            ended: true,
          });
        },
      ),
    );
  });

  it('rejects an endless chunk-size line', () => {
    const parser = createResponseParser({ head: () => {}, body: () => {}, end: () => {} });
    parser.feed(Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1;'));
    expect(() => parser.feed(Buffer.from('x'.repeat(2000)))).toThrow(/chunk-size line is too long/);
  });

  it('reads nothing more once it failed', () => {
    const bodies: string[] = [];
    const parser = createResponseParser({
      head: () => {},
      body: (b, s, e) => bodies.push(b.toString('latin1', s, e)),
      end: () => {},
    });
    expect(() => parser.feed(Buffer.from('HTTP/1.1 200 OK\r\nbad\r\n\r\n'))).toThrow(HttpParseError);
    parser.feed(Buffer.from('more'));
    expect(bodies).toEqual([]);
  });
});
