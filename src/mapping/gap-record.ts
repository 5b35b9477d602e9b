// The record that makes loss visible (DESIGN.md "Delivery semantics" 3): a jump in `seq` becomes one
// WARN record naming the missing range, instead of silently continuing.
import { ATTR, setOwn } from './attributes.js';
import type { AttributeValue, BridgeLogRecord, SessionContext } from './log-record.js';
import { SEVERITY, severityText } from './severity-levels.js';

export const GAP_EVENT_NAME = 'browser.telemetry_gap';

/**
 * A gap record for the missing sequence numbers firstSeq..lastSeq (inclusive). Its uid,
 * `<session>:gap:<first>-<last>` (with `:e<epoch>` after the session once the epoch is above 0, as
 * for event records), cannot collide with an event record's uid.
 */
export function gapRecord(
  ctx: SessionContext,
  firstSeq: number,
  lastSeq: number,
  tsMicros: number,
  observedMicros: number,
): BridgeLogRecord {
  const count = lastSeq - firstSeq + 1;
  const attributes: Record<string, AttributeValue> = {};
  for (const key of Object.keys(ctx.attributes)) setOwn(attributes, key, ctx.attributes[key] as AttributeValue);
  attributes[ATTR.sessionId] = ctx.sessionId;
  attributes[ATTR.gapFirst] = firstSeq;
  attributes[ATTR.gapLast] = lastSeq;
  attributes[ATTR.gapCount] = count;
  const epoch = ctx.epoch === 0 ? '' : `:e${ctx.epoch}`;
  attributes[ATTR.uid] = `${ctx.sessionId}${epoch}:gap:${firstSeq}-${lastSeq}`;
  return {
    tsMicros,
    observedMicros,
    eventName: GAP_EVENT_NAME,
    severityNumber: SEVERITY.WARN,
    severityText: severityText(SEVERITY.WARN),
    body:
      count === 1
        ? `telemetry gap: event ${firstSeq} was not received`
        : `telemetry gap: ${count} events (seq ${firstSeq} to ${lastSeq}) were not received`,
    attributes,
  };
}
