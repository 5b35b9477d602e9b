// The seam between one session's path and its spans (docs/traces.md): the pipeline shows the tap
// every event with its mapped record, the tap points the record at its span (trace_id, span_id) and
// hands the spans it completes, encoded, to a sink (export/span-export.ts). Spans never wait for
// records nor records for spans: offer() only queues.
import type { Envelope } from '../upstream/envelope.js';
import type { BridgeLogRecord } from '../vocabulary/log-record.js';
import { createSpanBuilder, type SpanBuilderState } from '../traces/span-builder.js';
import { createSpanEncoder } from '../wire/encode-span.js';
import type { BridgeSpan } from '../vocabulary/span.js';

/** Where encoded spans go. */
export interface SpanSink {
  offer(spans: readonly Buffer[]): void;
}

export interface SpanTap {
  /** Before the record is encoded: sets its trace_id and span_id when the event belongs to a span. */
  observe(envelope: Envelope, record: BridgeLogRecord | null): void;
  /** The session ended: open spans are flushed with their end marker. */
  end(): void;
  /** The open state, for a checkpoint (restored by the factory's `restored`). */
  snapshot(): SpanBuilderState;
}

/** Makes the tap of one session. */
export type SpanTapFactory = (sessionId: string, restored?: SpanBuilderState) => SpanTap;

export function spanTapFactory(sink: SpanSink): SpanTapFactory {
  const encode = createSpanEncoder();
  const offer = (spans: readonly BridgeSpan[]): void => {
    if (spans.length > 0) sink.offer(spans.map(encode));
  };
  return (sessionId, restored) => {
    const builder = createSpanBuilder(sessionId, restored);
    return {
      observe(envelope, record) {
        const { ref, finished } = builder.observe(envelope, record);
        if (ref !== undefined && record !== null) {
          record.traceId = ref.traceId;
          record.spanId = ref.spanId;
        }
        offer(finished);
      },
      end: () => offer(builder.end()),
      snapshot: () => builder.snapshot(),
    };
  };
}
