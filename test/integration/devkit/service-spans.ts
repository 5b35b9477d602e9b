// What the bridge makes of a real browser session's events, as the service would send them: each
// event mapped with the default options, in order, and fed to one session's span builder, which
// is then ended as a session ends. For the real-browser trace tests (chromium-spans,
// chromium-service-worker), which assert on the records, the spans and which span each event got.
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import { createSpanBuilder } from '../../../src/traces/span-builder.js';
import type { Envelope } from '../../../src/upstream/envelope.js';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';
import type { BridgeSpan, SpanRef } from '../../../src/vocabulary/span.js';
import type { ServiceEvent } from './service-events.js';

/** A service event with the wall time it arrived at (Unix microseconds), as the service stamps it. */
export interface TimedServiceEvent extends ServiceEvent {
  ts: number;
}

export interface SessionSpans<E extends TimedServiceEvent> {
  records: BridgeLogRecord[];
  /** Each event with the span the builder gave it (undefined: none). */
  refs: Array<{ event: E; ref: SpanRef | undefined }>;
  /** Every span, those the events finished and then those the session's end closed. */
  spans: BridgeSpan[];
}

/** Maps `events` (seq 1, 2, … in order) and builds their spans for `session`, ending it at the last. */
export function sessionSpans<E extends TimedServiceEvent>(session: string, events: readonly E[]): SessionSpans<E> {
  const mapper = createMapper(defaultMappingOptions);
  const builder = createSpanBuilder(session);
  const ctx = { sessionId: session, attributes: {}, epoch: 0 };
  const out: SessionSpans<E> = { records: [], refs: [], spans: [] };
  events.forEach((e, i) => {
    const envelope: Envelope = {
      seq: i + 1,
      event: { ts: e.ts, type: e.type, category: e.category, source: { kind: 'cdp' }, data: e.data },
    };
    const record = mapper.map(envelope, ctx, 1);
    if (record !== null) out.records.push(record);
    const observed = builder.observe(envelope, record);
    out.refs.push({ event: e, ref: observed.ref });
    out.spans.push(...observed.finished);
  });
  out.spans.push(...builder.end('session_end'));
  return out;
}
