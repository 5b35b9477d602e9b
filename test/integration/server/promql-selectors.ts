// Just enough PromQL reading for the alert test: the metric selectors of an expression (name and
// label matchers) and the labels it groups by. Not a PromQL parser: it knows the shapes the
// documented alerts use (functions, aggregations with by/without, binary operators, range vectors).

export interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

export interface Selector {
  metric: string;
  matchers: Matcher[];
}

const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
]);
const MATCHER = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*,?/y;

export function selectors(expr: string): { selectors: Selector[]; grouping: string[] } {
  const grouping: string[] = [];
  // Grouping clauses name labels, not metrics: take them out first.
  let rest = expr.replace(
    /\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g,
    (_m, _kw, labels: string) => {
      grouping.push(
        ...labels
          .split(',')
          .map((l) => l.trim())
          .filter(Boolean),
      );
      return ' ';
    },
  );
  rest = rest.replace(/\[[^\]]*\]/g, ' '); // range durations: [5m]
  const out: Selector[] = [];
  const ident = /([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{)?/g;
  let m: RegExpExecArray | null;
  while ((m = ident.exec(rest)) !== null) {
    const name = m[1]!;
    const before = rest[m.index - 1];
    if (before !== undefined && /[0-9.]/.test(before)) continue; // the unit of a number, e.g. 1e3
    let matchers: Matcher[] = [];
    if (m[2] === '{') {
      const close = rest.indexOf('}', ident.lastIndex);
      matchers = parseMatchers(rest.slice(ident.lastIndex, close));
      ident.lastIndex = close + 1;
    } else if (/^\s*\(/.test(rest.slice(ident.lastIndex)) || KEYWORDS.has(name)) {
      continue; // a function or aggregation, or a keyword
    }
    out.push({ metric: name, matchers });
  }
  return { selectors: out, grouping };
}

function parseMatchers(text: string): Matcher[] {
  const out: Matcher[] = [];
  MATCHER.lastIndex = 0;
  while (MATCHER.lastIndex < text.trimEnd().length) {
    const m = MATCHER.exec(text);
    if (!m) throw new Error(`cannot read label matchers {${text}}`);
    out.push({ label: m[1]!, op: m[2] as Matcher['op'], value: m[3]! });
  }
  return out;
}
