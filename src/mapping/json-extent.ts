// Where a JSON string or value ends, and what a member name reads as, in JSON text that may be
// cut short (the service cuts captured strings at 8,192 bytes): what the text maskers
// (mask-json-text.ts, mask-jwk.ts, mask-inline-state.ts) skip, name or replace. Each looks at each
// character once; a string's end is found by native search for the next `"`, and only the backslashes right before it are counted.

/** JSON's whitespace: space, line feed, carriage return, tab. */
export const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;

/** The first index at or after `i` that is not whitespace (the text's length when none is). */
export function skipSpaces(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * The index of the quote closing the string opened at `open`, or -1 when the text ends first: `"`
 * for JSON, `'` for a JavaScript literal (mask-inline-state.ts).
 */
export function stringEnd(text: string, open: number, quote: '"' | "'" = '"'): number {
  let q = text.indexOf(quote, open + 1);
  while (q !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(q - 1 - backslashes) === 92 /* \ */) backslashes++;
    if (backslashes % 2 === 0) return q;
    q = text.indexOf(quote, q + 1);
  }
  return -1;
}

/** The member name of the string between `open` and `close`, its escapes decoded when it has any. */
export function memberName(text: string, open: number, close: number): string {
  const raw = text.slice(open + 1, close);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(open, close + 1)) as string;
  } catch {
    return raw;
  }
}

/** The end (exclusive) of the value starting at `v`: past its closing quote or bracket, or the text's end when cut. */
export function valueEnd(text: string, v: number): number {
  const n = text.length;
  const c = text.charCodeAt(v);
  if (c === 34 /* " */) {
    const q = stringEnd(text, v);
    return q === -1 ? n : q + 1;
  }
  if (c === 123 /* { */ || c === 91 /* [ */) {
    let depth = 0;
    for (let i = v; i < n; i++) {
      const k = text.charCodeAt(i);
      if (k === 34) {
        const q = stringEnd(text, i);
        if (q === -1) return n;
        i = q;
      } else if (k === 123 || k === 91) depth++;
      else if (k === 125 /* } */ || k === 93 /* ] */) {
        if (--depth === 0) return i + 1;
      }
    }
    return n;
  }
  // A number or a literal (or whatever a broken document has there): up to the next delimiter.
  let i = v;
  while (i < n) {
    const k = text.charCodeAt(i);
    if (k === 44 /* , */ || k === 125 || k === 93 || isSpace(k)) break;
    i++;
  }
  return i;
}
