// The bridge's own log record: what the mapper produces and wire/encode-record.ts turns into the
// protobuf OTLP LogRecord the spool stores and the exporter sends. Plain JSON-able data.

/** A JSON value as it appears in event data; becomes an OTLP AnyValue (objects → kvlist). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Attribute values allowed by OTLP attributes (homogeneous primitive arrays included). */
export type AttributeValue = string | number | boolean | string[] | number[] | boolean[];

export interface BridgeLogRecord {
  /** Event time, Unix microseconds (the envelope's `ts`); time_unix_nano = ts × 1000 exactly. */
  tsMicros: number;
  /** When the bridge received the frame, Unix microseconds. */
  observedMicros: number;
  /** `browser.<type>`, or `browser.telemetry_gap`. */
  eventName: string;
  severityNumber: number;
  severityText: string;
  /** The event's data after redaction: a structured map, or its JSON text when body format is `json`. */
  body: JsonValue | undefined;
  attributes: Record<string, AttributeValue>;
  /** The span the event belongs to (lowercase hex, 32 and 16 digits), when traces are on (docs/traces.md). */
  traceId?: string;
  spanId?: string;
}

/** Per-session facts the mapper adds to every record of the session. */
export interface SessionContext {
  sessionId: string;
  /** Extra attributes configured for the session, and pool attributes once the pool is known. */
  attributes: Record<string, AttributeValue>;
  /** Service epoch (0 until the service restarted its sequence); part of log.record.uid when > 0. */
  epoch: number;
}
