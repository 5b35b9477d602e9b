// Case-insensitive name lists with a `*` wildcard (header names, query parameter names), compiled
// once. Lookups are memoized by the name as sent: header and parameter names are a small vocabulary,
// so the per-event cost is one Map hit instead of lower-casing and regex tests.

import { boundedMemo } from '../util/bounded-memo.js';

/** Entries kept before the cache is cleared; bounds memory against hostile name variety. */
const CACHE_LIMIT = 4096;

export interface NameMatcher {
  matches(name: string): boolean;
}

const escapeRegex = (s: string): string => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

export function compileNameMatcher(patterns: readonly string[]): NameMatcher {
  const exact = new Set<string>();
  const wild: string[] = [];
  for (const p of patterns) {
    const lower = p.toLowerCase();
    if (lower.includes('*')) wild.push(lower.split('*').map(escapeRegex).join('.*'));
    else exact.add(lower);
  }
  const regex = wild.length > 0 ? new RegExp(`^(?:${wild.join('|')})$`, 's') : undefined;
  if (exact.size === 0 && regex === undefined) return { matches: () => false };
  const matches = boundedMemo(CACHE_LIMIT, (name) => {
    const lower = name.toLowerCase();
    return exact.has(lower) || (regex !== undefined && regex.test(lower));
  });
  return { matches };
}

/**
 * Whether a form or query field name is named like a secret: the name itself, or for the bracket
 * notation of PHP and Rails forms (`user[password]`, `otp[]`, `session[otp][]`) its last named
 * segment.
 */
export function matchesFieldName(names: NameMatcher, name: string): boolean {
  if (names.matches(name)) return true;
  if (name.charCodeAt(name.length - 1) !== 93 /* ] */) return false;
  let end = name.length;
  // `[]` (a list) names nothing: look at what comes before it.
  while (end >= 2 && name.charCodeAt(end - 1) === 93 && name.charCodeAt(end - 2) === 91 /* [ */) end -= 2;
  if (name.charCodeAt(end - 1) !== 93) return end > 0 && end < name.length && names.matches(name.slice(0, end));
  const open = name.lastIndexOf('[', end - 2);
  return open !== -1 && open + 1 < end - 1 && names.matches(name.slice(open + 1, end - 1));
}
