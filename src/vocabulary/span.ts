// The bridge's own span: what the span builder (src/traces/) produces beside the log records and the
// traces encoder (src/wire/encode-span.ts) turns into an OTLP `Span`. Plain JSON-able data, so an
// open span can be saved with a checkpoint and completed after a restart.
import type { AttributeValue } from './log-record.js';

/** Which span a record belongs to: lowercase hex, 32 digits for the trace, 16 for the span. */
export interface SpanRef {
  traceId: string;
  spanId: string;
}

/** OTLP Span.SpanKind: the bridge emits INTERNAL (1) and CLIENT (3) spans only. */
export type SpanKind = 1 | 3;
export const SPAN_KIND = { internal: 1, client: 3 } as const satisfies Record<string, SpanKind>;

/** OTLP Status.StatusCode: UNSET 0, OK 1, ERROR 2 (the bridge never sets OK, as the HTTP conventions ask). */
export type StatusCode = 0 | 2;

export interface SpanEvent {
  name: string;
  tsMicros: number;
  attributes: Record<string, AttributeValue>;
}

export interface SpanLink extends SpanRef {
  attributes: Record<string, AttributeValue>;
}

export interface BridgeSpan extends SpanRef {
  /** Absent on a trace's root span. */
  parentSpanId?: string;
  name: string;
  kind: SpanKind;
  /** Unix microseconds, as event times are. */
  startMicros: number;
  endMicros: number;
  attributes: Record<string, AttributeValue>;
  events: SpanEvent[];
  links: SpanLink[];
  status: { code: StatusCode; message?: string };
}
