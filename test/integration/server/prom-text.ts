// A strict parser for the Prometheus text exposition format (version 0.0.4), written for the tests:
// the bridge's registry (src/observe/prom-registry.ts) only writes the format. It throws on anything
// a Prometheus server would refuse — a malformed line, a sample without a declared family, a family
// declared twice or split into pieces, a histogram whose buckets do not add up — and returns the
// families otherwise.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
// Lines are split at \n alone: a \r (or U+2028) in a help text or label value is no line end (`s`).
const HELP_RE = new RegExp(`^# HELP (${NAME}) (.*)$`, 's');
const TYPE_RE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE_RE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`, 's');
const LABEL_RE = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\[\\"n])*)"\s*(,|$)/y;

/** Suffixes a sample of a family of each type may carry. */
const SUFFIXES: Record<Family['type'], string[]> = {
  counter: ['', '_total'],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const closed = new Set<string>();
  let open: Family | undefined;
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('exposition must end with a newline');
  lines.forEach((line, i) => {
    const where = `line ${i + 1}: ${line}`;
    if (line === '') return;
    const help = HELP_RE.exec(line);
    const type = TYPE_RE.exec(line);
    if (help || type) {
      const name = (help?.[1] ?? type?.[1])!;
      if (closed.has(name)) throw new Error(`${where}: family ${name} appears twice`);
      let fam = families.get(name);
      if (!fam) {
        if (open) closed.add(open.name);
        fam = { name, type: 'untyped', help: '', samples: [] };
        families.set(name, fam);
        open = fam;
      } else if (fam.samples.length > 0) {
        throw new Error(`${where}: metadata after samples of ${name}`);
      }
      if (help) fam.help = unescape(help[2]!, false);
      if (type) fam.type = type[2] as Family['type'];
      return;
    }
    if (line.startsWith('#')) return;
    const m = SAMPLE_RE.exec(line);
    if (!m) throw new Error(`${where}: not a sample line`);
    const [, name, labelText, valueText] = m as unknown as [string, string, string | undefined, string];
    const fam = open;
    if (!fam || !SUFFIXES[fam.type].some((s) => name === fam.name + s)) {
      throw new Error(`${where}: sample ${name} outside its family (current: ${fam?.name ?? 'none'})`);
    }
    fam.samples.push({ name, labels: parseLabels(labelText ?? '', where), value: parseValue(valueText, where) });
  });
  for (const fam of families.values()) if (fam.type === 'histogram') checkHistogram(fam);
  return families;
}

function parseLabels(text: string, where: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL_RE.lastIndex = 0;
  while (LABEL_RE.lastIndex < text.length) {
    const m = LABEL_RE.exec(text);
    if (!m) throw new Error(`${where}: bad label set`);
    const name = m[1]!;
    if (name in labels) throw new Error(`${where}: label ${name} repeated`);
    labels[name] = unescape(m[2]!, true);
    if (m[3] === '') break;
  }
  return labels;
}

function parseValue(text: string, where: string): number {
  // Prometheus reads values with Go's strconv.ParseFloat, which matches NaN and Inf in any case.
  const special = text.toLowerCase();
  if (special === 'nan') return NaN;
  if (special === '+inf' || special === 'inf') return Infinity;
  if (special === '-inf') return -Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`${where}: bad value ${text}`);
  return Number(text);
}

function unescape(s: string, quotes: boolean): string {
  return s.replace(/\\(.)/g, (all, c: string) =>
    c === 'n' ? '\n' : c === '\\' ? '\\' : quotes && c === '"' ? '"' : all,
  );
}

/** Per label set: cumulative buckets never decrease and the +Inf bucket equals _count. */
function checkHistogram(fam: Family): void {
  const groups = new Map<string, { buckets: number[]; inf?: number; count?: number }>();
  for (const s of fam.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(rest);
    const g = groups.get(key) ?? { buckets: [] };
    groups.set(key, g);
    if (s.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${fam.name}: bucket without le`);
      if (le === '+Inf') g.inf = s.value;
      else g.buckets.push(s.value);
    } else if (s.name.endsWith('_count')) g.count = s.value;
  }
  for (const [key, g] of groups) {
    const all = [...g.buckets, g.inf ?? NaN];
    for (let i = 1; i < all.length; i++)
      if (!(all[i]! >= all[i - 1]!)) throw new Error(`${fam.name}${key}: buckets decrease or +Inf missing`);
    if (g.inf !== g.count) throw new Error(`${fam.name}${key}: +Inf bucket ${g.inf} != count ${g.count}`);
  }
}

/** Sum of a family's samples named `name` whose labels include `match`. */
export function value(families: Map<string, Family>, name: string, match: Record<string, string> = {}): number {
  let total = 0;
  let found = false;
  for (const fam of families.values()) {
    for (const s of fam.samples) {
      if (s.name !== name) continue;
      if (Object.entries(match).some(([k, v]) => s.labels[k] !== v)) continue;
      total += s.value;
      found = true;
    }
  }
  if (!found) throw new Error(`no sample ${name}${JSON.stringify(match)}`);
  return total;
}
