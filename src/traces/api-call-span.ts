// An api_call (or platform_api_call) event is a whole span on its own: the event is written when the
// call returns, so the span ends at the event's time and began duration_ms before. It needs no
// state, so it is never open at a checkpoint.
import type { AttributeValue } from '../vocabulary/log-record.js';
import { SPAN_KIND, type BridgeSpan } from '../vocabulary/span.js';
import { httpStatus, num, str } from './event-fields.js';
import { spanIdOf, traceIdOf } from './span-ids.js';
import { SPAN_ATTR } from './span-shapes.js';

/** The span of one api call; its ids derive from the session and the call's request id (or its time and operation). */
export function apiCallSpan(
  sessionId: string,
  ts: number,
  data: Record<string, unknown>,
  attrs: Readonly<Record<string, AttributeValue>>,
): BridgeSpan {
  const operation = str(data.operation_id) ?? 'api_call';
  const id = str(data.request_id) ?? `${ts}:${operation}`;
  const duration = num(data.duration_ms) ?? 0;
  const attributes: Record<string, AttributeValue> = { [SPAN_ATTR.sessionId]: sessionId };
  for (const name of ['http.response.status_code', 'browser.api_call.operation_id'] as const)
    if (attrs[name] !== undefined) attributes[name] = attrs[name];
  const status = httpStatus(data.status);
  if (status !== undefined) attributes['http.response.status_code'] = status;
  const failed = status !== undefined && status >= 500;
  if (failed) attributes['error.type'] = String(status);
  return {
    traceId: traceIdOf('api_call', [sessionId, id]),
    spanId: spanIdOf('api_call', [sessionId, id]),
    name: operation,
    kind: SPAN_KIND.internal,
    // A duration longer than the call's age would start it before the epoch, and a negative time
    // has no fixed64 encoding: the span is cut at the epoch rather than written as garbage.
    startMicros: Math.max(0, ts - Math.max(0, Math.round(duration * 1000))),
    endMicros: ts,
    attributes,
    events: [],
    links: [],
    status: { code: failed ? 2 : 0 },
  };
}
