// Bare JWTs (`mask_jwts`): a JSON Web Token is a credential wherever it sits, and it sits in places
// no name rule sees — an id token a page prints, `{"tokens":{"access":…}}`, a password-reset link's
// path (`/reset/<jwt>`), a GraphQL variable named `input`. Its shape is its own: the compact
// serialization (RFC 7519 §3, RFC 7515 §7.1, RFC 7516 §7.1) is base64url parts joined by dots, and
// the first part is a JSON object, so it begins with `eyJ` (`{"`). Pure and without imports beyond
// the mask, so the body walk and anything else can use it.
import { REDACTED } from '../config/mapping-section.js';

/** What every JWT begins with: `{"` in base64url. */
const START = 'eyJ';
/**
 * The shortest header worth the name: `{"alg":"none"}` is 19 characters of base64url. Below this,
 * `eyJ` plus a few letters before a dot is more likely prose than a token.
 */
const MIN_HEADER = 16;

/** No JWT is shorter: a header of MIN_HEADER characters and two dots. Shorter strings are not searched. */
const MIN_JWT_CHARS = MIN_HEADER + 2;

const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/**
 * Whether a token may start at `at`: no base64url character before it (it would be the middle of
 * a longer word), unless that character ends an escape, whose letters are not the text's: a
 * percent-escape (`%2Freset%2F<jwt>`, `Bearer%20<jwt>` in a URL) or a JSON one (`line\n<jwt>`).
 */
function startsToken(text: string, at: number): boolean {
  if (at === 0 || !isB64url(text.charCodeAt(at - 1))) return true;
  if (
    at >= 3 &&
    text.charCodeAt(at - 3) === 37 /* % */ &&
    isHex(text.charCodeAt(at - 2)) &&
    isHex(text.charCodeAt(at - 1))
  )
    return true;
  return at >= 2 && text.charCodeAt(at - 2) === 92; /* \ */
}

/** `[A-Za-z0-9_-]`: the base64url alphabet (RFC 4648 §5), without padding (RFC 7515 §2). */
function isB64url(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45;
}

/**
 * `text` with every JWT (signed: three parts; encrypted: five; an unsecured one's empty signature
 * included) replaced by REDACTED; the very same string when there is none. A token starts where
 * `eyJ` follows no base64url character, has a header of at least MIN_HEADER characters, and at
 * least two dots; a dot that ends a sentence after it is kept.
 */
export function maskJwts(text: string): string {
  // Most strings are ids and names too short to hold one; for the rest one native search settles
  // nearly every string.
  if (text.length < MIN_JWT_CHARS) return text;
  let at = text.indexOf(START);
  if (at === -1) return text;
  let out: string[] | null = null;
  let copied = 0;
  while (at !== -1) {
    let end = at + START.length;
    if (!startsToken(text, at)) {
      at = text.indexOf(START, end);
      continue;
    }
    while (end < text.length && isB64url(text.charCodeAt(end))) end++;
    const headerEnd = end;
    let dots = 0;
    for (; end < text.length; end++) {
      const c = text.charCodeAt(end);
      if (c === 46 /* . */) dots++;
      else if (!isB64url(c)) break;
    }
    // A signed token has two dots, an encrypted one four: one more is a sentence's full stop.
    while (dots > 2 && text.charCodeAt(end - 1) === 46) {
      end--;
      dots--;
    }
    if (headerEnd - at >= MIN_HEADER && text.charCodeAt(headerEnd) === 46 && dots >= 2) {
      (out ??= []).push(text.slice(copied, at), REDACTED);
      copied = end;
    }
    at = text.indexOf(START, end);
  }
  if (out === null) return text;
  out.push(text.slice(copied));
  return out.join('');
}
