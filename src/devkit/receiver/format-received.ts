// A readable multi-line rendering of a decoded OTLP record (demo output).
import type { ReceivedLogRecord } from './server.js';

const MAX_VALUE = 160;

function short(v: unknown): string {
  const s =
    typeof v === 'string' ? v : JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
  return s.length > MAX_VALUE ? `${s.slice(0, MAX_VALUE)}…` : s;
}

export function formatReceivedRecord(r: ReceivedLogRecord): string {
  const lines = [
    `  ${r.eventName}  ${r.severityText} (${r.severityNumber})  time_unix_nano=${r.timeUnixNano}`,
    ...Object.entries(r.attributes).map(([k, v]) => `    ${k} = ${short(v)}`),
  ];
  if (r.body !== null && r.body !== undefined) lines.push(`    body: ${short(r.body)}`);
  return lines.join('\n');
}
