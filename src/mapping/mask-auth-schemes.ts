// Credentials after an HTTP authentication scheme's name in free text (RFC 9110 §11.4,
// `credentials = auth-scheme [ 1*SP token68 ]`): `Bearer <token>` (RFC 6750) and `Basic
// <base64 of user:password>` (RFC 7617). The Authorization header itself is masked by its name;
// these are the same credentials where no name rule looks: a page that prints the header it
// builds (`console.log('Authorization: Bearer ' + token)`), an error text that quotes it, a
// text/plain body or a curl line. The scheme's name says what follows is a credential, so the
// value is masked whatever its shape, JWT or opaque; what only reads like prose is kept: a
// Bearer word of letters only shorter than 20 (`Bearer token`, `Bearer authentication`) and a
// Basic word that does not decode to printable `user:password`.
import { REDACTED } from '../config/mapping-section.js';

/** The scheme's name (any case, as HTTP reads it), white space, and a token68. */
const CREDENTIAL = /\b(bearer|basic)([ \t]+)([A-Za-z0-9._~+/-]+=*)/gi;

/** A Bearer value of letters only at least this long is a token, not a word. */
const MIN_LETTERS_TOKEN = 20;
/** Shorter values are words (`Bearer null`, `Basic auth`). */
const MIN_TOKEN = 8;
/** The shortest text that can hold one: `Basic` (the shorter name), a space and MIN_TOKEN characters. */
const MIN_TEXT = 'Basic'.length + 1 + MIN_TOKEN;

const PRINTABLE_PAIR = /^[\x20-\x7e\u00a0-\uffff]*:[\x20-\x7e\u00a0-\uffff]*$/;

function isCredential(scheme: string, value: string): boolean {
  if (value.length < MIN_TOKEN || value === REDACTED) return false;
  if (scheme.toLowerCase() === 'bearer') return value.length >= MIN_LETTERS_TOKEN || /[^A-Za-z]/.test(value);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return false;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  return !decoded.includes('\uFFFD') && PRINTABLE_PAIR.test(decoded);
}

/** `text` with the credential after each `Bearer` or `Basic` masked; the very same string when there is none. */
export function maskAuthSchemes(text: string): string {
  // Most values of an event (ids, names, short texts) are too short to hold a scheme, a blank and
  // a credential, and the longest (a screenshot's base64, a token) hold no blank: a search for the
  // blank (memchr) settles those before the four searches for the names, which over a screenshot's
  // 20-40 KB of base64 (an `a` or an `e` every 64 characters) cost the map stage ~1 µs an event.
  if (text.length < MIN_TEXT || (!text.includes(' ') && !text.includes('\t'))) return text;
  // One native search each settles nearly every other string (`Bearer`/`bearer`, `Basic`/`basic`).
  if (!text.includes('earer') && !text.includes('EARER') && !text.includes('asic') && !text.includes('ASIC'))
    return text;
  let changed = false;
  const out = text.replace(CREDENTIAL, (whole: string, scheme: string, space: string, value: string) => {
    // A full stop after the value ends the sentence (`… with Bearer abc123.`).
    const token = value.replace(/\.+$/, '');
    if (!isCredential(scheme, token)) return whole;
    changed = true;
    return scheme + space + REDACTED + value.slice(token.length);
  });
  return changed ? out : text;
}
