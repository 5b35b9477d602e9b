// The wire format of one telemetry frame (docs/service-api.md "Envelope").
// Frames are untrusted input: they are validated once here, where they enter, and everything
// downstream works with these types.
import { isRecord } from '../util/guards.js';

/** BrowserEventSource: these members are what the service sends (docs/service-api.md "Envelope"). */
export interface EventSource {
  kind?: string;
  event?: string;
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A telemetry event as sent by the service; `data` keeps its original shape. */
export interface TelemetryEvent {
  /** Unix microseconds; below 2^53 for any date before year 2255, so a JS number holds it exactly. */
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
}

export type EnvelopeResult = { ok: true; envelope: Envelope } | { ok: false; reason: string };


/**
 * Validates a parsed JSON value as an envelope. The reason never quotes the payload, so it can be
 * logged without leaking what the frame carried.
 */
export function validateEnvelope(value: unknown): EnvelopeResult {
  if (!isRecord(value)) return { ok: false, reason: 'envelope is not an object' };
  const { seq, event } = value;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) {
    return { ok: false, reason: 'seq is not a positive integer' };
  }
  if (!isRecord(event)) return { ok: false, reason: 'event is not an object' };
  if (typeof event.ts !== 'number' || !Number.isSafeInteger(event.ts) || event.ts < 0) {
    return { ok: false, reason: 'event.ts is not a non-negative integer (Unix microseconds)' };
  }
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
  return { ok: true, envelope: value as unknown as Envelope };
}

/** Parses the `data:` text of one frame. */
export function parseEnvelope(text: string): EnvelopeResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'data is not valid JSON' };
  }
  return validateEnvelope(value);
}
