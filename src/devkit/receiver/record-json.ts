// One received record as a line of JSON, for the standalone receiver and the demo's output.
import type { ReceivedLogRecord } from './decode.js';

/** JSON for one record: 64-bit integers (bigint) as decimal strings, bytes as base64. */
export function recordToJsonLine(record: ReceivedLogRecord): string {
  return JSON.stringify(record, (_key, value: unknown) => {
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
    return value;
  });
}
