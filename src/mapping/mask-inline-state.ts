// State a server renders into a page's inline script for the client to take over:
// `window.__INITIAL_STATE__ = {…}` (Redux's server rendering), `window.__PRELOADED_STATE__`,
// `window.__APOLLO_STATE__=`, `window.__STATE__=`. The value is JSON.stringify's output written after
// the assignment, and holds what the store held on the server: a session's `csrfToken`, an access
// token. It is masked as a JSON body is (mask-json-text.ts); the rest of the script stays as sent.
//
// Only an assignment to a name written `__…__` whose value starts with `{` or `[` is read, to the end
// of that value (or of the text, when the service cut it inside): an object literal with unquoted
// keys (`{csrfToken:"…"}`), a value built by a function (Nuxt's `__NUXT__=(function(a){…})`) or
// passed through a string (`JSON.parse('…')`, Next.js's `self.__next_f.push`) is JavaScript, and is
// not read. The search goes on past the value it masked, so each part of the text is read once.
import { maskJsonText } from './mask-json-text.js';
import { valueEnd } from './json-extent.js';
import type { NameMatcher } from './name-matcher.js';

/**
 * `__NAME__ =` before a `{` or `[`. The name's characters are all word characters, so `\b` lets a
 * run of them start a match at its first character only: linear.
 */
const ASSIGNMENT = /\b__[A-Za-z0-9_]*__\s*=(?!=)\s*(?=[{[])/g;

/** `text` with the secret-named members of each inline state from `from` on masked; null when none was. */
export function maskInlineState(text: string, names: NameMatcher, from: number): string | null {
  let out: string[] | null = null;
  let copied = 0;
  ASSIGNMENT.lastIndex = from;
  for (let m = ASSIGNMENT.exec(text); m !== null; m = ASSIGNMENT.exec(text)) {
    const start = ASSIGNMENT.lastIndex;
    const end = valueEnd(text, start);
    ASSIGNMENT.lastIndex = end;
    const masked = maskJsonText(text.slice(start, end), names);
    if (masked !== null) {
      (out ??= []).push(text.slice(copied, start), masked);
      copied = end;
    }
    if (end >= text.length) break;
  }
  if (out === null) return null;
  out.push(text.slice(copied));
  return out.join('');
}
