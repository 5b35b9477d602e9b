// Promotions for console events: the level, the source location as code.*, and for uncaught
// exceptions the exception.* attributes (semantic conventions "Exceptions").
import { ATTR } from './attributes.js';
import type { AttributeValue } from '../vocabulary/log-record.js';
import { promoteUrl } from './promote-http.js';
import { innermostFrame, renderStackTrace, type SourceLocation } from './stack-trace.js';

type Attrs = Record<string, AttributeValue>;
type Data = Record<string, unknown>;

/**
 * "Uncaught TypeError: x is not a function" → type TypeError, message "x is not a function". The
 * `Uncaught` / `Uncaught (in promise)` prefix is how browsers label exceptions nobody caught.
 */
/** exceptionDetails.text as current Chromium writes it for every uncaught exception. */
const BARE_LABELS = new Set(['Uncaught', 'Uncaught (in promise)']);

const EXCEPTION_TEXT = /^(?:Uncaught (?:\(in promise\) )?)?([A-Za-z_$][\w$.]{0,99}): ([\s\S]*)$/;
// `throw new Error()` escapes as "Uncaught Error": a type with no message. Only names that read as
// an error class count; "Uncaught oops" is a thrown string, whose text is its message.
const EXCEPTION_TYPE_ONLY = /^Uncaught (?:\(in promise\) )?((?:[A-Z][\w$]{0,99})?(?:Error|Exception))$/;

function addLocation(attrs: Attrs, loc: SourceLocation | undefined): void {
  if (loc === undefined) return;
  if (loc.functionName !== undefined) attrs[ATTR.codeFunction] = loc.functionName;
  if (loc.url !== undefined) attrs[ATTR.codeFilePath] = loc.url;
  if (loc.line !== undefined) attrs[ATTR.codeLine] = loc.line;
  if (loc.column !== undefined) attrs[ATTR.codeColumn] = loc.column;
}

/** console_log: page URL, level, and where the console call was made. */
export function promoteConsoleLog(data: Data, attrs: Attrs): void {
  promoteUrl(data, attrs);
  if (typeof data.level === 'string' && data.level !== '') attrs[ATTR.consoleLevel] = data.level;
  addLocation(attrs, innermostFrame(data.stack_trace));
}

/**
 * An uncaught exception (Runtime.exceptionThrown) is the console_error that carries `line`,
 * `column` or `source_url`: the service sets all three for exceptions only, and `level` ("error")
 * for console.error calls only. A missing `level` is no sign of an exception: a truncated or older
 * event can lack it too.
 */
export function isUncaughtException(data: Data): boolean {
  return typeof data.line === 'number' || typeof data.column === 'number' || typeof data.source_url === 'string';
}

/** CDP's zero-based line or column number as OpenTelemetry's one-based one. */
const oneBased = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v + 1 : undefined;

/** console_error: as console_log; uncaught exceptions add exception.* and prefer source_url/line/column. */
export function promoteConsoleError(data: Data, attrs: Attrs): void {
  promoteConsoleLog(data, attrs);
  if (!isUncaughtException(data)) return;
  const text = typeof data.text === 'string' ? data.text : '';
  const m = EXCEPTION_TEXT.exec(text) ?? EXCEPTION_TYPE_ONLY.exec(text);
  if (m !== null) {
    attrs[ATTR.exceptionType] = m[1] as string;
    if (m[2] !== undefined) attrs[ATTR.exceptionMessage] = m[2];
  } else if (text !== '') {
    // Chromium's own text is the label alone (`Uncaught`, `Uncaught (in promise)`): the error's
    // type and message are in exceptionDetails.exception, which the service does not copy. Cut,
    // `(in promise)` would read as the message; whole, the label says at least how it escaped.
    attrs[ATTR.exceptionMessage] = text.startsWith('Uncaught ') && !BARE_LABELS.has(text) ? text.slice(9) : text;
  }
  const stack = renderStackTrace(text === '' ? 'Uncaught exception' : text, data.stack_trace);
  if (stack !== undefined) attrs[ATTR.exceptionStacktrace] = stack;
  // The exception's own location wins over the stack's innermost frame. `line`/`column` are
  // exceptionDetails.lineNumber/columnNumber, zero-based like every CDP position.
  if (typeof data.source_url === 'string' && data.source_url !== '') {
    attrs[ATTR.codeFilePath] = data.source_url;
    const line = oneBased(data.line);
    const column = oneBased(data.column);
    if (line !== undefined) attrs[ATTR.codeLine] = line;
    else delete attrs[ATTR.codeLine];
    if (column !== undefined) attrs[ATTR.codeColumn] = column;
    else delete attrs[ATTR.codeColumn];
  }
}
