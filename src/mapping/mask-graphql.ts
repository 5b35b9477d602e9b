// Secrets written inline in a GraphQL document: `login(user: "alice", password: "…")`, as clients
// that build the query text themselves send it, instead of passing the value in `variables`. An
// argument (or input object field) whose name is named like a secret has its string value replaced
// by REDACTED, the quotes and the rest of the document kept (GraphQL spec §2.6 Arguments, §2.9.4
// String Value). Values of other kinds (numbers, enums, variables) are no credential's shape.
import { REDACTED } from '../config/mapping-section.js';
import type { NameMatcher } from './name-matcher.js';

/**
 * `name: "string"`: a name (§2.1.9), the colon, a quoted string with its escapes. The lookbehind
 * starts a name only where one can start: without it a long run of name characters before `":`
 * was tried from each of its positions, quadratic (60,000 of them froze the loop for 6 s).
 */
const ARGUMENT = /(?<![_0-9A-Za-z])([_A-Za-z][_0-9A-Za-z]*)(\s*:\s*)"((?:[^"\\\n]|\\.)*)"/g;

/** The GraphQL document with the string arguments named like a secret masked; null when none is. */
export function maskGraphqlArguments(document: string, names: NameMatcher): string | null {
  // Every argument has a colon and a quoted value: most strings have neither.
  if (!document.includes(':') || !document.includes('"')) return null;
  let changed = false;
  const out = document.replace(ARGUMENT, (whole, name: string, colon: string, value: string) => {
    if (value === REDACTED || !names.matches(name)) return whole;
    changed = true;
    return `${name}${colon}"${REDACTED}"`;
  });
  return changed ? out : null;
}
