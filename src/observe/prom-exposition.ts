// The Prometheus text exposition format, version 0.0.4 — the bytes GET /metrics answers with:
//   # HELP <name> <help, with \ and newline escaped>
//   # TYPE <name> counter|gauge|histogram
//   <name>{<label>="<value, with \ " and newline escaped>",…} <value>
// Values are Go floats to the scraper: NaN, +Inf and -Inf spelled so, integers below 1e21 in plain
// digits (no exponent, exact), anything else in JavaScript's shortest round-trip form, which Go's
// ParseFloat reads back to the same double. Families follow one another without blank lines.

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface Sample {
  /** The family's name, or for a histogram the name with `_bucket`, `_sum` or `_count`. */
  name: string;
  /** In the order they are written: the metric's label names as declared, then `le`. */
  labels: Record<string, string>;
  value: number;
}

export interface FamilySnapshot {
  name: string;
  help: string;
  type: MetricType;
  samples: Sample[];
}

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** A sample value (or an `le` bound) as Prometheus reads it. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  // String() writes integers below 1e21 in plain digits; -0 as "0".
  return String(v);
}

/** HELP text: backslash and newline escaped (a double quote stays as it is). */
export function escapeHelp(s: string): string {
  return s.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'));
}

/** A label value: backslash, double quote and newline escaped. */
export function escapeLabelValue(s: string): string {
  return s.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

function formatLabels(labels: Record<string, string>): string {
  let out = '';
  for (const k in labels) out += `${out ? ',' : ''}${k}="${escapeLabelValue(labels[k]!)}"`;
  return out ? `{${out}}` : '';
}

/** One family: HELP, TYPE, then its samples, each line ending with a newline. */
export function formatFamily(f: FamilySnapshot): string {
  let out = `# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.type}\n`;
  for (const s of f.samples) out += `${s.name}${formatLabels(s.labels)} ${formatValue(s.value)}\n`;
  return out;
}
