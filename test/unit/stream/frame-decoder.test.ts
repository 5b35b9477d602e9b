import { describe, expect, it } from 'vitest';
import { createFrameDecoder, MAX_FRAME_CHARS, type Frame } from '../../../src/stream/frame-decoder.js';

const enc = new TextEncoder();

function decodeIn(chunks: Uint8Array[]): Frame[] {
  const d = createFrameDecoder(() => {
    throw new Error('overflow');
  });
  const out: Frame[] = [];
  for (const c of chunks) d.feed(c, out);
  return out;
}

/** Splits bytes at every position given, e.g. inside multi-byte characters and between CR and LF. */
function splitAt(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

const json = '{"seq":1,"event":{"ts":1,"type":"console_log","category":"console","source":{},"data":{"text":"héllo — 日本 🎉"}}}';

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
      expect(decodeIn(splitAt(enc.encode(text), size))).toEqual([{ id: '1', data: json }, { id: '2', data: json }]);
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

  it('CR-only line ends: the last frame is dispatched when the stream ends (its final CR may not be followed by LF)', () => {
    const d = createFrameDecoder(() => {});
    const out: Frame[] = [];
    d.feed(enc.encode(`id: 1\rdata: ${json}\r\rid: 2\rdata: ${json}\r\r`), out);
    expect(out.map((f) => f.id)).toEqual(['1']);
    d.end(out);
    expect(out).toEqual([{ id: '1', data: json }, { id: '2', data: json }]);
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
    d.feed(enc.encode('data: ' + 'x'.repeat(MAX_FRAME_CHARS + 1)), out);
    expect(overflows).toBe(1);
    expect(() => d.feed(enc.encode('x\n\nid: 3\ndata: {}\n\n'), out)).not.toThrow();
    expect(() => d.end(out)).not.toThrow();
    expect([out, overflows]).toEqual([[], 1]);
  });
});
