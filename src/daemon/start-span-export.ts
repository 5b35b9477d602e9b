// The span exporter of traces.enabled, built from the traces' own exporter settings: its own
// transport to /v1/traces (TraceService/Export) and its own queue. Apart from the composition root
// (bridge.ts) because spans travel beside the records, never through the records' delivery.
import type { BridgeConfig } from '../config/schema.js';
import { createTransport, USER_AGENT } from '../export/create-transport.js';
import { createSpanExport, type SpanExport } from '../export/span-export.js';
import { once } from '../util/lifecycle.js';
import type { Emit } from '../vocabulary/facts.js';
import { createRequestBuilder } from '../wire/otlp-request.js';
import { resourceAttributes, SCOPE } from '../wire/resource.js';

/**
 * Spans short of a full request wait this long for more (the OpenTelemetry Collector batch
 * processor's default timeout): a span is seldom urgent, and a request per span or two was most of
 * what traces cost the main thread at 20,000 events a second (docs/benchmarks.md "Traces on").
 */
export const SPAN_LINGER_MS = 200;

/** The span exporter of traces.enabled: its own transport to /v1/traces (TraceService/Export) and queue. */
export async function startSpanExport(config: BridgeConfig, emit: Emit): Promise<SpanExport> {
  const ex = config.traces.exporter;
  const transport = await createTransport(ex, { userAgent: USER_AGENT, signal: 'traces', emit });
  const spans = createSpanExport({
    transport,
    request: createRequestBuilder(
      ex.protocol,
      { resource: resourceAttributes(config.resource), scope: SCOPE },
      'traces',
    ),
    emit,
    concurrency: ex.concurrency,
    batchMaxSpans: ex.batchMaxRecords,
    maxQueuedBytes: config.traces.queueMaxBytes,
    backoff: ex.backoff,
    unsupportedRetryMs: config.traces.unsupportedRetryMs,
    lingerMs: SPAN_LINGER_MS,
  });
  spans.start();
  return {
    offer: (encoded, owner) => spans.offer(encoded, owner),
    start: () => spans.start(),
    get queued() {
      return spans.queued;
    },
    get queuedBytes() {
      return spans.queuedBytes;
    },
    get lastError() {
      return spans.lastError;
    },
    shutdown: once(async (deadline: number) => {
      await spans.shutdown(deadline);
      await transport.close();
    }),
  };
}
