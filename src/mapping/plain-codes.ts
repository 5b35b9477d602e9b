// `code` and `key` are on the secret lists because an OAuth authorization code, a one-time code and
// an API key travel under them; error answers use the same names for what a reader needs most
// (`{"error":{"code":"invalid_grant"}}`, `{"code":"RATE_LIMITED"}`, `{"code":404}`). A value under
// either name in JSON is kept when it reads as a word, and masked otherwise:
//   - a string of words in one case joined by `_` `-` `.` `/` `:` (`invalid_grant`,
//     `auth/invalid-email`, `RATE_LIMITED`, `ERR_404`; upper case only with `_`, so grouped recovery
//     codes such as `ABCD-EFGH` stay masked), or PascalCase words (`AccessDenied`);
//   - an integer of at most three digits (an HTTP status) or a negative one (JSON-RPC's -32600).
// Everything else is masked: digits in a string (`"123456"`, an OTP), letters and digits mixed within
// a word (`sk_live_4eC39H…`, hex), mixed case that is not PascalCase (`SplxlOBeZQQYbYS6WxSbIA`, RFC
// 6749's example code), four digits or more (a numeric OTP), anything longer than 64 characters.
// Query and form parameters are not judged this way: `?code=` in an OAuth redirect is always masked.
//
// The plural names on the lists (`tokens`, `*credentials`, `*secrets`, `*passwords`, `*api_keys`)
// hold a group of secrets whose members are named plainly (`{"tokens":{"access":"…"}}`), masked
// whole; a number under one is a count (`{"tokens":1200}`, `{"num_secrets":3}`), and kept.
import type { JsonValue } from '../vocabulary/log-record.js';

/** Words in one case; the first a word, later ones words or numbers. Each separator starts a new group: linear. */
const LOWER_WORDS = /^[a-z]+(?:[._/:-](?:[a-z]+|[0-9]+))*$/;
const UPPER_WORDS = /^[A-Z]+(?:_(?:[A-Z]+|[0-9]+))*$/;
/** Each word starts with the only capital it has: unambiguous, so linear. */
const PASCAL_WORDS = /^(?:[A-Z][a-z]+)+$/;
const SMALL_OR_NEGATIVE = /^(?:[0-9]{1,3}|-[0-9]{1,9})$/;

const MAX_CODE_CHARS = 64;

const PLURALS: readonly string[] = ['tokens', 'credentials', 'secrets', 'passwords', 'api_keys'];

/** How a member's value may be kept although its name is on a list. */
type Leniency = 'code' | 'count' | undefined;

function leniency(name: string): Leniency {
  if (name.length <= 4) {
    const lower = name.toLowerCase();
    return lower === 'code' || lower === 'key' ? 'code' : undefined;
  }
  const lower = name.toLowerCase();
  return PLURALS.some((p) => lower.endsWith(p)) ? 'count' : undefined;
}

/**
 * Whether the value `raw` (as written in a JSON document: `"invalid_grant"`, `404`) under the
 * secret-named member `name` is kept: an error code under `code` or `key`, a count under a plural.
 */
export function keepsText(name: string, raw: string): boolean {
  const how = leniency(name);
  if (how === undefined) return false;
  return how === 'code' ? isPlainCodeText(raw) : COUNT.test(raw);
}

/** keepsText for a parsed JSON value. */
export function keepsValue(name: string, v: JsonValue): boolean {
  const how = leniency(name);
  if (how === undefined) return false;
  return how === 'code' ? isPlainCodeValue(v) : typeof v === 'number';
}

const COUNT = /^-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** Whether a string is an error code's word rather than a secret. */
function isPlainWord(s: string): boolean {
  return s.length <= MAX_CODE_CHARS && (LOWER_WORDS.test(s) || UPPER_WORDS.test(s) || PASCAL_WORDS.test(s));
}

/** Whether `raw`, a JSON value as written in a document (`"invalid_grant"`, `404`), is a code to keep. */
function isPlainCodeText(raw: string): boolean {
  if (raw.length > MAX_CODE_CHARS + 2) return false;
  if (raw.charCodeAt(0) === 34 /* " */)
    // No escapes are possible in a word, so the quoted text is the string itself.
    return raw.length >= 3 && raw.charCodeAt(raw.length - 1) === 34 && isPlainWord(raw.slice(1, -1));
  return SMALL_OR_NEGATIVE.test(raw);
}

/** Whether a parsed JSON value is a code to keep. */
function isPlainCodeValue(v: JsonValue): boolean {
  if (typeof v === 'string') return isPlainWord(v);
  return typeof v === 'number' && Number.isInteger(v) && SMALL_OR_NEGATIVE.test(String(v));
}
