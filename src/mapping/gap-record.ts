// The record that makes loss visible (docs/design.md "Delivery semantics": loss is repaired, or reported): a jump in `seq` that the
// archive could not repair becomes one record naming the missing range and why it is missing,
// instead of silently continuing. A session whose end was not seen and whose tail the archive could
// not supply gets one too, with an open range: its size is unknown, and saying so is the point.
import { ATTR, setOwn } from './attributes.js';
import type { AttributeValue, BridgeLogRecord, SessionContext } from '../vocabulary/log-record.js';
import { SEVERITY, severityText } from './severity-levels.js';
import type { GapReason } from '../vocabulary/gap-reason.js';

export const GAP_EVENT_NAME = 'browser.telemetry_gap';
export const GAP_REASON_ATTR = 'browser.telemetry.gap.reason';

/**
 * Why events are missing, so an alert can tell history that was gone before the bridge followed the
 * session from loss while following.
 * - evicted_before_follow: the service had already evicted them when the bridge first connected;
 * - evicted: evicted from the service's buffer while the bridge was down or paused;
 * - malformed: frames that did not decode (or whose `id:` disagreed with their seq);
 * - frame_too_large: a frame beyond the size limit, skipped;
 * - service_restart: the service restarted and numbered from 1 again while the bridge was away;
 * - tail_unknown: the session ended unseen and the last events it sent cannot be read;
 * - mapping_error: the bridge could not map an event (a bug, reported rather than hidden).
 */
export type { GapReason } from '../vocabulary/gap-reason.js';

/**
 * A gap record for the missing sequence numbers firstSeq..lastSeq (inclusive), or from firstSeq on
 * when lastSeq is undefined (an unknown tail: no last_seq or count). Its uid,
 * `<session>:gap:<first>-<last>` (`<first>-` for an open range; with `:e<epoch>` after the session
 * once the epoch is above 0, as for event records), cannot collide with an event record's uid.
 */
export function gapRecord(
  ctx: SessionContext,
  firstSeq: number,
  lastSeq: number | undefined,
  tsMicros: number,
  observedMicros: number,
  reason: GapReason = 'evicted',
): BridgeLogRecord {
  const attributes: Record<string, AttributeValue> = {};
  for (const key of Object.keys(ctx.attributes)) setOwn(attributes, key, ctx.attributes[key] as AttributeValue);
  attributes[ATTR.sessionId] = ctx.sessionId;
  attributes[ATTR.gapFirst] = firstSeq;
  if (lastSeq !== undefined) {
    attributes[ATTR.gapLast] = lastSeq;
    attributes[ATTR.gapCount] = lastSeq - firstSeq + 1;
  }
  attributes[GAP_REASON_ATTR] = reason;
  const epoch = ctx.epoch === 0 ? '' : `:e${ctx.epoch}`;
  attributes[ATTR.uid] = `${ctx.sessionId}${epoch}:gap:${firstSeq}-${lastSeq ?? ''}`;
  // History evicted before the bridge ever followed the session is expected, not a loss of ours.
  const severity = reason === 'evicted_before_follow' ? SEVERITY.INFO : SEVERITY.WARN;
  return {
    tsMicros,
    observedMicros,
    eventName: GAP_EVENT_NAME,
    severityNumber: severity,
    severityText: severityText(severity),
    body: gapBody(firstSeq, lastSeq, reason),
    attributes,
  };
}

function gapBody(first: number, last: number | undefined, reason: GapReason): string {
  if (last === undefined)
    return `telemetry gap: the session ended unseen; events after seq ${first - 1} may have been lost (${reason})`;
  const count = last - first + 1;
  return count === 1
    ? `telemetry gap: event ${first} was not received (${reason})`
    : `telemetry gap: ${count} events (seq ${first} to ${last}) were not received (${reason})`;
}
