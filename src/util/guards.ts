// The one "is a plain object" check: untrusted input (frames, config, HTTP bodies) and mapped
// event data are narrowed with it wherever they are walked.
import type { JsonValue } from '../vocabulary/log-record.js';

/** A non-null, non-array object. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON object (not null, not an array) among JSON values. */
export function isJsonObject(v: JsonValue | undefined): v is { [key: string]: JsonValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
