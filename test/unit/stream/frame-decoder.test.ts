import { describe, expect, it } from 'vitest';
import { createFrameDecoder, MAX_FRAME_BYTES, PIECE_OVERHEAD, type Frame } from '../../../src/stream/frame-decoder.js';
import { createReferenceFrameDecoder } from './reference-frame-decoder.js';

const enc = new TextEncoder();

function decodeIn(chunks: Uint8Array[]): Frame[] {
  const d = createFrameDecoder(() => {
    throw new Error('overflow');
  });
  const out: Frame[] = [];
  for (const c of chunks) d.feed(c, out);
  return out;
}

/** Frames and comments until the end of the stream. */
function decodeAll(
  chunks: Uint8Array[],
  make = () => createFrameDecoder(() => {}),
): { frames: Frame[]; comments: number } {
  const d = make();
  const frames: Frame[] = [];
  for (const c of chunks) d.feed(c, frames);
  d.end(frames);
  return { frames, comments: d.comments };
}

const bytes = (...parts: Array<string | number[]>): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...enc.encode(p)] : p)));

/** Splits bytes at every position given, e.g. inside multi-byte characters and between CR and LF. */
function splitAt(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

const json =
  '{"seq":1,"event":{"ts":1,"type":"console_log","category":"console","source":{},"data":{"text":"héllo — 日本 🎉"}}}';

describe('frame decoder', () => {
  it('decodes LF frames and ignores keepalive comments', () => {
    const frames = decodeIn([enc.encode(`: keepalive\n\nid: 1\ndata: ${json}\n\n`)]);
    expect(frames).toEqual([{ id: '1', data: json }]);
  });

  it('decodes CRLF frames', () => {
    expect(decodeIn([enc.encode(`id: 1\r\ndata: ${json}\r\n\r\n`)])).toEqual([{ id: '1', data: json }]);
  });

  it('joins data split over several data: lines with \\n', () => {
    const frames = decodeIn([enc.encode('id: 2\ndata: {"a":\ndata: 1}\n\n')]);
    expect(frames[0]!.data).toBe('{"a":\n1}');
    expect(JSON.parse(frames[0]!.data)).toEqual({ a: 1 });
  });

  it('strips a leading BOM', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode(`id: 1\ndata: ${json}\n\n`)]);
    expect(decodeIn([bytes])).toEqual([{ id: '1', data: json }]);
  });

  for (const size of [1, 2, 3, 5, 7]) {
    it(`reassembles frames fed in ${size}-byte chunks (split inside UTF-8 and CRLF)`, () => {
      const text = `id: 1\r\ndata: ${json}\r\n\r\n: keepalive\r\n\r\nid: 2\r\ndata: ${json}\r\n\r\n`;
      expect(decodeIn(splitAt(enc.encode(text), size))).toEqual([
        { id: '1', data: json },
        { id: '2', data: json },
      ]);
    });
  }

  it('keeps an unfinished frame until its blank line arrives', () => {
    const d = createFrameDecoder(() => {});
    const out: Frame[] = [];
    d.feed(enc.encode(`id: 1\ndata: ${json}\n`), out);
    expect(out).toHaveLength(0);
    d.feed(enc.encode('\n'), out);
    expect(out).toHaveLength(1);
  });

  it('CR-only line ends: the last frame is dispatched by its final CR, with no LF or end() needed', () => {
    const d = createFrameDecoder(() => {});
    const out: Frame[] = [];
    d.feed(enc.encode(`id: 1\rdata: ${json}\r\rid: 2\rdata: ${json}\r\r`), out);
    expect(out.map((f) => f.id)).toEqual(['1', '2']);
    d.end(out);
    expect(out).toEqual([
      { id: '1', data: json },
      { id: '2', data: json },
    ]);
  });

  it('CR-only frames in 1-byte chunks, flushed at the end', () => {
    const d = createFrameDecoder(() => {});
    const out: Frame[] = [];
    for (const c of splitAt(enc.encode(`:\r\rid: 1\rdata: ${json}\r\r`), 1)) d.feed(c, out);
    d.end(out);
    expect(out).toEqual([{ id: '1', data: json }]);
  });

  it('end() does not dispatch a frame cut before its blank line', () => {
    for (const tail of [`id: 3\ndata: ${json}\n`, `id: 3\ndata: ${json.slice(0, 20)}`, `id: 3\rdata: ${json}\r`]) {
      const d = createFrameDecoder(() => {});
      const out: Frame[] = [];
      d.feed(enc.encode(tail), out);
      d.end(out);
      expect(out, JSON.stringify(tail)).toEqual([]);
    }
  });

  it('is inert once a frame overflowed: a chunk already read, or the end, neither throws nor yields frames', () => {
    let overflows = 0;
    const d = createFrameDecoder(() => overflows++);
    const out: Frame[] = [];
    // Just over the limit, in one data line without its line end yet.
    d.feed(enc.encode('data: ' + 'x'.repeat(MAX_FRAME_BYTES + 1)), out);
    expect(overflows).toBe(1);
    expect(() => d.feed(enc.encode('x\n\nid: 3\ndata: {}\n\n'), out)).not.toThrow();
    expect(() => d.end(out)).not.toThrow();
    expect([out, overflows]).toEqual([[], 1]);
  });

  it('the id belongs to its frame: a frame without an id line has none (as eventsource-parser did)', () => {
    const text = 'id: 1\ndata: a\n\ndata: b\n\nid: 3\n\ndata: c\n\nid: 4\ndata: d\nid: 5\u0000\n\nid\ndata: e\n\n';
    const want = [
      { id: '1', data: 'a' },
      { id: undefined, data: 'b' }, // not '1'
      { id: undefined, data: 'c' }, // an id in a frame without data goes with it
      { id: '4', data: 'd' }, // an id containing NUL is ignored
      { id: '', data: 'e' }, // `id` alone is the empty id
    ];
    expect(decodeAll([enc.encode(text)]).frames).toEqual(want);
    expect(
      decodeAll([enc.encode(text)], () => createReferenceFrameDecoder(() => {}, { settleHeldCR: false })).frames,
    ).toEqual(want);
  });

  it('fields: one space after the colon dropped, `data` alone is an empty line, other fields and comments ignored', () => {
    const text =
      ': hi\ndata:x\ndata:  two\ndata\nevent: e\nretry: 5\nretry: x\nfoo: bar\nDATA: no\n data: no\ndata : no\n:\n\n';
    expect(decodeAll(splitAt(enc.encode(text), 3))).toEqual({
      frames: [{ id: undefined, data: 'x\n two\n' }],
      comments: 2,
    });
    expect(decodeAll([enc.encode('data\n\ndata:\ndata:\n\n')]).frames).toEqual([
      { id: undefined, data: '' },
      { id: undefined, data: '\n' },
    ]);
    expect(decodeAll([enc.encode('event: x\nid: 2\n\n:\n\n')])).toEqual({ frames: [], comments: 1 });
  });

  it('a BOM split over chunks is stripped once; a second one, or the first bytes of one alone, are not', () => {
    const bom = [0xef, 0xbb, 0xbf];
    const b = bytes(bom, 'data: 1\n\n');
    for (const size of [1, 2]) expect(decodeAll(splitAt(b, size)).frames).toEqual([{ id: undefined, data: '1' }]);
    // U+FEFF then "data": an unknown field, as the spec reads it.
    expect(decodeAll(splitAt(bytes(bom, bom, 'data: 2\n\n'), 1)).frames).toEqual([]);
    // EF BB then "data": not a BOM; the bytes begin the first line (an unknown field).
    expect(decodeAll(splitAt(bytes([0xef, 0xbb], 'data: 3\n\ndata: 4\n\n'), 1)).frames).toEqual([
      { id: undefined, data: '4' },
    ]);
    expect(decodeAll([bytes([0xef], '\ndata: 5\n\n')]).frames).toEqual([{ id: undefined, data: '5' }]);
    // Only at the start of the stream.
    expect(decodeAll([bytes('data: 6\n\n', bom, 'data: 7\n\n')]).frames).toEqual([{ id: undefined, data: '6' }]);
  });

  it('invalid UTF-8 in a value decodes as TextDecoder (non-fatal) does, whatever the chunks', () => {
    // ignoreBOM: a value is not the start of a stream, a U+FEFF in it is text.
    const td = new TextDecoder('utf-8', { ignoreBOM: true });
    const tricky: number[][] = [
      [0xe2, 0x82], // truncated 3-byte (€ without its last byte)
      [0xf0, 0x9f, 0x8e], // truncated 4-byte
      [0xc2],
      [0xf4], // a lead byte alone
      [0xc0, 0xaf],
      [0xc1, 0xbf],
      [0xe0, 0x80, 0xaf],
      [0xf0, 0x80, 0x80, 0xaf], // overlong
      [0xed, 0xa0, 0x80],
      [0xed, 0xbf, 0xbf],
      [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80], // surrogates, paired too
      [0x80],
      [0xbf, 0xbf],
      [0x80, 0x41], // lone continuation bytes
      [0xf4, 0x90, 0x80, 0x80],
      [0xf5, 0x80],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0xfe],
      [0xff], // beyond U+10FFFF, never valid
      [0xe2, 0x82, 0xe2, 0x82, 0xac],
      [0xc3, 0xe9], // a sequence cut by the next lead byte
      [0xef, 0xbb, 0xbf], // a BOM inside a value stays
      [0x00],
      [0xc3, 0xa9, 0xf0, 0x9f, 0x8e, 0x89], // NUL, and valid text
    ];
    for (const t of tricky) {
      for (const [pre, post] of [
        [[], []],
        [[0x61], [0x62]],
        [[0xe2], [0x20]],
      ] as number[][][]) {
        const value = [...pre!, ...t, ...post!];
        const want = td.decode(Uint8Array.from(value));
        const stream = bytes('id: 1\ndata: ', value, '\ndata: ', value, '\n\n');
        for (const size of [1, 2, 3, stream.length]) {
          expect(
            decodeAll(splitAt(stream, size)).frames,
            `${value.map((x) => x.toString(16))} in ${size}-byte chunks`,
          ).toEqual([{ id: '1', data: `${want}\n${want}` }]);
        }
        // And in an id.
        expect(decodeAll([bytes('id: ', value, '\ndata: x\n\n')]).frames[0]!.id).toBe(
          value.includes(0) ? undefined : want,
        );
      }
    }
  });

  it('a CR ending a frame at the end of a chunk: the frame is dispatched with that chunk, not the next', () => {
    const chunks = [enc.encode('data: 1\r\r'), enc.encode('data: 2')];
    expect(decodeAll(chunks)).toEqual({ frames: [{ id: undefined, data: '1' }], comments: 0 });
    // On a quiet stream the next chunk may be a keepalive 15 s later: the frame must not wait for it.
    const d = createFrameDecoder(() => {});
    const out: Frame[] = [];
    d.feed(chunks[0]!, out);
    expect(out).toEqual([{ id: undefined, data: '1' }]);
    // An LF opening the next chunk is the rest of that CRLF, not a second (blank) line.
    d.feed(enc.encode('\ndata: 3\n\n'), out);
    expect(out).toEqual([
      { id: undefined, data: '1' },
      { id: undefined, data: '3' },
    ]);
  });

  it('a text BOM mis-decoded as Latin-1 ("ï»¿") at the start is an unknown field, not stripped (eventsource-parser stripped it)', () => {
    const chunks = [enc.encode('\u00ef\u00bb\u00bfdata: 1\n\ndata: 2\n\n')];
    expect(decodeAll(chunks).frames).toEqual([{ id: undefined, data: '2' }]);
    expect(decodeAll(chunks, () => createReferenceFrameDecoder(() => {}, { settleHeldCR: false })).frames).toHaveLength(
      2,
    );
  });

  it('a frame over many chunks is copied out of them: changing a chunk after feed() changes nothing', () => {
    const big = 'y'.repeat(970_000) + 'é';
    const stream = bytes('id: 9\ndata: ', big, '\ndata: z\n\n');
    const d = createFrameDecoder(() => {});
    const out: Frame[] = [];
    for (let i = 0; i < stream.length; i += 65536) {
      const chunk = stream.slice(i, i + 65536);
      d.feed(chunk, out);
      chunk.fill(0x21);
    }
    expect(out).toEqual([{ id: '9', data: `${big}\nz` }]);
  });

  it('overflow counts the unfinished frame over several chunks, data lines included', () => {
    let overflows = 0;
    const d = createFrameDecoder(() => overflows++);
    const out: Frame[] = [];
    const line = enc.encode('data: ' + 'x'.repeat(1024 * 1024 - 7) + '\n');
    d.feed(enc.encode('id: 1\ndata: {}\n\n'), out);
    // Held after n such lines: n values of line.length - 7 bytes, each in a Buffer of its own.
    const held = (n: number): number => n * (line.length - 7 + PIECE_OVERHEAD);
    let fed = 0;
    while (overflows === 0 && fed <= MAX_FRAME_BYTES / line.length) {
      d.feed(line, out);
      fed++;
    }
    expect(overflows).toBe(1);
    expect(held(fed - 1)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    expect(held(fed)).toBeGreaterThan(MAX_FRAME_BYTES);
    d.feed(enc.encode('\n'), out);
    d.end(out);
    expect([out, overflows]).toEqual([[{ id: '1', data: '{}' }], 1]);
  });

  it('a complete frame over the limit in one chunk overflows too; the frames before it are handed out', () => {
    let overflows = 0;
    const d = createFrameDecoder(() => overflows++);
    const out: Frame[] = [];
    const big = Buffer.alloc(MAX_FRAME_BYTES + 64, 'x');
    big.write('id: 1\ndata: {}\n\nid: 2\ndata: ');
    big.write('\n\nid: 3\ndata: {}\n\n', big.length - 22);
    d.feed(big, out);
    d.end(out);
    expect([out, overflows]).toEqual([[{ id: '1', data: '{}' }], 1]);
  });
});
