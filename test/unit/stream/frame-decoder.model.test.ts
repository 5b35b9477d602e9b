// The byte decoder (src/stream/frame-decoder.ts) against the decoder it replaced, TextDecoder +
// eventsource-parser (reference-frame-decoder.ts, with its held-CR mended: see there): random streams
// of frames (ids, multi-line data with any unicode, comments, ignored fields, CR/LF/CRLF line ends,
// a BOM or not, invalid UTF-8, an unfinished frame at the end) and random byte soups, cut into
// random chunks (1-byte chunks, cuts inside multi-byte characters, inside the BOM and between CR and
// LF), must give exactly the same frames and comment count. After every chunk the byte decoder may
// be ahead of the reference (it parses a line at its CR; the reference holds a CR back, and a
// multi-byte character cut by the chunk) but never behind: what the reference handed out so far is
// a prefix of what the byte decoder did.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFrameDecoder, type Frame, type FrameDecoder } from '../../../src/stream/frame-decoder.js';
import { createReferenceFrameDecoder } from './reference-frame-decoder.js';

const enc = new TextEncoder();
const BOM = [0xef, 0xbb, 0xbf];

const eol = fc.constantFrom('\n', '\r\n', '\r');
/** Invalid or tricky UTF-8: truncated sequences, overlongs, encoded surrogates, lone continuation bytes, beyond U+10FFFF. */
const oddBytes = fc.constantFrom(
  [0x80],
  [0xbf],
  [0xc0, 0xaf],
  [0xc1, 0xbf],
  [0xc2],
  [0xe2, 0x82],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf0, 0x9f],
  [0xf0, 0x9f, 0x8e],
  [0xf0, 0x80, 0x80, 0xaf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf5],
  [0xff],
  [0xfe],
  [0xef, 0xbb, 0xbf],
  [0xef, 0xbb],
  [0x00],
  [0xc3, 0xa9],
  [0xf0, 0x9f, 0x8e, 0x89],
);
/** A field value: text of any code points (no line ends), with odd bytes here and there. */
const value = fc
  .array(
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .string({ unit: 'grapheme', maxLength: 8 })
          .map((s) => Array.from(enc.encode(s.replace(/[\r\n]/g, '')))),
      },
      {
        weight: 2,
        arbitrary: fc
          .string({ unit: 'binary', maxLength: 4 })
          .map((s) => Array.from(enc.encode(s.replace(/[\r\n]/g, '')))),
      },
      {
        weight: 2,
        arbitrary: fc
          .constantFrom('{"seq":1}', ' ', '  ', 'héllo — 日本 🎉', ':', 'data: x', '\0')
          .map((s) => Array.from(enc.encode(s))),
      },
      { weight: 1, arbitrary: oddBytes },
    ),
    { maxLength: 5 },
  )
  .map((parts) => parts.flat());

type Line = number[];
const ascii = (s: string): Line => Array.from(enc.encode(s));
/** One line's bytes, without its line end. */
const line: fc.Arbitrary<Line> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.tuple(fc.constantFrom('data:', 'data: ', 'data:  '), value).map(([f, v]) => [...ascii(f), ...v]),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom('id:', 'id: '),
        fc.oneof(
          fc.nat().map((n) => ascii(String(n))),
          value,
        ),
      )
      .map(([f, v]) => [...ascii(f), ...v]),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom(':', ': ', ':keepalive'), value).map(([f, v]) => [...ascii(f), ...v]),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        'data',
        'id',
        'event: ping',
        'retry: 1000',
        'retry: x',
        'dat',
        'datum: 1',
        'idx: 2',
        ' data: 3',
        'DATA: 4',
        'Id: 5',
      )
      .map(ascii),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom('event:', 'unknown: ', 'x'), value).map(([f, v]) => [...ascii(f), ...v]),
  },
);
/** A frame: its lines, then a blank line (or, rarely, blank lines of its own). */
const frame = fc
  .tuple(fc.array(line, { minLength: 0, maxLength: 5 }), fc.integer({ min: 1, max: 2 }))
  .map(([lines, blanks]) => [...lines, ...Array<Line>(blanks).fill([])]);

const stream = fc
  .record({
    bom: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    frames: fc.array(frame, { maxLength: 8 }),
    /** Lines of a frame cut off by the end of the stream, and the bytes of a line cut in the middle. */
    tail: fc.tuple(fc.array(line, { maxLength: 2 }), fc.oneof(fc.constant<Line>([]), line)),
    /** The line ends: one style for the whole stream (when `mixed` is false), or each line its own. */
    mixed: fc.boolean(),
    ends: fc.array(eol, { minLength: 1, maxLength: 50 }),
  })
  .map(({ bom, frames, tail, mixed, ends }) => {
    const bytes: number[] = bom ? [...BOM] : [];
    let i = 0;
    for (const l of [...frames.flat(), ...tail[0]]) bytes.push(...l, ...ascii(ends[mixed ? i++ % ends.length : 0]!));
    bytes.push(...tail[1]);
    return Uint8Array.from(bytes);
  });

