// One trace as a terminal waterfall: each span on a line, children under their parent in start
// order, with its offset from the trace's start, its duration, its status and a bar on a shared
// time axis. What a trace backend would draw, for a person with no backend at hand (demo,
// docs/traces.md).
import type { ReceivedSpan } from './decode-traces.js';

const BAR_WIDTH = 40;
const NAME_WIDTH = 44;
const STATUS = ['', 'ok', 'ERROR'];

/** The trace with the most spans (ties: the earliest); undefined without spans. */
export function richestTrace(spans: readonly ReceivedSpan[]): string | undefined {
  const counts = new Map<string, number>();
  for (const s of spans) counts.set(s.traceId, (counts.get(s.traceId) ?? 0) + 1);
  let best: string | undefined;
  for (const [id, n] of counts) if (best === undefined || n > counts.get(best)!) best = id;
  return best;
}

const ms = (ns: bigint): string => `${(Number(ns / 1000n) / 1000).toFixed(1)} ms`;

function fit(text: string, width: number): string {
  const chars = [...text];
  return chars.length > width ? chars.slice(0, width - 1).join('') + '…' : text + ' '.repeat(width - chars.length);
}

/** The lines of one trace's waterfall (duplicates of a span, as at-least-once may deliver, shown once). */
export function formatWaterfall(spans: readonly ReceivedSpan[], traceId: string): string[] {
  const byId = new Map<string, ReceivedSpan>();
  for (const s of spans) if (s.traceId === traceId) byId.set(s.spanId, s);
  const all = [...byId.values()];
  if (all.length === 0) return [];
  const start = all.reduce((m, s) => (s.startTimeUnixNano < m ? s.startTimeUnixNano : m), all[0]!.startTimeUnixNano);
  const end = all.reduce((m, s) => (s.endTimeUnixNano > m ? s.endTimeUnixNano : m), all[0]!.endTimeUnixNano);
  const total = end > start ? end - start : 1n;
  const children = new Map<string | undefined, ReceivedSpan[]>();
  for (const s of all) {
    // A span whose parent is not in this trace (not received yet) is drawn at the top level.
    const parent = s.parentSpanId !== undefined && byId.has(s.parentSpanId) ? s.parentSpanId : undefined;
    const list = children.get(parent) ?? [];
    list.push(s);
    children.set(parent, list);
  }
  for (const list of children.values())
    list.sort((a, b) =>
      a.startTimeUnixNano < b.startTimeUnixNano ? -1 : a.startTimeUnixNano > b.startTimeUnixNano ? 1 : 0,
    );

  const lines = [`${fit('span', NAME_WIDTH)} ${'offset'.padStart(10)} ${'duration'.padStart(10)}  status  timeline`];
  const walk = (parent: string | undefined, depth: number): void => {
    for (const s of children.get(parent) ?? []) {
      const url = s.kind === 3 ? requestUrl(s.attributes) : '';
      const from = Math.min(BAR_WIDTH - 1, Number(((s.startTimeUnixNano - start) * BigInt(BAR_WIDTH)) / total));
      const width = Number(((s.endTimeUnixNano - s.startTimeUnixNano) * BigInt(BAR_WIDTH)) / total);
      const bar = ' '.repeat(from) + '█'.repeat(Math.max(1, Math.min(width, BAR_WIDTH - from)));
      const marker = s.attributes['browser.span.incomplete'] === true ? ' (incomplete)' : '';
      lines.push(
        `${fit('  '.repeat(depth) + s.name + url + marker, NAME_WIDTH)} ${ms(s.startTimeUnixNano - start).padStart(10)} ${ms(s.endTimeUnixNano - s.startTimeUnixNano).padStart(10)}  ${fit(STATUS[s.status.code] ?? '', 6)}  ${bar}`,
      );
      walk(s.spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

/**
 * What a CLIENT span's line shows after its method: url.full, or for a `data:` URL (whose payload the
 * mapping does not promote) its scheme, so the line does not read as a request that lost its URL.
 */
function requestUrl(attributes: Readonly<Record<string, unknown>>): string {
  const full = attributes['url.full'];
  if (typeof full === 'string') return ` ${full}`;
  const scheme = attributes['url.scheme'];
  return typeof scheme === 'string' ? ` ${scheme}:…` : '';
}
