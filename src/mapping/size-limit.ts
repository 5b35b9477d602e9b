// max_record_bytes: no record may grow an OTLP request past what a collector
// accepts, and an oversized event must never crash the bridge. The measure is the record's
// estimated encoded size:
//
//   size = UTF-8 bytes of the body's JSON text + 24 bytes per body value (OTLP/JSON wraps each value
//          in {"key":…,"value":{"stringValue":…}}; protobuf needs less)
//        + per attribute: key + JSON text of the value + 32 bytes
//        + 256 bytes for the fixed fields (times, severity, event name, framing)
//
// The walker already summed string lengths, so a cheap upper bound (every character at its worst
// JSON escape, 6 bytes) decides whether the exact measure (one JSON.stringify) is needed at all.
//
// Above the limit, in order, until the record fits (each step reported as a record_oversized fact):
//   1. strings_truncated — the longest body strings are cut to a common length (never below 64
//      characters), on a character boundary, ending in `...[truncated]` as the service does;
//   2. attributes_cut — attribute strings longer than 256 characters are cut the same way (except
//      session id, type and uid);
//   3. body_cut — the body becomes its JSON text, cut to the remaining room;
//   4. attributes_cut — only the contract attributes are kept.
// The record then carries browser.record.truncated = true and browser.record.original_size.
import { ATTR } from './attributes.js';
import type { WalkState } from './body-transform.js';
import type { AttributeValue, BridgeLogRecord, JsonValue } from '../vocabulary/log-record.js';
import type { OversizeAction } from '../vocabulary/facts.js';

export const NODE_OVERHEAD = 24;
export const ATTRIBUTE_OVERHEAD = 32;
export const RECORD_OVERHEAD = 256;
export const TRUNCATION_MARKER = '...[truncated]';
const MIN_STRING_KEEP = 64;
const ATTRIBUTE_STRING_KEEP = 256;
/** Room kept for the two browser.record.* attributes the limiter adds. */
const MARK_ROOM = 128;
const NO_ACTIONS: readonly OversizeAction[] = [];

const KEEP_WHOLE = new Set<string>([ATTR.sessionId, ATTR.eventType, ATTR.uid, ATTR.eventCategory]);
const CONTRACT = new Set<string>([
  ATTR.sessionId,
  ATTR.seq,
  ATTR.eventType,
  ATTR.eventCategory,
  ATTR.sourceKind,
  ATTR.sourceEvent,
  ATTR.truncated,
  ATTR.uid,
]);

function attributesUpperBound(attrs: Record<string, AttributeValue>): number {
  let n = 0;
  // Per event: for…in allocates no key array (the attributes are a plain object the mapper built).
  for (const key in attrs) {
    const v = attrs[key];
    n += key.length * 3 + ATTRIBUTE_OVERHEAD + (typeof v === 'string' ? v.length * 6 + 2 : Array.isArray(v) ? 0 : 24);
    if (Array.isArray(v)) for (const item of v) n += typeof item === 'string' ? item.length * 6 + 3 : 25;
  }
  return n;
}

function attributesBytes(attrs: Record<string, AttributeValue>): number {
  let n = 0;
  for (const key of Object.keys(attrs)) {
    n += Buffer.byteLength(key) + Buffer.byteLength(JSON.stringify(attrs[key])) + ATTRIBUTE_OVERHEAD;
  }
  return n;
}

function jsonBytes(value: JsonValue | undefined): number {
  return value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value));
}

/** Cuts s to at most `keep` UTF-16 units without splitting a surrogate pair, and marks the cut. */
export function cutString(s: string, keep: number): string {
  if (s.length <= keep) return s;
  let end = keep;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return s.slice(0, end) + TRUNCATION_MARKER;
}

/** A long string's length and its JSON bytes per character (escapes and UTF-8 make that ≥ 1). */
interface LongString {
  len: number;
  density: number;
}

function collectLong(v: JsonValue, out: LongString[]): void {
  if (typeof v === 'string') {
    if (v.length > MIN_STRING_KEEP + TRUNCATION_MARKER.length) {
      out.push({ len: v.length, density: Buffer.byteLength(JSON.stringify(v)) / v.length });
    }
  } else if (Array.isArray(v)) for (const item of v) collectLong(item, out);
  else if (typeof v === 'object' && v !== null) for (const k of Object.keys(v)) collectLong(v[k] as JsonValue, out);
}

