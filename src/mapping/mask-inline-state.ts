// State a server renders into a page's inline script for the client to take over:
// `window.__INITIAL_STATE__ = {…}` (Redux's server rendering), `window.__PRELOADED_STATE__`,
// `window.__APOLLO_STATE__=`, `window.__STATE__=`. The value is JSON.stringify's output written after
// the assignment, and holds what the store held on the server: a session's `csrfToken`, an access
// token. It is masked as a JSON body is (mask-json-text.ts); the rest of the script stays as sent.
// Next.js's App Router sends its server components' props as `self.__next_f.push([1,"…"])`: a
// string of `id:JSON` rows, decoded, masked the same way and encoded again when it changed (a
// chunk the service cut: as far as it goes).
//
// Only an assignment to a name that starts with `__` (`x.__…`, `x["__…"]`: Remix's `__remixContext`
// has no trailing `__`) whose value starts with `{` or `[` (and a `__next_f.push([…])`) is read, to
// the end of that value (or of the text, when the service cut it inside), and so is a string literal passed straight to `JSON.parse` (`__S__ = JSON.parse('{…}')`,
// V8's advice for large state); an object literal with unquoted keys (`{csrfToken:"…"}`) or a value
// built by a function (Nuxt's `__NUXT__=(function(a){…})`) is JavaScript, and is not read. The search goes on past the value it masked, so each part of the
// text is read once.
import { maskJsonText, maskStringAsJson } from './mask-json-text.js';
import { stringEnd, valueEnd } from './json-extent.js';
import type { NameMatcher } from './name-matcher.js';

/**
 * `__NAME =` (Redux's `__INITIAL_STATE__`, Remix's `__remixContext`), `["__NAME"] =` or
 * `__next_f.push(` before a `{` or `[`. The name's characters are all word characters, so `\b`
 * lets a run of them start a match at its first character only: linear.
 */
const ASSIGNMENT =
  /(?:\b__[A-Za-z0-9_]*|\[\s*(["'])__[A-Za-z0-9_]*\1\s*\])\s*=(?!=)\s*(?:(JSON\.parse\(\s*)(?=["'])|(?=[{[]))|\b__next_f\.push\(\s*(?=[{[])/g;

/** A Next.js flight chunk (`[1,"rows"]`, complete or cut) with the JSON in its rows masked, encoded again; null when unchanged. */
function maskFlightChunk(chunk: string, names: NameMatcher): string | null {
  let value: unknown;
  try {
    value = JSON.parse(chunk);
  } catch {
    return maskCutFlightChunk(chunk, names);
  }
  if (!Array.isArray(value) || typeof value[1] !== 'string') return null;
  const items = (value as unknown[]).slice();
  const masked = maskJsonText(items[1] as string, names);
  if (masked === null) return null;
  items[1] = masked;
  return JSON.stringify(items);
}

/** The start of a flight chunk up to its string's `"`. */
const CHUNK_HEAD = /^\[\s*[0-9]+\s*,\s*"/;

/**
 * A chunk JSON.parse refuses: the service cut the page inside it or just after its string, and the
 * chunks close a page, where the cut of a page over 8,192 bytes lands. Its string is decoded as far
 * as it goes, masked and encoded again; what follows it stays.
 */
function maskCutFlightChunk(chunk: string, names: NameMatcher): string | null {
  const head = CHUNK_HEAD.exec(chunk);
  if (head === null) return null;
  const open = head[0].length - 1;
  const masked = maskStringAsJson(chunk, open, names);
  if (masked === null) return null;
  return chunk.slice(0, open) + masked.literal + chunk.slice(masked.end);
}

/** `text` with the secret-named members of each inline state from `from` on masked; null when none was. */
export function maskInlineState(text: string, names: NameMatcher, from: number): string | null {
  let out: string[] | null = null;
  let copied = 0;
  ASSIGNMENT.lastIndex = from;
  for (let m = ASSIGNMENT.exec(text); m !== null; m = ASSIGNMENT.exec(text)) {
    let start = ASSIGNMENT.lastIndex;
    let end: number;
    if (m[2] !== undefined && text.charCodeAt(start) === 39 /* ' */) {
      // `JSON.parse('{"csrfToken":"…"}')`: the JSON is the text between the quotes.
      const close = stringEnd(text, start, "'");
      start++;
      end = close === -1 ? text.length : close;
    } else {
      // A `"` string (`JSON.parse("{\"csrfToken\":…}")`) is JSON serialized in a JSON string,
      // which maskJsonText decodes, masks and encodes again.
      end = valueEnd(text, start);
    }
    ASSIGNMENT.lastIndex = end;
    const value = text.slice(start, end);
    const masked = m[0].startsWith('__next_f.push') ? maskFlightChunk(value, names) : maskJsonText(value, names);
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
