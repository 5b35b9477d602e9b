// Category and event-type names that operators write (mapping.filters, `tail --categories/--types`)
// checked against what the service sends (docs/service-api.md "Events"). Categories are a closed set: the ten the
// telemetry configuration has a flag for, plus `monitor`, which has none but is sent; an unknown
// category can never match, so it is an error listing the valid names. Event types are open: the
// service adds new ones (docs/upstream-differences.md: types beyond the table pass through), so an unknown type
// is accepted with a warning naming the closest known type, which catches a typo without refusing a
// type newer than this bridge.
import { CATEGORIES, KNOWN_EVENT_TYPES } from '../vocabulary/event-types.js';
import { ConfigError } from './errors.js';

export { CATEGORIES } from '../vocabulary/event-types.js';

const CATEGORY_SET = new Set(CATEGORIES);

/** Every event type this bridge knows by name. */
export function knownTypes(): readonly string[] {
  return KNOWN_EVENT_TYPES;
}

/** Throws a ConfigError naming `key[i]` and the valid names for the first unknown category. */
export function checkCategories(names: readonly string[], key: string): void {
  names.forEach((name, i) => {
    const problem = categoryProblem(name);
    if (problem) throw new ConfigError(`${key}[${i}]`, problem);
  });
}

/** Why `name` is not a category, or undefined when it is one. */
export function categoryProblem(name: string): string | undefined {
  if (CATEGORY_SET.has(name)) return undefined;
  const near = closest(name, CATEGORIES);
  return `unknown category "${name}"${near ? ` (did you mean "${near}"?)` : ''}; valid categories: ${CATEGORIES.join(', ')}`;
}

/** One warning per unknown type, naming the closest known type when there is a plausible one. */
export function typeWarnings(names: readonly string[], key: string): string[] {
  const out: string[] = [];
  for (const name of names) {
    const known = knownTypes();
    if (known.includes(name)) continue;
    const near = closest(name, known);
    out.push(`${key}: "${name}" is not a known event type${near ? ` (did you mean "${near}"?)` : ''}; kept, in case the service sends it`);
  }
  return out;
}

/**
 * The candidate nearest to `name` by edit distance, when near enough to be a typo: at most a third
 * of the name's length (at least 1), so `consol` finds `console` but `foo` finds nothing.
 */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance (insert, delete, substitute), with adjacent swaps counted as one edit. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i]!;
    const prev = rows[i - 1]!;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row[j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
