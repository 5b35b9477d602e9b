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
// 6749's example code), four digits or more (a numeric OTP), anything longer than 64 characters,
// and letters that have the shape of words without reading as words (readsAsWords): a word over 16
// letters, five consonants in a row (`FKXPR`, a Steam Guard code; a key of random letters), a group
// of four digits or more (`abcde-12345`). Short random letters can still pass (a fifth of 16-letter
// strings, half of 8-letter ones): no credential format we know of is letters only.
// Query and form parameters are not judged this way: `?code=` in an OAuth redirect is always masked.
//
// The plural names on the lists (`tokens`, `*credentials`, `*secrets`, `*passwords`, `*api_keys`)
// hold a group of secrets whose members are named plainly (`{"tokens":{"access":"…"}}`), masked
// whole; a number under one is a count (`{"tokens":1200}`, `{"num_secrets":3}`), and kept. But a
// value under `passwords` is as often a password that was put where a list was expected
// (`{"passwords":12345678}`, a numeric password or PIN): under the plurals other than `tokens` an
// integer of six digits or more is masked, as nobody keeps a hundred thousand secrets in one
// account. Under `tokens` every number is kept: a language model's token counts run to millions.
import type { JsonValue } from '../vocabulary/log-record.js';

/** Words in one case; the first a word, later ones words or numbers. Each separator starts a new group: linear. */
const LOWER_WORDS = /^[a-z]+(?:[._/:-](?:[a-z]+|[0-9]+))*$/;
const UPPER_WORDS = /^[A-Z]+(?:_(?:[A-Z]+|[0-9]+))*$/;
/** Each word starts with the only capital it has: unambiguous, so linear. */
const PASCAL_WORDS = /^(?:[A-Z][a-z]+)+$/;
const SMALL_OR_NEGATIVE = /^(?:[0-9]{1,3}|-[0-9]{1,9})$/;

const MAX_CODE_CHARS = 64;

const PLURALS: readonly string[] = ['tokens', 'credentials', 'secrets', 'passwords', 'api_keys'];

/**
 * How a member's value may be kept although its name is on a list: an error code, any count (under
 * `tokens`), or a count below SECRET_DIGITS digits.
 */
type Leniency = 'code' | 'count' | 'small-count' | undefined;

function leniency(name: string): Leniency {
  if (name.length <= 4) {
    const lower = name.toLowerCase();
    return lower === 'code' || lower === 'key' ? 'code' : undefined;
  }
  const lower = name.toLowerCase();
  if (lower.endsWith('tokens')) return 'count';
  return PLURALS.some((p) => lower.endsWith(p)) ? 'small-count' : undefined;
}

/** An integer this long under `passwords`, `secrets`, `credentials` or `api_keys` is taken for a secret. */
const SECRET_DIGITS = 6;
const SECRET_MAGNITUDE = 10 ** (SECRET_DIGITS - 1);

/** A number that is an integer of SECRET_DIGITS digits or more, as keepsValue sees the parsed value. */
const secretInteger = (v: number): boolean => Number.isInteger(v) && Math.abs(v) >= SECRET_MAGNITUDE;

/**
 * Whether the value `raw` (as written in a JSON document: `"invalid_grant"`, `404`) under the
 * secret-named member `name` is kept: an error code under `code` or `key`, a count under a plural.
 */
export function keepsText(name: string, raw: string): boolean {
  const how = leniency(name);
  if (how === undefined) return false;
  if (how === 'code') return isPlainCodeText(raw);
  // Read as a number, as a parser reads it: `12345678.0` and `1.2345678e7` are the same integer.
  return COUNT.test(raw) && !(how === 'small-count' && secretInteger(Number(raw)));
}

/** keepsText for a parsed JSON value. */
export function keepsValue(name: string, v: JsonValue): boolean {
  const how = leniency(name);
  if (how === undefined) return false;
  if (how === 'code') return isPlainCodeValue(v);
  if (typeof v !== 'number') return false;
  return !(how === 'small-count' && secretInteger(v));
}

const COUNT = /^-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** Whether a string is an error code's word rather than a secret. */
function isPlainWord(s: string): boolean {
  return (
    s.length <= MAX_CODE_CHARS &&
    (LOWER_WORDS.test(s) || UPPER_WORDS.test(s) || PASCAL_WORDS.test(s)) &&
    readsAsWords(s)
  );
}

/** Longer than any word codes use (`unauthenticated` is 15); a random key's letters run on. */
const MAX_WORD_CHARS = 16;
/** `abcde-12345` is a recovery code, `ERR_429` a status. */
const MAX_DIGITS = 3;
/** `strength` has four; random letters (`FKXPR`, `qwrtzp…`) seldom go 16 without five. */
const MAX_CONSONANTS = 4;

/**
 * Whether the words of a string that has their shape are pronounceable and short: random letters
 * (a Steam Guard code, a key with no digit in it) have the shape too.
 */
function readsAsWords(s: string): boolean {
  let word = 0;
  let consonants = 0;
  let digits = 0;
  let previousLower = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const upper = c >= 65 && c <= 90;
    const lower = c >= 97 && c <= 122;
    if (!upper && !lower) {
      word = consonants = 0;
      previousLower = false;
      if (c >= 48 && c <= 57 && ++digits > MAX_DIGITS) return false;
      if (c < 48 || c > 57) digits = 0;
      continue;
    }
    // A capital after a small letter starts PascalCase's next word.
    if (upper && previousLower) word = consonants = 0;
    previousLower = lower;
    digits = 0;
    if (++word > MAX_WORD_CHARS) return false;
    const l = c | 32;
    // a e i o u y
    const vowel = l === 97 || l === 101 || l === 105 || l === 111 || l === 117 || l === 121;
    consonants = vowel ? 0 : consonants + 1;
    if (consonants > MAX_CONSONANTS) return false;
  }
  return true;
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
