// parseEnvelope lifts a screenshot's PNG out of the frame before JSON.parse (upstream/envelope.ts
// liftPng). Whatever the frame, the result must be exactly what parsing the whole text gives; and for
// an ordinary screenshot frame the lift must actually happen (the parser never sees the base64).
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  LIFT_PNG_ABOVE_CHARS,
  parseEnvelope,
  parseWholeEnvelope,
  type EnvelopeResult,
} from '../../../src/upstream/envelope.js';

const PNG = 'iVBORw0KGgo' + 'QUJD+/0x'.repeat(LIFT_PNG_ABOVE_CHARS / 8 + 10) + '==';

/** What parsing the whole text gives: the reference. */
const whole = (text: string): EnvelopeResult => parseWholeEnvelope(text);

function frame(event: Record<string, unknown>): string {
  return JSON.stringify({
    seq: 7,
    event: { ts: 1_700_000_000_000_000, category: 'system', source: { kind: 'cdp' }, ...event },
  });
}

afterEach(() => vi.restoreAllMocks());

describe('parseEnvelope lifts the PNG of a large screenshot frame', () => {
  const cases: Array<[string, string]> = [
    [
      'an ordinary screenshot',
      frame({ type: 'monitor_screenshot', data: { png: PNG, trigger: 'Page.loadEventFired' } }),
    ],
    [
      'png before the other keys',
      `{"seq":7,"event":{"type":"monitor_screenshot","data":{"png":"${PNG}","x":1},"ts":1700000000000000,"category":"system","source":{}}}`,
    ],
    [
      'a "png" key in source.metadata first',
      frame({ source: { metadata: { png: 'abc' } }, type: 'monitor_screenshot', data: { png: PNG } }),
    ],
    ['a "png" key nested in data', frame({ type: 'monitor_screenshot', data: { nested: { png: PNG }, png: 'small' } })],
    ['png under another event type', frame({ type: 'console_log', data: { png: PNG } })],
    [
      'duplicate png keys (the last wins, as in JSON.parse)',
      `{"seq":7,"event":{"ts":1700000000000000,"type":"monitor_screenshot","category":"system","source":{},"data":{"png":"${PNG}","png":"second"}}}`,
    ],
    ['escaped slashes in the base64', frame({ type: 'monitor_screenshot', data: { png: PNG } }).replaceAll('/', '\\/')],
    [
      'an escaped "png" inside a string before the key',
      frame({ type: 'monitor_screenshot', data: { text: '"png":"fake"', png: PNG } }),
    ],
    ['png that is not a string', frame({ type: 'monitor_screenshot', data: { png: 12, pad: PNG } })],
    [
      'the stand-in itself as the png value',
      frame({ type: 'monitor_screenshot', data: { png: '\u0000png', pad: PNG } }),
    ],
    [
      'unterminated png string',
      `{"seq":7,"event":{"ts":1700000000000000,"type":"monitor_screenshot","category":"system","source":{},"data":{"png":"${PNG}`,
    ],
    [
      'broken JSON after the png',
      `{"seq":7,"event":{"ts":1700000000000000,"type":"monitor_screenshot","category":"system","source":{},"data":{"png":"${PNG}"},}}`,
    ],
    [
      'an invalid envelope (seq 0)',
      frame({ type: 'monitor_screenshot', data: { png: PNG } }).replace('"seq":7', '"seq":0'),
    ],
  ];
  it.each(cases)('%s: the same result as parsing the whole text', (_name, text) => {
    expect(text.length).toBeGreaterThan(LIFT_PNG_ABOVE_CHARS);
    expect(parseEnvelope(text)).toEqual(whole(text));
  });

  it('never hands the base64 to JSON.parse for an ordinary screenshot frame', () => {
    const text = frame({ type: 'monitor_screenshot', data: { png: PNG } });
    const parse = vi.spyOn(JSON, 'parse');
    const r = parseEnvelope(text);
    expect(r.ok && r.envelope.event.data?.png).toBe(PNG);
    expect(parse).toHaveBeenCalledTimes(1);
    expect(parse.mock.calls[0]![0].length).toBeLessThan(1000);
  });

  it('any JSON beside the PNG: the same result as parsing the whole text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), fc.boolean(), (metadata, extra, before) => {
        const data = before ? { extra, png: PNG } : { png: PNG, extra };
        const text = frame({ source: { kind: 'cdp', metadata }, type: 'monitor_screenshot', data });
        expect(parseEnvelope(text)).toEqual(whole(text));
      }),
      { numRuns: 200 },
    );
  });
});