/** Any bytes from the pieces SSE is made of: checks what the structure above would not think of. */
const soup = fc
  .array(
    fc.oneof(
      {
        weight: 12,
        arbitrary: fc
          .constantFrom(
            'data:',
            'data: ',
            'data',
            'id:',
            'id: ',
            'id',
            ':',
            ' ',
            '\r',
            '\n',
            '\r\n',
            '\n\n',
            '\r\r',
            'event:',
            'x',
            '7',
            '\0',
            'é',
            '🎉',
          )
          .map(ascii),
      },
      { weight: 2, arbitrary: oddBytes },
      { weight: 1, arbitrary: fc.constant(BOM) },
    ),
    { maxLength: 60 },
  )
  .map((parts) => Uint8Array.from(parts.flat()));

/** Cut points: anywhere, after every CR (CRLF split), or every byte. */
function chunked(bytes: fc.Arbitrary<Uint8Array>): fc.Arbitrary<{ bytes: Uint8Array; chunks: Uint8Array[] }> {
  return bytes.chain((b) => {
    const afterCR = b.reduce<number[]>((at, x, i) => (x === 13 ? [...at, i + 1] : at), []);
    return fc
      .oneof(
        {
          weight: 4,
          arbitrary: fc.uniqueArray(fc.integer({ min: 0, max: b.length }), { maxLength: Math.min(b.length, 12) }),
        },
        {
          weight: 2,
          arbitrary: fc
            .subarray(afterCR)
            .chain((cr) =>
              fc
                .uniqueArray(fc.integer({ min: 0, max: b.length }), { maxLength: 4 })
                .map((more) => [...new Set([...cr, ...more])]),
            ),
        },
        { weight: 1, arbitrary: fc.constant(Array.from({ length: b.length + 1 }, (_, i) => i)) },
      )
      .map((cuts) => {
        const at = [0, ...cuts.sort((x, y) => x - y), b.length];
        const chunks: Uint8Array[] = [];
        // Empty chunks too, now and then (a cut at either end).
        for (let i = 1; i < at.length; i++) chunks.push(b.slice(at[i - 1], at[i]));
        return { bytes: b, chunks };
      });
  });
}

interface Run {
  frames: Frame[];
  comments: number;
  afterEach: Array<{ frames: number; comments: number }>;
}

function run(make: () => FrameDecoder, chunks: Uint8Array[]): Run {
  const d = make();
  const frames: Frame[] = [];
  const afterEach: Run['afterEach'] = [];
  for (const c of chunks) {
    const out: Frame[] = [];
    d.feed(c, out);
    frames.push(...out);
    afterEach.push({ frames: frames.length, comments: d.comments });
  }
  const out: Frame[] = [];
  d.end(out);
  frames.push(...out);
  return { frames, comments: d.comments, afterEach };
}

const noOverflow = (): void => {
  throw new Error('overflow');
};

/** The property, for a decoder under test (a deliberately broken one must fail it). */
function agreesWithReference(make: () => FrameDecoder, c: { bytes: Uint8Array; chunks: Uint8Array[] }): void {
  const want = run(() => createReferenceFrameDecoder(noOverflow, { settleHeldCR: true }), c.chunks);
  const got = run(make, c.chunks);
  expect({ frames: got.frames, comments: got.comments }).toEqual({ frames: want.frames, comments: want.comments });
  // Never behind the reference after a chunk.
  got.afterEach.forEach((g, i) => {
    const w = want.afterEach[i]!;
    expect(g.frames >= w.frames && g.comments >= w.comments, `after chunk ${i}`).toBe(true);
  });
}

const decoder = (): FrameDecoder => createFrameDecoder(noOverflow);

describe('frame decoder against TextDecoder + eventsource-parser', () => {
  it('random streams of frames, cut anywhere', () => {
    fc.assert(
      fc.property(chunked(stream), (c) => agreesWithReference(decoder, c)),
      { numRuns: 1500 },
    );
  });

  it('random soups of SSE pieces, cut anywhere', () => {
    fc.assert(
      fc.property(chunked(soup), (c) => agreesWithReference(decoder, c)),
      { numRuns: 1500 },
    );
  });

  it('the same bytes in one chunk', () => {
    fc.assert(
      fc.property(stream, (b) => agreesWithReference(decoder, { bytes: b, chunks: [b] })),
      { numRuns: 500 },
    );
  });

  it('fails a decoder with a bug (the property can fail)', () => {
    // A plausible bug: every LF that begins a chunk is taken for the second half of a CRLF split by
    // the chunk boundary, also when the previous chunk did not end in CR.
    const broken = (): FrameDecoder => {
      const d = createFrameDecoder(noOverflow);
      let first = true;
      return {
        feed(chunk, out) {
          d.feed(chunk.subarray(!first && chunk[0] === 10 ? 1 : 0), out);
          if (chunk.length > 0) first = false;
        },
        end: (out) => d.end(out),
        get comments() {
          return d.comments;
        },
      };
    };
    expect(() =>
      fc.assert(
        fc.property(chunked(stream), (c) => agreesWithReference(broken, c)),
        // The first counterexample is enough: shrinking a long chunked stream can take minutes.
        { numRuns: 1500, endOnFailure: true },
      ),
    ).toThrow();
  });
});
