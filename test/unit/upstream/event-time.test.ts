// An event's `ts` → Unix microseconds (upstream/event-time.ts), table-driven: each value as a
// service might send it, the microseconds it must become, and how it must be reported as read.
import { describe, expect, it } from 'vitest';
import { readEventTime, type TsReading } from '../../../src/upstream/event-time.js';

const OBSERVED = 1_795_000_000_000_000;
const T = 1_764_259_445_123_456; // 2025-11-27T16:04:05.123456Z

describe('readEventTime', () => {
  it.each<[string, unknown, number, TsReading | undefined]>([
    ['microseconds, as the service sends them', T, T, undefined],
    ['the first microsecond of the band (2001-09-09)', 1e15, 1e15, undefined],
    ['the largest safe integer (2255)', Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, undefined],
    ['microseconds with a fraction', T + 0.25, T, 'microseconds'],
    ['microseconds as text (int64 in protobuf JSON)', String(T), T, 'microseconds'],
    ['milliseconds', 1_764_259_445_123, 1_764_259_445_123_000, 'milliseconds'],
    ['seconds', 1_764_259_445, 1_764_259_445_000_000, 'seconds'],
    ['seconds with a fraction', 1_764_259_445.5, 1_764_259_445_500_000, 'seconds'],
    ['seconds as text', '1764259445', 1_764_259_445_000_000, 'seconds'],
    ['nanoseconds as text, exact', `${T}789`, T, 'nanoseconds'],
    ['nanoseconds as a number', T * 1000, T, 'nanoseconds'],
    ['RFC 3339 in UTC, to the microsecond', '2025-11-27T16:04:05.123456Z', T, 'rfc3339'],
    ['RFC 3339 with an offset, nanoseconds cut to microseconds', '2025-11-27T17:04:05.123456789+01:00', T, 'rfc3339'],
    ['RFC 3339 without a fraction', '2025-11-27T16:04:05Z', 1_764_259_445_000_000, 'rfc3339'],
    ['zero (1970)', 0, OBSERVED, 'observed_time'],
    ['negative', -1_764_259_445_123_456, OBSERVED, 'observed_time'],
    ['1e30', 1e30, OBSERVED, 'observed_time'],
    ['between the bands (year 10,000 in microseconds)', 253_402_300_800_000_000, OBSERVED, 'observed_time'],
    ['milliseconds of 1973', 100_000_000_000, OBSERVED, 'observed_time'],
    ['"NaN"', 'NaN', OBSERVED, 'observed_time'],
    ['"Infinity"', 'Infinity', OBSERVED, 'observed_time'],
    ['"-1"', '-1', OBSERVED, 'observed_time'],
    ['a date without a time', '2025-11-27', OBSERVED, 'observed_time'],
    ['a date of the year 99,999', '99999-01-01T00:00:00Z', OBSERVED, 'observed_time'],
    ['a month 13', '2025-13-01T00:00:00Z', OBSERVED, 'observed_time'],
    ['an RFC 3339 time of 1970', '1970-01-01T00:00:00Z', OBSERVED, 'observed_time'],
    ['a very long text of digits', '9'.repeat(40), OBSERVED, 'observed_time'],
    ['null', null, OBSERVED, 'observed_time'],
    ['a boolean', true, OBSERVED, 'observed_time'],
    ['an object', { s: 1 }, OBSERVED, 'observed_time'],
    ['absent', undefined, OBSERVED, 'observed_time'],
  ])('%s', (_name, ts, micros, readAs) => {
    const t = readEventTime(ts, OBSERVED);
    expect(t.micros).toBe(micros);
    expect(t.note?.readAs).toBe(readAs);
    if (readAs !== undefined) expect(t.note?.original).toBe(ts === undefined ? 'absent' : JSON.stringify(ts));
  });

  it('keeps the value as sent bounded', () => {
    const t = readEventTime('x'.repeat(10_000), OBSERVED);
    expect(t.note?.original.length).toBeLessThanOrEqual(65);
  });
});
