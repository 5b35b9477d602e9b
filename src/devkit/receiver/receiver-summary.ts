// The one-line summary of the receiver's state that a timed-out waitFor reports: a failing test
// should say what did arrive, not just that it waited.
import type { ReceivedLogRecord } from './decode.js';
import type { ReceivedRequest } from './receiver.js';

const MAX_NAMES = 8;

/** e.g. "3 record(s) accepted from 4 request(s) (status 200 ×2, 503 ×2); event names: browser.a ×2, browser.b ×1". */
export function describeReceiver(records: readonly ReceivedLogRecord[], requests: readonly ReceivedRequest[]): string {
  const statuses = countBy(requests, (r) => String(r.status));
  const names = countBy(records, (r) => r.eventName || '(none)');
  let text = `${records.length} record(s) accepted from ${requests.length} request(s)`;
  if (statuses.length > 0) text += ` (status ${statuses.join(', ')})`;
  if (names.length > 0) {
    const shown = names.slice(0, MAX_NAMES).join(', ');
    text += `; event names: ${shown}${names.length > MAX_NAMES ? `, … ${names.length - MAX_NAMES} more` : ''}`;
  }
  return text;
}

function countBy<T>(items: readonly T[], key: (item: T) => string): string[] {
  const counts = new Map<string, number>();
  for (const item of items) {
    const k = key(item);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k} ×${n}`);
}
