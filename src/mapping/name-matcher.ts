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
