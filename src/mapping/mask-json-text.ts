// Secret-named members of JSON *text*, whole or cut short, masked in place. The service cuts every
// captured string at 8,192 bytes and appends `...[truncated]` (docs/service-api.md "Envelope"), so
// a large request or response body arrives as a JSON prefix that JSON.parse refuses; this scanner
// needs no complete document. It walks the strings only: in JSON a `"` outside a string always
// opens one, so pairing quotes from the start finds every string, and a string followed by `:` is
// a member name. The value after a matching name is replaced by `"REDACTED"` whatever it is (a
// string, a number, an array, an object: `{"password":["…"]}` hides as much as a string does),
// except `null`, an error code under `code` or `key` and a count under a plural (plain-codes.ts); a
// value the cut ends inside is masked to the end of the text. Everything else stays byte for byte:
// the rest of a cut body is as readable as the service left it.
//
// The private members of a JSON Web Key, named by letters no list can hold, are masked by a second
// pass (mask-jwk.ts) over text that has a `"kty"`.
//
// A string value that holds JSON itself (`{"payload":"{\"password\":\"x\"}"}`, as APIs that
// wrap a serialized document send) is decoded, masked the same way and encoded again, a few
// levels deep; only a string that changed is re-encoded. A nested string the cut ends inside is
// decoded as far as it goes, so its secrets are masked too.
import type { NameMatcher } from './name-matcher.js';
import { REDACTED } from '../config/mapping-section.js';
import { maskGraphqlArguments } from './mask-graphql.js';
import { keepsText } from './plain-codes.js';
import { maskJwkMembers } from './mask-jwk.js';
import { isSpace, memberName, skipSpaces, stringEnd, valueEnd } from './json-extent.js';

const MASKED = `"${REDACTED}"`;

/** JSON inside JSON strings is followed this many levels down (each level re-escapes every quote). */
const MAX_NESTING = 4;

/**
 * The character at `i` of a JSON string's raw text, its escape decoded when it is one a serialized
 * document can begin with (`\n`, `\r`, `\t`, `\uXXXX`): [code, characters it takes]; [-1, 0] for any
 * other escape.
 */
function charIn(text: string, i: number): [number, number] {
  const c = text.charCodeAt(i);
  if (c !== 92 /* \ */) return [c, 1];
  const e = text.charCodeAt(i + 1);
  if (e === 110 /* n */) return [10, 2];
  if (e === 114 /* r */) return [13, 2];
  if (e === 116 /* t */) return [9, 2];
  if (e === 117 /* u */) {
    const hex = text.slice(i + 2, i + 6);
    if (/^[0-9a-fA-F]{4}$/.test(hex)) return [parseInt(hex, 16), 6];
  }
  return [-1, 0];
}

/**
 * Whether the string opened at `open` starts like a JSON object or array, past white space, raw or
 * escaped (a serialized document may begin with a line break, which the string holds as `\n`, or
 * a serializer may write `\u000a`, `\u007b`): what the same body decoded from JSON would show.
 */
function holdsJson(text: string, open: number): boolean {
  let i = open + 1;
  for (;;) {
    const [c, width] = charIn(text, i);
    if (width > 0 && isSpace(c)) i += width;
    else return c === 123 /* { */ || c === 91; /* [ */
  }
}

/**
 * The JSON string literal from `open` to `close` (or to the text's end when the cut ended inside
 * it, close -1) with the JSON inside it masked, encoded again; null when nothing in it matched.
 */
function maskNested(text: string, open: number, close: number, names: NameMatcher, depth: number): string | null {
  const literal = close === -1 ? text.slice(open) : text.slice(open, close + 1);
  const inner = close === -1 ? decodeCut(literal) : decode(literal);
  if (inner === undefined) return null;
  const masked = maskJsonTextAt(inner, names, 0, depth + 1);
  if (masked === null) return null;
  const encoded = JSON.stringify(masked);
  return close === -1 ? encoded.slice(0, -1) : encoded;
}

/**
 * The JSON string literal opened at `open` (complete or cut) read as JSON text, whatever it starts
 * with (Next.js's `id:JSON` rows: mask-inline-state.ts), masked and encoded again: the literal's
 * replacement and where the literal ends (past its `"`, or the text's end when cut); null when
 * nothing in it matched.
 */
export function maskStringAsJson(
  text: string,
  open: number,
  names: NameMatcher,
): { literal: string; end: number } | null {
  const close = stringEnd(text, open);
  const literal = maskNested(text, open, close, names, 0);
  return literal === null ? null : { literal, end: close === -1 ? text.length : close + 1 };
}

