// Text from outside (the service's error messages, frame ids, a daemon's status) on its way to a
// person's terminal. Control characters would let that text steer the terminal: ESC starts colour,
// cursor, title and hyperlink sequences (and some terminals answer queries as if typed), CR
// overwrites what the line said. Bidi overrides reorder what is shown. None of them is printed.

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const NEWLINE = /\r?\n/g;

/** One line with every control character shown as U+FFFD, line breaks as ⏎ and tabs as a space. */
export function printable(text: string): string {
  return text.replace(NEWLINE, '⏎').replace(/\t/g, ' ').replace(CONTROL, '\ufffd');
}

// What JSON.stringify leaves raw inside a string although printable() would hide it: DEL, the C1
// controls (U+009B is CSI and U+009D OSC to a terminal reading UTF-8, as ESC [ and ESC ] are) and
// the bidi overrides. C0 controls never reach here raw: JSON writes them as escapes.
const JSON_RAW_CONTROL = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** A JSON text for a terminal: the controls JSON allows raw written as \u escapes (the same value for a parser). */
export function terminalJson(json: string): string {
  return json.replace(JSON_RAW_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Text from outside named in one line (a log line, an error in the status): quoted, printable, and
 * cut after `max` characters with the full length said, so a hostile value cannot flood the line.
 */
export function quotedExcerpt(text: string, max = 64): string {
  // Never between the halves of a pair (an emoji at the cut would leave a lone surrogate).
  const end = max > 0 && text.length > max && /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  const cut = text.length > max ? `${text.slice(0, end)}… (${text.length} characters)` : text;
  return `"${printable(cut)}"`;
}

/** Every string inside `v` through printable(): a structure from outside (a pool), before it is shown. */
export function printableDeep<T>(v: T): T {
  if (typeof v === 'string') return printable(v) as T;
  if (Array.isArray(v)) return v.map((item: unknown) => printableDeep(item)) as T;
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(Object.entries(v).map(([k, item]) => [printable(k), printableDeep(item)])) as T;
  return v;
}
