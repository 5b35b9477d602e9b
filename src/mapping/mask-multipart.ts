// Secret-named parts of a multipart/form-data body (RFC 7578), masked in place. CDP's postData
// carries such a body as text (a login form posted with `FormData`, an upload with an API key
// beside the file), and nothing in the event says it is multipart but its first line: the
// boundary delimiter, `--` and the boundary. Each part's `Content-Disposition: form-data;
// name="…"` names it; a part named like a secret has its content replaced by `REDACTED`, any
// other part's content goes through `inner` (a JSON or form value inside a part). A body the
// service cut short ends inside a part, whose content then runs to the end of the text.
import { matchesFieldName, type NameMatcher } from './name-matcher.js';
import { REDACTED } from '../config/mapping-section.js';

/** RFC 2046 §5.1.1: a boundary is 1 to 70 characters; with its leading `--`, up to 72. */
const MAX_DELIMITER = 72;

/** `name="…"` (or unquoted) in a part's headers; `filename=` is not it (the `\b`). */
const PART_NAME = /\bname\s*=\s*(?:"([^"]*)"|([^\s;]+))/i;

/** Whether `text` starts like a multipart body: `--boundary` and a line end. */
export function looksLikeMultipart(text: string): boolean {
  if (text.charCodeAt(0) !== 45 || text.charCodeAt(1) !== 45) return false;
  const eol = text.indexOf('\n');
  return eol > 2 && eol <= MAX_DELIMITER + 1;
}

/**
 * The multipart body `text` with the content of secret-named parts masked and other parts'
 * content passed through `inner`; null when nothing changed or `text` is not multipart.
 */
export function maskMultipart(
  text: string,
  names: NameMatcher,
  inner: (content: string) => string | null,
): string | null {
  if (!looksLikeMultipart(text)) return null;
  const eol = text.indexOf('\n');
  const delimiter = text.slice(0, text.charCodeAt(eol - 1) === 13 ? eol - 1 : eol);
  // Parts are separated by CRLF (or a bare LF from a lax producer) + delimiter; the line break
  // before the delimiter belongs to it, not to the part's content.
  const separator = '\n' + delimiter;
  const n = text.length;
  let out: string[] | null = null;
  let copied = 0;
  let pos = eol + 1;
  while (pos < n) {
    const next = text.indexOf(separator, pos);
    const partEnd = next === -1 ? n : next;
    let blank = text.indexOf('\r\n\r\n', pos);
    let blankLen = 4;
    if (blank === -1 || blank > partEnd) {
      blank = text.indexOf('\n\n', pos);
      blankLen = 2;
    }
    if (blank !== -1 && blank <= partEnd) {
      const start = blank + blankLen;
      let end = partEnd;
      if (next !== -1 && end > start && text.charCodeAt(end - 1) === 13) end--;
      if (start < end) {
        const m = PART_NAME.exec(text.slice(pos, blank));
        const name = m === null ? undefined : (m[1] ?? m[2]);
        const content = text.slice(start, end);
        const masked =
          name !== undefined && matchesFieldName(names, name)
            ? content === REDACTED
              ? null
              : REDACTED
            : inner(content);
        if (masked !== null) {
          (out ??= []).push(text.slice(copied, start), masked);
          copied = end;
        }
      }
    }
    if (next === -1) break;
    const after = next + separator.length;
    // `--` after the delimiter closes the body.
    if (text.startsWith('--', after)) break;
    const lineEnd = text.indexOf('\n', after);
    if (lineEnd === -1) break;
    pos = lineEnd + 1;
  }
  if (out === null) return null;
  out.push(text.slice(copied));
  return out.join('');
}