/**
 * The string value after `from` (past white space) of a `query` member, decoded, its GraphQL
 * arguments masked and encoded again, with where it starts and ends; null when it is no string or
 * has nothing to mask. A string the cut ends inside is decoded as far as it goes (as maskNested).
 */
function maskQueryMember(
  text: string,
  from: number,
  names: NameMatcher,
): { start: number; end: number; literal: string } | null {
  const v = skipSpaces(text, from);
  if (text.charCodeAt(v) !== 34 /* " */) return null;
  const close = stringEnd(text, v);
  const document = close === -1 ? decodeCut(text.slice(v)) : decode(text.slice(v, close + 1));
  const masked = document === undefined ? null : maskGraphqlArguments(document, names);
  if (masked === null) return null;
  const literal = JSON.stringify(masked);
  return close === -1
    ? { start: v, end: text.length, literal: literal.slice(0, -1) }
    : { start: v, end: close + 1, literal };
}

/** A string literal the cut ends inside, decoded: what may be half an escape (`\`, `\u00`) dropped until the rest decodes. */
function decodeCut(literal: string): string | undefined {
  let inner: string | undefined;
  for (let drop = 0; drop <= 6 && inner === undefined && drop < literal.length; drop++) {
    inner = decode(literal.slice(0, literal.length - drop) + '"');
  }
  return inner;
}

function decode(literal: string): string | undefined {
  try {
    const v: unknown = JSON.parse(literal);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `text` from `from` on, read as JSON (complete or cut short), with the value of every member
 * whose name `names` matches replaced by `"REDACTED"`; null when nothing matched.
 */
export function maskJsonText(text: string, names: NameMatcher, from = 0): string | null {
  return maskJsonTextAt(text, names, from, 0);
}

function maskJsonTextAt(text: string, names: NameMatcher, from: number, depth: number): string | null {
  const masked = maskNamedMembers(text, names, from, depth);
  // A JWK's private members have names no list can hold (mask-jwk.ts); one native search settles
  // the text that has none. The masks above all lie past `from`, so it still points where it did.
  if (!text.includes('"kty"', from)) return masked;
  return maskJwkMembers(masked ?? text, from) ?? masked;
}

function maskNamedMembers(text: string, names: NameMatcher, from: number, depth: number): string | null {
  const n = text.length;
  let out: string[] | null = null;
  let copied = 0;
  let open = text.indexOf('"', from);
  while (open !== -1) {
    const close = stringEnd(text, open);
    const nested = depth < MAX_NESTING && holdsJson(text, open);
    if (close === -1) {
      const masked = nested ? maskNested(text, open, close, names, depth) : null;
      if (masked !== null) {
        (out ??= []).push(text.slice(copied, open), masked);
        copied = n;
      }
      break;
    }
    const colon = skipSpaces(text, close + 1);
    const name = text.charCodeAt(colon) === 58 /* : */ ? memberName(text, open, close) : undefined;
    if (name === 'query') {
      // GraphQL over HTTP's document: its inline arguments (mask-graphql.ts).
      const masked = maskQueryMember(text, colon + 1, names);
      if (masked !== null) {
        (out ??= []).push(text.slice(copied, masked.start), masked.literal);
        copied = masked.end;
        open = text.indexOf('"', masked.end);
        continue;
      }
    }
    if (name === undefined || !names.matches(name)) {
      const masked = nested && text.charCodeAt(colon) !== 58 ? maskNested(text, open, close, names, depth) : null;
      if (masked !== null) {
        (out ??= []).push(text.slice(copied, open), masked);
        copied = close + 1;
      }
      open = text.indexOf('"', close + 1);
      continue;
    }
    const v = skipSpaces(text, colon + 1);
    // Cut right after the name: no value to mask.
    if (v >= n) break;
    const end = valueEnd(text, v);
    const value = text.slice(v, end);
    // An error code under `code` or `key`, a count under a plural, is kept (plain-codes.ts); not a
    // value the text ends with, which the cut may have shortened (`123` of an OTP `123456`).
    if (value !== 'null' && value !== MASKED && !(end < n && keepsText(name, value))) {
      (out ??= []).push(text.slice(copied, v), MASKED);
      copied = end;
    }
    open = end < n ? text.indexOf('"', end) : -1;
  }
  if (out === null) return null;
  out.push(text.slice(copied));
  return out.join('');
}
