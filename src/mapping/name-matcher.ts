// Case-insensitive name lists with a `*` wildcard (header names, query parameter names), compiled
// once. Lookups are memoized by the name as sent: header and parameter names are a small vocabulary,
// so the per-event cost is one Map hit instead of lower-casing and regex tests.
//
// Long names are not: a "name" may be most of a URL (a `data:` URL's `;base64,…=` reads as a path
// parameter named by its whole payload, up to the service's 8 KB), and names that never repeat
// must not sit in the memo (4,096 of them of 8 KB each was 32 MiB per list). The patterns the
// defaults use, `*token`, `token*` and `*token*`, are tested with endsWith / startsWith / includes,
// which look at a long name once; as one regular expression (`^(?:.*signature|.*token|…)$`) each
// alternative ran `.*` to the end and backed off character by character: mapping a request whose
// URL was an 8 KB data: URL took ~60 µs, nearly all of it here.

import { boundedMemo } from '../util/bounded-memo.js';

/** Entries kept before the cache is cleared; bounds memory against hostile name variety. */
const CACHE_LIMIT = 4096;
/** Names longer than this are matched each time, never kept in the memo. */
const MEMO_NAME_CHARS = 128;

export interface NameMatcher {
  matches(name: string): boolean;
}

const escapeRegex = (s: string): string => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

export function compileNameMatcher(patterns: readonly string[]): NameMatcher {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  const prefixes: string[] = [];
  const infixes: string[] = [];
  const wild: string[] = [];
  for (const p of patterns) {
    const lower = p.toLowerCase();
    const parts = lower.split('*');
    if (parts.length === 1) exact.add(lower);
    // `*lit`, `lit*`, `*lit*` (and `*`, `**`: an empty infix, which every name contains).
    else if (parts.length === 2 && parts[0] === '') suffixes.push(parts[1]!);
    else if (parts.length === 2 && parts[1] === '') prefixes.push(parts[0]!);
    else if (parts.length === 3 && parts[0] === '' && parts[2] === '') infixes.push(parts[1]!);
    else wild.push(parts.map(escapeRegex).join('.*'));
  }
  const regex = wild.length > 0 ? new RegExp(`^(?:${wild.join('|')})$`, 's') : undefined;
  if (exact.size + suffixes.length + prefixes.length + infixes.length === 0 && regex === undefined)
    return { matches: () => false };
  const test = (name: string): boolean => {
    const lower = name.toLowerCase();
    if (exact.has(lower)) return true;
    for (const s of suffixes) if (lower.endsWith(s)) return true;
    for (const s of prefixes) if (lower.startsWith(s)) return true;
    for (const s of infixes) if (lower.includes(s)) return true;
    return regex !== undefined && regex.test(lower);
  };
  const memo = boundedMemo(CACHE_LIMIT, test);
  return { matches: (name) => (name.length > MEMO_NAME_CHARS ? test(name) : memo(name)) };
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

/**
 * Words that name a credential field when they stand as a whole word of a form field's name or id
 * or of a selector (`#pin`, `#login-pw`, `user_pin`, `otpCode`, `password-confirm`), though the
 * lists leave them out or match them only at the end of a name: `pin` or `pw` in a query or a JSON
 * key names a pinned item or a progressive web app as often. Whole words only, so `pinned`,
 * `spinner` and `pwa` stay plain.
 */
const FIELD_WORDS: ReadonlySet<string> = new Set([
  'pw',
  'pwd',
  'pin',
  'otp',
  'passcode',
  'password',
  'passwd',
  'passphrase',
  'cvv',
  'cvc',
  'csc',
]);

/** The words of a name: runs of letters, split at camelCase (`otpCode`, `OTPCode`) too. */
const WORD = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+/g;

/** Whether a field name, id or selector holds one of FIELD_WORDS as a whole word. */
export function hasSecretFieldWord(text: string): boolean {
  for (const word of text.match(WORD) ?? []) if (FIELD_WORDS.has(word.toLowerCase())) return true;
  return false;
}
