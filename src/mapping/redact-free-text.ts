// Absolute URLs inside free text (a console message that prints a signed download link, an error
// text, a page title, an HTML or JSON body): each is masked exactly as url.full is, by the same
// UrlRedactor, and everything around it is left as it was. Relative URLs in prose are not looked
// for: without a scheme nothing tells a path from a sentence. Pure and without imports (the
// redactor is passed in), so both the body walk and the attributes can use it.

/** What masks one URL (redact-url.ts's UrlRedactor). */
interface UrlMask {
  redact(url: string): string;
}

/** Whether c may appear in a URL scheme (RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )). */
function isSchemeChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46;
}
const isAlpha = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);

/**
 * Where a URL ends inside text: white space and control characters, quotes (an HTML attribute, a
 * JSON string), angle brackets and the backtick. None of them may appear raw in a URL (RFC 3986
 * appendix C).
 */
function isUrlEnd(c: number): boolean {
  return c <= 32 || c === 34 || c === 39 || c === 60 || c === 62 || c === 96 || c === 127;
}

/** Punctuation that ends a sentence around a URL (`(see https://…?sig=x).`) rather than the URL. */
function isTrailingPunctuation(c: number): boolean {
  return c === 46 || c === 44 || c === 58 || c === 59 || c === 33 || c === 63 || c === 41 || c === 93 || c === 125;
}

/**
 * `text` with every `scheme://…` inside it passed through `urls`; the very same string when
 * nothing changed. One native indexOf when the text holds no `://`, which is nearly always.
 * `separator` `:\/\/` finds the URLs of JSON text whose encoder escapes `/` (PHP's json_encode
 * does by default): their query parameters are masked the same way.
 */
export function redactUrlsInText(text: string, urls: UrlMask, separator = '://'): string {
  const gap = separator.length;
  const escaped = separator !== '://';
  let sep = text.indexOf(separator);
  if (sep === -1) return text;
  let out: string[] | null = null;
  let copied = 0;
  let scanned = 0;
  while (sep !== -1) {
    let start = sep;
    while (start > scanned && isSchemeChar(text.charCodeAt(start - 1))) start--;
    // A scheme starts with a letter: `1http://` is `http://` after a digit.
    while (start < sep && !isAlpha(text.charCodeAt(start))) start++;
    let end = sep + gap;
    // Only a URL with user-info or parameters (`@`, `?`, `#`, `;`) can change: most links in a
    // page or a message have none, and skip the redactor.
    let maskable = false;
    for (; end < text.length; end++) {
      const c = text.charCodeAt(end);
      if (isUrlEnd(c)) break;
      if (c === 92 /* \ */) {
        // Never raw in a URL: a JSON escape (`\"` closing a nested string) ends it, except the
        // escaped slash of the escaped form.
        if (!escaped || text.charCodeAt(end + 1) !== 47 /* / */) break;
        end++;
      } else if (c === 63 || c === 35 || c === 59 || c === 64) maskable = true;
    }
    while (end > sep + gap && isTrailingPunctuation(text.charCodeAt(end - 1))) end--;
    if (maskable && start < sep) {
      const url = text.slice(start, end);
      const masked = urls.redact(url);
      if (masked !== url) {
        (out ??= []).push(text.slice(copied, start), masked);
        copied = end;
      }
    }
    scanned = Math.max(end, sep + gap);
    sep = text.indexOf(separator, scanned);
  }
  if (out === null) return text;
  out.push(text.slice(copied));
  return out.join('');
}

/** `://` as JSON text writes it when its encoder escapes `/` (PHP's json_encode, many loggers). */
export const ESCAPED_SEPARATOR = ':\\/\\/';

/**
 * `text` with the URLs of both forms masked: as written (`https://…`) and with escaped slashes
 * (`https:\/\/…`). Either may stand in any free text: a body, a console line that printed such JSON,
 * an error text, a metadata value; and one text may hold both. A text without `://` costs one
 * search more than the plain form alone.
 */
export function redactUrlsInFreeText(text: string, urls: UrlMask): string {
  const plain = text.includes('://') ? redactUrlsInText(text, urls) : text;
  return plain.includes(ESCAPED_SEPARATOR) ? redactUrlsInText(plain, urls, ESCAPED_SEPARATOR) : plain;
}