describe('crafted frames: the lift gives what JSON.parse gives, or steps aside', () => {
  const envelope = (data: string, type = 'monitor_screenshot'): string =>
    `{"seq":7,"event":{"ts":1700000000000000,"type":"${type}","category":"system","source":{"kind":"cdp"},"data":${data}}}`;
  const withRaw = (code: number): string => `${PNG.slice(0, 1000)}${String.fromCharCode(code)}${PNG.slice(1000)}`;

  it.each<[string, string]>([
    // JSON.parse refuses a raw control character inside a string: so must the lift.
    ['a raw NUL inside the base64', envelope(`{"png":"${withRaw(0)}"}`)],
    ['a raw LF inside the base64 (two data lines joined)', envelope(`{"png":"${withRaw(10)}"}`)],
    ['a raw TAB inside the base64', envelope(`{"png":"${withRaw(9)}"}`)],
    [
      'a raw CR inside the base64 (not from the stream, whose decoder ends a line there)',
      envelope(`{"png":"${withRaw(13)}"}`),
    ],
    ['a raw U+001F inside the base64', envelope(`{"png":"${withRaw(31)}"}`)],
    // A key ending in an escaped quote, then "png": the cut is that key's value, and the real png is the stand-in's text.
    ['a key ending in \\"png, then png written as the stand-in', envelope(`{"abc\\"png":"${PNG}","png":"\\u0000png"}`)],
    [
      'the first png overwritten by a later one written as the stand-in',
      envelope(`{"png":"${PNG}","png":"\\u0000png"}`),
    ],
    ['a nested png first, the stand-in text as data.png', envelope(`{"meta":{"png":"${PNG}"},"png":"\\u0000png"}`)],
    ['the stand-in spelled with other escapes', envelope(`{"meta":{"png":"${PNG}"},"png":"\\u0000\\u0070ng"}`)],
  ])('%s', (_name, text) => {
    expect(text.length).toBeGreaterThan(LIFT_PNG_ABOVE_CHARS);
    expect(parseEnvelope(text)).toEqual(whole(text));
  });

  /** JSON-ish object text built from fragments that can fool a cut: duplicates, escaped quotes, raw controls, the stand-in. */
  const value: fc.Arbitrary<string> = fc.letrec<{ value: string; object: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constant(`"${PNG}"`),
      fc.integer({ min: 0, max: 31 }).map((c) => `"${withRaw(c)}"`),
      fc.constantFrom(
        '"\\u0000png"',
        '"\\u0000\\u0070ng"',
        '"\\\\u0000png"',
        '"small"',
        '12',
        'null',
        '"a\\"png\\":\\""',
      ),
      fc.jsonValue({ maxDepth: 1 }).map((v) => JSON.stringify(v)),
      tie('object'),
    ),
    object: fc
      .array(fc.tuple(fc.constantFrom('png', 'abc\\"png', 'meta', 'x', 'png\\\\', 'PNG'), tie('value')), {
        maxLength: 4,
      })
      .map((entries) => `{${entries.map(([k, v]) => `"${k}":${v}`).join(',')}}`),
  })).value;

  it('any arrangement of such fragments: the same result as parsing the whole text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('png', 'abc\\"png', 'meta', 'x'), value), { minLength: 1, maxLength: 4 }),
        fc.constantFrom('monitor_screenshot', 'console_log'),
        (entries, type) => {
          const text = envelope(`{${entries.map(([k, v]) => `"${k}":${v}`).join(',')}}`, type);
          expect(parseEnvelope(text)).toEqual(whole(text));
        },
      ),
      { numRuns: 400 },
    );
  });
});
