// A trace as a terminal waterfall: children under their parent in start order, offsets and
// durations from the trace's start, ERROR shown, duplicates once.
import { describe, expect, it } from 'vitest';
import { formatWaterfall, richestTrace } from '../../../../src/devkit/receiver/waterfall.js';
import type { ReceivedSpan } from '../../../../src/devkit/receiver/decode-traces.js';

const T = 1_764_000_000_000_000_000n;
const span = (spanId: string, over: Partial<ReceivedSpan>): ReceivedSpan => ({
  resource: {},
  scope: { name: 't' },
  traceId: 'a'.repeat(32),
  spanId,
  name: 'GET',
  kind: 3,
  startTimeUnixNano: T,
  endTimeUnixNano: T,
  attributes: {},
  events: [],
  links: [],
  status: { code: 0, message: '' },
  ...over,
});

const spans = [
  span('2', {
    parentSpanId: '1',
    startTimeUnixNano: T + 150_000_000n,
    endTimeUnixNano: T + 350_000_000n,
    status: { code: 2, message: '' },
    attributes: { 'url.full': 'https://a/x.png' },
  }),
  span('1', { name: 'https://a/', kind: 1, endTimeUnixNano: T + 400_000_000n }),
  span('3', {
    parentSpanId: '1',
    startTimeUnixNano: T + 10_000_000n,
    endTimeUnixNano: T + 100_000_000n,
    attributes: { 'url.full': 'https://a/' },
  }),
  span('3', {
    parentSpanId: '1',
    startTimeUnixNano: T + 10_000_000n,
    endTimeUnixNano: T + 100_000_000n,
    attributes: { 'url.full': 'https://a/' },
  }),
  span('9', { traceId: 'b'.repeat(32) }),
];

describe('waterfall', () => {
  it('picks the trace with the most spans', () => expect(richestTrace(spans)).toBe('a'.repeat(32)));

  it('draws the root, then its children in start order, with offset, duration and status', () => {
    const lines = formatWaterfall(spans, 'a'.repeat(32));
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^https:\/\/a\/ +0\.0 ms +400\.0 ms {2}/);
    expect(lines[2]).toMatch(/^ {2}GET https:\/\/a\/ +10\.0 ms +90\.0 ms/);
    expect(lines[3]).toMatch(/^ {2}GET https:\/\/a\/x\.png +150\.0 ms +200\.0 ms {2}ERROR/);
    expect(lines[1]!.endsWith('█'.repeat(40))).toBe(true);
  });

  // A `data:` URL's request carries url.scheme alone (its payload is no address): a bare "GET" read
  // as a span that lost its URL.
  it.each<[string, Record<string, string>, RegExp]>([
    ['url.full', { 'url.full': 'https://a/x' }, /^ {2}GET https:\/\/a\/x /],
    ['a data: URL: its scheme', { 'url.scheme': 'data' }, /^ {2}GET data:… /],
    ['neither: the method alone', {}, /^ {2}GET {2,}/],
  ])('a request span with %s', (_name, attributes, want) => {
    const lines = formatWaterfall([spans[1]!, span('4', { parentSpanId: '1', attributes })], 'a'.repeat(32));
    expect(lines[2]).toMatch(want);
  });
});