function cutStrings(v: JsonValue, keep: number): JsonValue {
  if (typeof v === 'string') return v.length > keep + TRUNCATION_MARKER.length ? cutString(v, keep) : v;
  if (Array.isArray(v)) return v.map((item) => cutStrings(item, keep));
  if (typeof v === 'object' && v !== null) {
    const out: { [key: string]: JsonValue } = {};
    for (const k of Object.keys(v)) {
      const next = cutStrings(v[k] as JsonValue, keep);
      if (k === '__proto__')
        Object.defineProperty(out, k, { value: next, enumerable: true, writable: true, configurable: true });
      else out[k] = next;
    }
    return out;
  }
  return v;
}

/** The largest common length whose cuts remove about `excess` bytes (or the minimum length). */
function chooseKeep(strings: LongString[], excess: number): number {
  const removed = (keep: number): number => {
    let sum = 0;
    for (const s of strings) {
      if (s.len > keep + TRUNCATION_MARKER.length) sum += (s.len - keep) * s.density - TRUNCATION_MARKER.length;
    }
    return sum;
  };
  let lo = MIN_STRING_KEEP;
  let hi = 0;
  for (const s of strings) hi = Math.max(hi, s.len);
  if (removed(lo) < excess) return lo;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (removed(mid) >= excess) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export interface SizeLimiter {
  /** Shrinks the record in place when it is above the limit; returns what was done. */
  enforce(record: BridgeLogRecord, state: WalkState): readonly OversizeAction[];
}

export function createSizeLimiter(maxRecordBytes: number): SizeLimiter {
  const target = maxRecordBytes - MARK_ROOM;
  return {
    enforce(record, state) {
      const upper =
        state.chars * 6 + state.nodes * (NODE_OVERHEAD + 4) + attributesUpperBound(record.attributes) + RECORD_OVERHEAD;
      if (upper <= target) return NO_ACTIONS;
      let nodes = state.nodes;
      const measure = (): number =>
        jsonBytes(record.body) + nodes * NODE_OVERHEAD + attributesBytes(record.attributes) + RECORD_OVERHEAD;
      let size = measure();
      if (size <= target) return NO_ACTIONS;
      const original = size;
      const actions: OversizeAction[] = [];
      // 1. Long body strings. Densities are averages, so re-measure and tighten a few times.
      if (record.body !== undefined && record.body !== null) {
        for (let round = 0; round < 4 && size > target; round++) {
          const strings: LongString[] = [];
          collectLong(record.body, strings);
          if (strings.length === 0) break;
          record.body = cutStrings(record.body, chooseKeep(strings, size - target));
          if (round === 0) actions.push('strings_truncated');
          size = measure();
        }
      }
      // 2. Long attribute strings.
      if (size > target) {
        let cut = false;
        for (const key of Object.keys(record.attributes)) {
          const v = record.attributes[key];
          if (typeof v === 'string' && v.length > ATTRIBUTE_STRING_KEEP && !KEEP_WHOLE.has(key)) {
            record.attributes[key] = cutString(v, ATTRIBUTE_STRING_KEEP);
            cut = true;
          }
        }
        if (cut) {
          actions.push('attributes_cut');
          size = measure();
        }
      }
      // 3. The body as its JSON text, cut to the room left.
      if (size > target && record.body !== undefined) {
        const text = typeof record.body === 'string' ? record.body : JSON.stringify(record.body);
        const available = target - (size - jsonBytes(record.body) - state.nodes * NODE_OVERHEAD) - NODE_OVERHEAD;
        let keep = Math.max(0, available - TRUNCATION_MARKER.length - 2);
        let cut = cutString(text, keep);
        // Characters are not bytes (escapes, UTF-8): shrink in proportion until the JSON text fits.
        for (let bytes = Buffer.byteLength(JSON.stringify(cut)); keep > 0 && bytes > available;) {
          keep = Math.max(0, Math.floor((keep * available) / bytes) - TRUNCATION_MARKER.length - 2);
          cut = cutString(text, keep);
          bytes = Buffer.byteLength(JSON.stringify(cut));
        }
        record.body = cut;
        nodes = 1;
        actions.push('body_cut');
        size = measure();
      }
      // 4. Only the contract attributes.
      if (size > target) {
        for (const key of Object.keys(record.attributes)) if (!CONTRACT.has(key)) delete record.attributes[key];
        if (!actions.includes('attributes_cut')) actions.push('attributes_cut');
      }
      record.attributes[ATTR.recordTruncated] = true;
      record.attributes[ATTR.recordOriginalBytes] = original;
      return actions;
    },
  };
}
