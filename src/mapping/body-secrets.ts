// Secrets inside request and response bodies (`mask_body_secrets`): the values of members and
// fields named like a secret, in every shape a body takes on the wire. Only network_request's
// post_data and network_response's body pass here, so none of it is on every event's path.
//
// A text body is, by its first characters:
//   1. JSON, possibly behind an anti-XSSI prefix (`)]}'`, `for(;;);`, `while(1);`, which APIs put
//      before JSON answers so a <script> tag cannot run them): masked in place by the tolerant
//      scanner (mask-json-text.ts), so a body the service cut at 8,192 bytes is masked too;
//   2. multipart/form-data (`--boundary`): secret-named parts masked (mask-multipart.ts);
//   3. a urlencoded form (`a=1&password=…`): secret-named fields masked (redactParams); a React
//      server component payload (`0:[…]` rows, Next.js's client navigations): the rows' JSON as in 1.
//   4. anything else (HTML, prose): the value of a secret-named `<input>`, `<textarea>` or
//      `<select>`, the content of a secret-named `<meta>` (a form's CSRF token), JSON embedded in a
//      `<script type="application/json">` and inline state (`window.__INITIAL_STATE__ = {…}`)
//      (mask-html-fields.ts); the walk masks the signed URLs inside it.
// A body the service cut keeps its `...[truncated]` suffix outside of what is masked, so a value
// the cut ends inside is masked and the record still says the body was cut.
import { setOwn } from './attributes.js';
import type { JsonValue } from '../vocabulary/log-record.js';
import { REDACTED } from '../config/mapping-section.js';
import { maskJsonText } from './mask-json-text.js';
import { maskHtmlFields } from './mask-html-fields.js';
import { maskMultipart } from './mask-multipart.js';
import type { NameMatcher } from './name-matcher.js';
import { redactParams } from './redact-url.js';
import { keepsValue } from './plain-codes.js';
import { isPrivateJwkMember } from './mask-jwk.js';

type JsonObject = { [key: string]: JsonValue };

/** Bodies longer than this are not scanned (the record size limit cuts them anyway). */
const MAX_BODY_SCAN = 1024 * 1024;

/** Subtrees of a body that arrived as JSON are searched this deep (as the body walk's own limit). */
const MAX_DEPTH = 48;

/** What the service appends to a string it cut (docs/service-api.md "Envelope"). */
export const SERVICE_CUT = '...[truncated]';

/** Anti-XSSI prefixes in use (Angular and Google `)]}'`, Facebook `for(;;);`, Google `while(1);`). */
const XSSI_PREFIXES: readonly string[] = [")]}'", 'for(;;);', 'while(1);'];

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;

/** Where the JSON of `text` starts (its `{` or `[`, past white space and an anti-XSSI prefix), or -1. */
function jsonStart(text: string): number {
  let i = 0;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  for (const prefix of XSSI_PREFIXES) {
    if (!text.startsWith(prefix, i)) continue;
    i += prefix.length;
    // Angular's form is `)]}',` and a line break.
    if (text.charCodeAt(i) === 44 /* , */) i++;
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    break;
  }
  const c = text.charCodeAt(i);
  return c === 123 /* { */ || c === 91 /* [ */ ? i : -1;
}

/**
 * The first row of a React server component payload (`text/x-component`: `0:[…]`, `1:I[…]`,
 * `2:{…}`), which a Next.js App Router page fetches on every client navigation: the same rows a
 * page embeds in `self.__next_f.push` (mask-inline-state.ts), a hex id, a colon, an optional tag
 * and JSON.
 */
const RSC_ROW = /^[0-9a-f]{1,8}:[A-Z]{0,2}[[{"]/;

/** A text body (without the service's cut suffix) masked by its shape; null when unchanged. */
function maskText(text: string, names: NameMatcher): string | null {
  const json = jsonStart(text);
  if (json !== -1) return maskJsonText(text, names, json);
  // The scanner reads each row's JSON as it reads the rows inside a `__next_f` chunk.
  if (RSC_ROW.test(text)) return maskJsonText(text, names, 0);
  if (text.startsWith('--')) {
    const multipart = maskMultipart(text, names, (part) => maskPart(part, names));
    if (multipart !== null) return multipart;
  }
  return looksLikeForm(text) ? redactParams(text, names) : maskHtmlFields(text, names);
}

/**
 * Whether a text body may be a urlencoded form: an `=` and none of the characters a form encoder
 * escapes and prose or markup is full of (white space, `<`, `>`, `"`). Parsing an HTML page as a
 * form would run a matching field's value to the end of the page and mask it all.
 */
function looksLikeForm(text: string): boolean {
  if (!text.includes('=')) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 32 || c === 60 /* < */ || c === 62 /* > */ || c === 34 /* " */) return false;
  }
  return true;
}

/** One part of a multipart body: JSON or a form inside it, never another multipart. */
function maskPart(text: string, names: NameMatcher): string | null {
  const json = jsonStart(text);
  if (json !== -1) return maskJsonText(text, names, json);
  return looksLikeForm(text) ? redactParams(text, names) : null;
}

/**
 * A body with the values of secret-named keys masked: JSON text (whole, cut or prefixed), a
 * multipart or urlencoded form, or a body that arrived as JSON already; the same value when
 * nothing matched.
 */
export function maskBodySecrets(body: JsonValue, names: NameMatcher): JsonValue {
  if (typeof body === 'string') {
    if (body.length > MAX_BODY_SCAN) return body;
    const cut = body.endsWith(SERVICE_CUT);
    const masked = maskText(cut ? body.slice(0, -SERVICE_CUT.length) : body, names);
    return masked === null ? body : cut ? masked + SERVICE_CUT : masked;
  }
  return typeof body === 'object' && body !== null ? maskJsonKeys(body, names, 0) : body;
}

/**
 * A body that is JSON already: the value under a matching key masked whole (an array or object too),
 * null, an error code under `code` or `key` and a count under a plural (plain-codes.ts) kept, and
 * JSON text inside string values masked as text.
 */
function maskJsonKeys(v: JsonValue, names: NameMatcher, depth: number): JsonValue {
  // A string holding a serialized document: masked as JSON text.
  if (typeof v === 'string')
    return v.length <= MAX_BODY_SCAN && jsonStart(v) !== -1 ? (maskJsonText(v, names) ?? v) : v;
  if (typeof v !== 'object' || v === null || depth > MAX_DEPTH) return v;
  if (Array.isArray(v)) {
    let out: JsonValue[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const next = maskJsonKeys(v[i] as JsonValue, names, depth + 1);
      if (next !== v[i]) (out ??= v.slice())[i] = next;
    }
    return out ?? v;
  }
  let out: JsonObject | undefined;
  // A JSON Web Key: its private members have one- and two-letter names (mask-jwk.ts).
  const jwk = typeof v.kty === 'string';
  for (const k of Object.keys(v)) {
    const child = v[k] as JsonValue;
    let next: JsonValue;
    if (names.matches(k)) next = child === null || keepsValue(k, child) ? child : REDACTED;
    else if (jwk && isPrivateJwkMember(k)) next = child === null ? child : REDACTED;
    else next = maskJsonKeys(child, names, depth + 1);
    if (next !== child) setOwn((out ??= { ...v }), k, next);
  }
  return out ?? v;
}
