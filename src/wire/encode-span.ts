// BridgeSpan → the bytes it travels as: an OTLP `Span` in protobuf, framed as one `ScopeSpans.spans`
// entry (tag 2, length, message). ExportTraceServiceRequest has the shape of the logs request
// (resource_spans 1 → resource 1, scope_spans 2 → scope 1, spans 2), so a traces request is built
// by the same request builder from framed spans (otlp-request.ts), and stored spans are these bytes.
//
// Fields: Span{1 trace_id, 2 span_id, 4 parent_span_id, 5 name, 6 kind, 7 start fixed64, 8 end
// fixed64, 9 attributes, 11 events, 12 dropped_events_count, 13 links, 15 status, 16 flags fixed32};
// Event{1 time fixed64, 2 name, 3 attributes}; Link{1 trace_id, 2 span_id, 4 attributes, 6 flags};
// Status{2 message, 3 code}.
import type { AttributeValue } from '../vocabulary/log-record.js';
import type { BridgeSpan } from '../vocabulary/span.js';
import { writeAnyValue } from './encode-record.js';
import { ProtoWriter } from './proto-writer.js';

/**
 * Span.flags of every span and link the bridge writes: the W3C flag sampled (nothing is sampled
 * away), and HAS_IS_REMOTE (0x100) with IS_REMOTE clear: every parent and link is the bridge's own.
 */
const FLAGS = 0x101;

export type SpanEncoder = (span: BridgeSpan) => Buffer;

/** An encoder with its own scratch buffer; the returned bytes are a fresh copy. */
export function createSpanEncoder(): SpanEncoder {
  const w = new ProtoWriter(16 * 1024);
  return (span) => {
    w.reset();
    writeFramedSpan(w, span);
    return w.copy();
  };
}

function writeAttributes(w: ProtoWriter, field: number, attrs: Record<string, AttributeValue>): void {
  for (const key in attrs) {
    const kv = w.begin(field);
    w.string(1, key);
    writeAnyValue(w, 2, attrs[key]!);
    w.end(kv);
  }
}

export function writeFramedSpan(w: ProtoWriter, s: BridgeSpan): void {
  const at = w.begin(2);
  w.hexBytes(1, s.traceId);
  w.hexBytes(2, s.spanId);
  if (s.parentSpanId !== undefined) w.hexBytes(4, s.parentSpanId);
  w.string(5, s.name);
  w.uintField(6, s.kind);
  w.fixed64NanosFromMicros(7, s.startMicros);
  w.fixed64NanosFromMicros(8, s.endMicros);
  writeAttributes(w, 9, s.attributes);
  for (const e of s.events) {
    const ev = w.begin(11);
    w.fixed64NanosFromMicros(1, e.tsMicros);
    w.string(2, e.name);
    writeAttributes(w, 3, e.attributes);
    w.end(ev);
  }
  for (const l of s.links) {
    const link = w.begin(13);
    w.hexBytes(1, l.traceId);
    w.hexBytes(2, l.spanId);
    writeAttributes(w, 4, l.attributes);
    w.fixed32(6, FLAGS);
    w.end(link);
  }
  if (s.status.code !== 0 || s.status.message !== undefined) {
    const st = w.begin(15);
    if (s.status.message !== undefined && s.status.message !== '') w.string(2, s.status.message);
    if (s.status.code !== 0) w.uintField(3, s.status.code);
    w.end(st);
  }
  w.fixed32(16, FLAGS);
  w.end(at);
}
