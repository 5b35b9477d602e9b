// The private members of a JSON Web Key (RFC 7517 §4, RFC 7518 §6): an RSA key's `d`, `p`, `q`,
// `dp`, `dq`, `qi` and `oth`, an elliptic-curve or OKP key's `d` (RFC 8037 §2), a symmetric (`oct`)
// key's `k`. A key a page exports (`crypto.subtle.exportKey('jwk', …)`) or an identity provider's
// key set (`{"keys":[{"kty":"RSA",…,"d":"…"}]}`) carries them under one- and two-letter names
// that the secret lists cannot hold: a `d` or a `q` elsewhere is a date or a search. So they are
// masked only inside an object that has a `kty` member, which every JWK has (§4.1); the public
// members (`n`, `e`, `x`, `y`, `kid`) stay. WebCrypto writes the members in alphabetical order, `d`
// before `kty`, so an object is settled when it closes (or the text ends: a body the service cut
// still masks what it holds).
import { REDACTED } from '../config/mapping-section.js';
import { memberName, skipSpaces, stringEnd, valueEnd } from './json-extent.js';

const PRIVATE: ReadonlySet<string> = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']);

const MASKED = `"${REDACTED}"`;

/** Whether `name` is a private member of a JWK (masked in an object that has `kty`). */
export const isPrivateJwkMember = (name: string): boolean => PRIVATE.has(name);

interface Frame {
  object: boolean;
  jwk: boolean;
  /** Start and end of each private member's value, in pairs. */
  values: number[];
}

/**
 * JSON text from `from` on (complete or cut short) with the private members of every object that
 * has a `kty` masked; null when there were none. One pass: a private member's value is skipped
 * whole, everything else is read once.
 */
export function maskJwkMembers(text: string, from: number): string | null {
  const n = text.length;
  const stack: Frame[] = [];
  const ranges: number[] = [];
  const settle = (frame: Frame): void => {
    // One by one: an object of 100,000 members spread as arguments overflows the stack.
    if (frame.jwk) for (const v of frame.values) ranges.push(v);
  };
  for (let i = from; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 123 /* { */ || c === 91 /* [ */) stack.push({ object: c === 123, jwk: false, values: [] });
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      const frame = stack.pop();
      if (frame !== undefined) settle(frame);
    } else if (c === 34 /* " */) {
      const close = stringEnd(text, i);
      if (close === -1) break;
      const top = stack[stack.length - 1];
      const colon = skipSpaces(text, close + 1);
      if (top?.object !== true || text.charCodeAt(colon) !== 58 /* : */) {
        i = close;
        continue;
      }
      // Decoded as mask-json-text.ts decodes names: `"\\u0064"` is a `d` to whoever parses the body.
      const name = memberName(text, i, close);
      if (name === 'kty') top.jwk = true;
      if (!PRIVATE.has(name)) {
        i = colon;
        continue;
      }
      const v = skipSpaces(text, colon + 1);
      if (v >= n) break;
      const end = valueEnd(text, v);
      const value = text.slice(v, end);
      if (value !== 'null' && value !== MASKED) top.values.push(v, end);
      i = end - 1;
    }
  }
  for (const frame of stack) settle(frame);
  if (ranges.length === 0) return null;
  const order = Array.from({ length: ranges.length / 2 }, (_, k) => k).sort((a, b) => ranges[2 * a]! - ranges[2 * b]!);
  const out: string[] = [];
  let copied = 0;
  for (const k of order) {
    out.push(text.slice(copied, ranges[2 * k]), MASKED);
    copied = ranges[2 * k + 1]!;
  }
  out.push(text.slice(copied));
  return out.join('');
}
