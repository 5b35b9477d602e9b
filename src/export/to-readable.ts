// BridgeLogRecord (as spooled) → the ReadableLogRecord shape the OTLP exporter serializes.
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { LogAttributes, LogBody } from '@opentelemetry/api-logs';
import type { HrTime } from '@opentelemetry/api';
import type { BridgeLogRecord } from '../mapping/log-record.js';
import { SCOPE } from './resource.js';

/**
 * Unix microseconds → HrTime [seconds, nanoseconds]. Integer arithmetic on values below 2^53 only:
 * the exporter turns it into BigInt(seconds)·1e9 + nanos, so time_unix_nano is exactly ts × 1000
 * (ts × 1000 itself would exceed 2^53 and lose precision as a double).
 */
export function microsToHrTime(us: number): HrTime {
  const seconds = Math.floor(us / 1_000_000);
  return [seconds, (us - seconds * 1_000_000) * 1000];
}

export function toReadable(r: BridgeLogRecord, resource: Resource): ReadableLogRecord {
  return {
    hrTime: microsToHrTime(r.tsMicros),
    hrTimeObserved: microsToHrTime(r.observedMicros),
    severityNumber: r.severityNumber,
    severityText: r.severityText,
    body: r.body as LogBody,
    eventName: r.eventName,
    attributes: r.attributes as LogAttributes,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
  };
}
