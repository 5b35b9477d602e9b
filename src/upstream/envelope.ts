// The wire format of one telemetry frame (docs/service-api.md "Envelope").
// Frames are untrusted input: they are validated once here, where they enter, and everything
// downstream works with these types.
import { isRecord } from '../util/guards.js';
import { isServiceTime, readEventTime, type TsNote } from './event-time.js';

/** BrowserEventSource: these members are what the service sends (docs/service-api.md "Envelope"). */
export interface EventSource {
  kind?: string;
  event?: string;
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A telemetry event as sent by the service; `data` keeps its original shape. */
export interface TelemetryEvent {
  /**
   * Unix microseconds; below 2^53 for any date before year 2255, so a JS number holds it exactly.
   * A `ts` sent otherwise was read into this by validateEnvelope (event-time.ts), which says how in
   * the envelope's `tsNote`.
   */
  ts: number;
  type: string;
  category: string;
  source: EventSource;
  data?: Record<string, unknown>;
  truncated?: boolean;
}

export interface Envelope {
  seq: number;
  event: TelemetryEvent;
  /** Set when `event.ts` is not what the service sent (event-time.ts): how it was read, and the value sent. */
  tsNote?: TsNote;
}

export type EnvelopeResult = { ok: true; envelope: Envelope } | { ok: false; reason: string };

/**
 * Validates a parsed JSON value as an envelope, and reads its `ts` into microseconds (event-time.ts;
 * `observedMicros`, now when not given, stands in for one that names no time). The reason never
 * quotes the payload, so it can be logged without leaking what the frame carried.
 */
export function validateEnvelope(value: unknown, observedMicros?: number): EnvelopeResult {
  if (!isRecord(value)) return { ok: false, reason: 'envelope is not an object' };
  const { seq, event } = value;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) {
    return { ok: false, reason: 'seq is not a positive integer' };
  }
  if (!isRecord(event)) return { ok: false, reason: 'event is not an object' };
  if (typeof event.type !== 'string' || event.type === '') return { ok: false, reason: 'event.type is missing' };
  if (typeof event.category !== 'string') return { ok: false, reason: 'event.category is missing' };
  if (!isRecord(event.source)) return { ok: false, reason: 'event.source is not an object' };
  if (event.data !== undefined && event.data !== null && !isRecord(event.data)) {
    return { ok: false, reason: 'event.data is not an object' };
  }
  if (event.type === 'cdp_command' && !isRecord(event.data)) {
    return { ok: false, reason: 'cdp_command without data' };
  }
  if (event.truncated !== undefined && typeof event.truncated !== 'boolean') {
    return { ok: false, reason: 'event.truncated is not a boolean' };
  }
  // Last, so that a frame refused for another reason is left as it came. An odd time is no reason
  // to refuse an event: the archive would send the same one, and the event would be lost to a gap.
  if (!isServiceTime(event.ts)) {
    const time = readEventTime(event.ts, observedMicros);
    event.ts = time.micros;
    if (time.note !== undefined) value.tsNote = time.note;
  }
  return { ok: true, envelope: value as unknown as Envelope };
}

/**
 * Frames longer than this are lifted (see liftPng): in practice only monitor_screenshot frames are
 * (a PNG is 130–972 KB of base64, every other event a few KB at most).
 */
export const LIFT_PNG_ABOVE_CHARS = 64 * 1024;
const PNG_KEY = '"png":"';
/**
 * Stands in for the PNG while the rest is parsed; JSON text `\u0000png`. It holds a NUL, which JSON
 * can only write as an escape: a text without `\u0000` outside the cut yields no other string like it.
 */
const PNG_STAND_IN = '\u0000png';
const PNG_STAND_IN_TEXT = '\\u0000png';
const NUL_ESCAPE = '\\u0000';
/**
 * The characters JSON.parse refuses raw inside a string (RFC 8259 section 7). CR included: the frame
 * decoder ends a line at every CR, so none reaches a frame's data from the stream, but parseEnvelope
 * is also handed text from elsewhere (replayed archives, tests), and the lift must never accept what
 * JSON.parse refuses.
 */
const RAW_CONTROLS = Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c));

/** Parses the `data:` text of one frame. */
export function parseEnvelope(text: string): EnvelopeResult {
  if (text.length > LIFT_PNG_ABOVE_CHARS) {
    const lifted = liftPng(text);
    if (lifted !== undefined) return lifted;
  }
  return parseWholeEnvelope(text);
}

/** The whole text through JSON.parse: what parseEnvelope gives for every frame, lifted or not. */
export function parseWholeEnvelope(text: string): EnvelopeResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'data is not valid JSON' };
  }
  return validateEnvelope(value);
}

/**
 * A screenshot frame parsed without copying its PNG. JSON.parse would copy the base64 (up to ~1 MB)
 * into a new string, after the stream already decoded and joined it once; with hundreds of sessions
 * that is most of the parser's bytes and young-generation garbage, and the mapper may drop the
 * picture anyway (over the record limit, or the `drop` policy). So the base64 is cut out of the
 * text (no JSON escape can occur inside base64: a backslash means it is not plain base64), the rest
 * is parsed with a stand-in, and `data.png` becomes a slice of the frame's text (V8 shares the
 * characters instead of copying them). An unescaped `"png":"` is always a key followed by a string
 * (a quote inside a string is escaped), but it may be another object's key (or the end of a key
 * ending in `\"png`), or overwritten by a later duplicate: unless the stand-in ended up as the
 * screenshot's `data.png`, the frame is parsed the ordinary way (undefined here).
 *
 * The result must be exactly what JSON.parse of the whole text gives, or undefined: the cut span
 * must be a string JSON.parse would take as it is (no escape, no raw control character), and the
 * stand-in must be the only string of its kind (no `\u0000` escape elsewhere: else a crafted frame
 * could put its own stand-in at `data.png` and swap the cut value in for it). The control scan is
 * one native indexOf (memchr) per character, ~17 µs each for a 955 KB frame: the lift of such a frame
 * went from 0.05 ms (without the scan, and unsound) to 1.0–1.6 ms on a loaded two-core machine,
 * where JSON.parse of the whole text took 2.7 ms (and copied the base64). A regex over the span, one
 * pass, was slower than JSON.parse itself (3.5 ms).
 */
function liftPng(text: string): EnvelopeResult | undefined {
  const key = text.indexOf(PNG_KEY);
  if (key === -1) return undefined;
  const start = key + PNG_KEY.length;
  const end = text.indexOf('"', start);
  if (end === -1) return undefined;
  const escape = text.indexOf('\\', start);
  if (escape !== -1 && escape < end) return undefined;
  for (const c of RAW_CONTROLS) {
    const at = text.indexOf(c, start);
    if (at !== -1 && at < end) return undefined;
  }
  if (text.indexOf(NUL_ESCAPE) !== -1) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text.slice(0, start) + PNG_STAND_IN_TEXT + text.slice(end));
  } catch {
    return undefined;
  }
  const result = validateEnvelope(value);
  if (!result.ok) return undefined;
  const { event } = result.envelope;
  if (event.type !== 'monitor_screenshot' || event.data?.png !== PNG_STAND_IN) return undefined;
  event.data.png = text.slice(start, end);
  return result;
}
