// The inverse of the mapping (docs/design.md "The log-record contract", invariant): the envelope rebuilt from
// a record's event name, attributes, body and time. Pure; used by tests and by anyone who wants the
// original event back from a backend. What it cannot restore is documented in docs/mapping.md
// ("Round trip"): masked values, `true` exported as `y`, `truncated: false` (absent), a PNG not
// exported inline, subtrees nested deeper than 30 levels (their JSON text), and records the size
// limit shrank (browser.record.truncated).
import type { Envelope, EventSource, TelemetryEvent } from '../../src/upstream/envelope.js';
import { ATTR, setOwn } from '../../src/mapping/attributes.js';
import type { AttributeValue, BridgeLogRecord } from '../../src/vocabulary/log-record.js';

function rebuildSource(attrs: Record<string, AttributeValue>): EventSource {
  const extra = attrs[ATTR.sourceExtra];
  const source: EventSource = typeof extra === 'string' ? (JSON.parse(extra) as EventSource) : {};
  const kind = attrs[ATTR.sourceKind];
  const event = attrs[ATTR.sourceEvent];
  if (typeof kind === 'string') source.kind = kind;
  if (typeof event === 'string') source.event = event;
  const jsonKeys = attrs[ATTR.sourceMetadataJsonKeys];
  const encoded = new Set(Array.isArray(jsonKeys) ? jsonKeys.map(String) : []);
  let metadata: Record<string, unknown> | undefined;
  for (const key of Object.keys(attrs)) {
    if (!key.startsWith(ATTR.sourceMetadataPrefix)) continue;
    const name = key.slice(ATTR.sourceMetadataPrefix.length);
    const value = attrs[key];
    setOwn((metadata ??= {}), name, encoded.has(name) && typeof value === 'string' ? JSON.parse(value) : value);
  }
  if (metadata !== undefined) source.metadata = metadata;
  return source;
}

/** The `ts` as the service sent it, when the bridge had to read it otherwise (upstream/event-time.ts). */
function originalTs(attrs: Record<string, AttributeValue>): number | undefined {
  const original = attrs[ATTR.tsOriginal];
  if (typeof original !== 'string' || original === 'absent') return undefined;
  try {
    // Not a number when the service sent text or worse; the envelope carries it as it came.
    return JSON.parse(original) as number;
  } catch {
    return undefined;
  }
}

/** Rebuilds the envelope a record was mapped from (see the file comment for what differs). */
export function rebuildEnvelope(record: BridgeLogRecord): Envelope {
  const attrs = record.attributes;
  const seq = attrs[ATTR.seq];
  const type = attrs[ATTR.eventType];
  const category = attrs[ATTR.eventCategory];
  if (typeof seq !== 'number' || typeof type !== 'string' || typeof category !== 'string') {
    throw new Error('not an event record: browser.telemetry.seq, browser.event.type or browser.event.category missing');
  }
  const event: TelemetryEvent = {
    ts: originalTs(attrs) ?? record.tsMicros,
    type,
    category,
    source: rebuildSource(attrs),
  };
  if (attrs[ATTR.truncated] === true) event.truncated = true;
  if (typeof record.body === 'string') {
    // Event data is always an object (or null); a string body is the `json` body format, or a body
    // the size limit cut to text, which cannot be parsed back: then data stays absent.
    try {
      event.data = JSON.parse(record.body) as TelemetryEvent['data'];
    } catch {
      event.truncated = true;
    }
  } else if (record.body !== undefined) {
    event.data = record.body as TelemetryEvent['data'];
  }
  return { seq, event };
}
