// A cookie list or a urlencoded form a page printed as a whole console argument:
// `console.log(document.cookie)` prints what the Cookie header carries, which the header rule masks
// whole, and `console.log(params.toString())` a form whose secret-named fields a request body would
// have masked. Only a string that is nothing but such pairs is read, so prose with an `=` in it
// (`set x = 5; y = 6`) stays as printed:
//   - a cookie list (RFC 6265 §4.2.1: `name=value` pairs joined by `; `, two at least, no white
//     space in a value) has every value masked, as the Cookie header has;
//   - a single pair or an `&`-joined form (an `=` and no white space) has the values of its
//     secret-named fields masked, as a form body has.
import { REDACTED } from '../config/mapping-section.js';
import type { NameMatcher } from './name-matcher.js';
import { redactParams } from './redact-url.js';

/** RFC 9110's token characters: a cookie's name. */
const NAME = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** Two or more `name=value` pairs joined by `;` and optional white space, nothing else. */
const COOKIE_LIST = new RegExp(`^${NAME}=[^;\\s]*(?:;[ \\t]*${NAME}=[^;\\s]*)+;?$`);
const COOKIE_PAIR = new RegExp(`(${NAME})=([^;\\s]*)`, 'g');

/** `text` with its pairs masked when it is a cookie list or a form; the same string otherwise. */
export function maskPrintedPairs(text: string, names: NameMatcher): string {
  if (!text.includes('=') || text.length > 64 * 1024) return text;
  if (COOKIE_LIST.test(text)) {
    const out = text.replace(COOKIE_PAIR, (whole: string, name: string, value: string) =>
      value === '' || value === REDACTED ? whole : `${name}=${REDACTED}`,
    );
    return out === text ? text : out;
  }
  if (/[\s<>"]/.test(text)) return text;
  return redactParams(text, names) ?? text;
}
