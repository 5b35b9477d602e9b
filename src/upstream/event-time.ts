// An event's `ts` as the service sent it → Unix microseconds (docs/service-api.md "Envelope";
// docs/mapping.md "Event times"). The service sends an integer of microseconds; anything else is
// read here, once, where the frame enters, so that nothing downstream (the record's time, the spool's
// age figures, the archive's `since`, the spans) ever sees a time in 1970 or in the year 50,000.
//
// The units are told apart by magnitude alone, which is unambiguous for the years 2001–2286: there
// seconds have 10 digits, milliseconds 13, microseconds 16 and nanoseconds 19. So a number (or a
// text of digits, as int64 values travel in protobuf's JSON) in one of those bands is read in that
// unit, an RFC 3339 text as the time it names, and anything else (negative, zero, 1e30, "NaN", null,
// an object, a year outside the bands) is replaced by the time the bridge read the frame. Every time
// not read as an integer of microseconds is reported with the value as sent (event time notes), so a
// record never carries a converted or substituted time silently, and the envelope can be rebuilt.

/** How a `ts` that was not an integer of microseconds was read. */
export type TsReading = 'seconds' | 'milliseconds' | 'microseconds' | 'nanoseconds' | 'rfc3339' | 'observed_time';

/** A `ts` the bridge had to interpret: how, and the value as the service sent it (JSON text). */
export interface TsNote {
  readAs: TsReading;
  original: string;
}

export type EventTime = { micros: number; note?: TsNote };

/** 2001-09-09T01:46:40Z: the start of every unit's band. */
const MIN_MICROS = 1e15;
/** The largest exact microsecond count in a double (year 2255): the end of the microsecond band. */
const MAX_MICROS = Number.MAX_SAFE_INTEGER;
/** The value as sent, bounded: a frame's `ts` may be a text of any length. */
const ORIGINAL_MAX_CHARS = 64;

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;
const DIGITS = /^\d{1,20}$/;

/**
 * Reads `ts` (any JSON value, absent included). When it names no plausible time, `observedMicros`
 * (when the frame was read; now when not given) stands in.
 */
export function readEventTime(ts: unknown, observedMicros?: number): EventTime {
  if (isServiceTime(ts)) return { micros: ts };
  const read = typeof ts === 'number' ? fromNumber(ts) : typeof ts === 'string' ? fromText(ts) : undefined;
  const original = originalText(ts);
  if (read !== undefined && read.micros >= MIN_MICROS && read.micros <= MAX_MICROS)
    return { micros: read.micros, note: { readAs: read.readAs, original } };
  return { micros: observedMicros ?? Date.now() * 1000, note: { readAs: 'observed_time', original } };
}

/**
 * The one case on the hot path: an integer of microseconds, as the service sends it. A check apart
 * from readEventTime, so that an envelope whose `ts` needs no reading makes no object for it.
 */
export function isServiceTime(ts: unknown): ts is number {
  return typeof ts === 'number' && Number.isInteger(ts) && ts >= MIN_MICROS && ts <= MAX_MICROS;
}

interface Read {
  micros: number;
  readAs: Exclude<TsReading, 'observed_time'>;
}

function fromNumber(n: number): Read | undefined {
  if (!Number.isFinite(n) || n <= 0) return undefined;
  if (n >= 1e9 && n < 1e10) return { micros: Math.round(n * 1e6), readAs: 'seconds' };
  if (n >= 1e12 && n < 1e13) return { micros: Math.round(n * 1e3), readAs: 'milliseconds' };
  // A fraction of a microsecond, or an integer past 2^53 that a double holds only approximately.
  if (n >= 1e15 && n < 1e16) return { micros: Math.round(n), readAs: 'microseconds' };
  if (n >= 1e18 && n < 1e19) return { micros: Math.round(n / 1e3), readAs: 'nanoseconds' };
  return undefined;
}

function fromText(s: string): Read | undefined {
  if (DIGITS.test(s)) {
    // Exact whatever its length: a nanosecond count does not fit a double.
    const big = BigInt(s);
    const read = fromNumber(Number(big));
    if (read?.readAs === 'nanoseconds') read.micros = Number(big / 1000n);
    if (read?.readAs === 'microseconds') read.micros = Number(big);
    return read;
  }
  const m = RFC3339.exec(s);
  if (m === null) return undefined;
  // Date.parse takes milliseconds; the fraction's digits beyond them are added here.
  const ms = Date.parse(`${m[1]}T${m[2]}${m[4]!.toUpperCase()}`);
  if (Number.isNaN(ms)) return undefined;
  const fraction = Number((m[3] ?? '').padEnd(6, '0').slice(0, 6));
  return { micros: ms * 1000 + fraction, readAs: 'rfc3339' };
}

function originalText(ts: unknown): string {
  const text = ts === undefined ? 'absent' : JSON.stringify(ts);
  return text.length <= ORIGINAL_MAX_CHARS ? text : `${text.slice(0, ORIGINAL_MAX_CHARS)}…`;
}
