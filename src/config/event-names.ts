// Category and event-type names that operators write (mapping.filters, `tail --categories/--types`)
// checked against what the service sends (docs/service-api.md "Events"). Categories are a closed set: the ten the
// telemetry configuration has a flag for, plus `monitor`, which has none but is sent; an unknown
// category can never match, so it is an error listing the valid names. Event types are open: the
// service adds new ones (docs/upstream-differences.md: types beyond the table pass through), so an unknown type
// is accepted with a warning naming the closest known type, which catches a typo without refusing a
// type newer than this bridge.
import { CATEGORIES, KNOWN_EVENT_TYPES } from '../vocabulary/event-types.js';
import { ConfigError } from './errors.js';
import { closest } from '../util/closest-name.js';

export { CATEGORIES } from '../vocabulary/event-types.js';
export { closest, editDistance } from '../util/closest-name.js';

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
    out.push(
      `${key}: "${name}" is not a known event type${near ? ` (did you mean "${near}"?)` : ''}; kept, in case the service sends it`,
    );
  }
  return out;
}

/**
 * An include list of types none of which the catalogue knows drops every event the service sends
 * today: refused (with the nearest known names) unless the operator says newer types are expected.
 */
export function checkIncludeTypes(
  names: readonly string[],
  key: string,
  allowUnknown: boolean,
  allowKey: string,
): void {
  const known = knownTypes();
  if (allowUnknown || names.length === 0 || names.some((n) => known.includes(n))) return;
  const hints = names.map((n) => {
    const near = closest(n, known);
    return near ? `"${n}" (did you mean "${near}"?)` : `"${n}"`;
  });
  throw new ConfigError(
    key,
    `no event type in the list is known (${hints.join(', ')}), so this include filter would drop every event; fix the names, or set ${allowKey}: true if you expect types newer than this bridge`,
  );
}
