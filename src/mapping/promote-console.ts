// Promotions for console events: the level, the source location as code.*, and for uncaught
// exceptions the exception.* attributes (semantic conventions "Exceptions").
import { ATTR } from './attributes.js';
import type { AttributeValue } from './log-record.js';
import { promoteUrl } from './promote-http.js';
import { innermostFrame, renderStackTrace, type SourceLocation } from './stack-trace.js';

type Attrs = Record<string, AttributeValue>;
type Data = Record<string, unknown>;

/**
 * "Uncaught TypeError: x is not a function" → type TypeError, message "x is not a function". The
 * `Uncaught` / `Uncaught (in promise)` prefix is how browsers label exceptions nobody caught.
 */
const EXCEPTION_TEXT = /^(?:Uncaught (?:\(in promise\) )?)?([A-Za-z_$][\w$.]{0,99}): ([\s\S]*)$/;

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
 * An uncaught exception is a console_error without `level` (spec: "From console.error calls:
 * level, text, args, stack_trace. From uncaught exceptions: text, line, column, source_url,
 * stack_trace").
 */
export function isUncaughtException(data: Data): boolean {
  return data.level === undefined;
}

/** console_error: as console_log; uncaught exceptions add exception.* and prefer source_url/line/column. */
export function promoteConsoleError(data: Data, attrs: Attrs): void {
  promoteConsoleLog(data, attrs);
  if (!isUncaughtException(data)) return;
  const text = typeof data.text === 'string' ? data.text : '';
  const m = EXCEPTION_TEXT.exec(text);
  if (m !== null) {
    attrs[ATTR.exceptionType] = m[1] as string;
    attrs[ATTR.exceptionMessage] = m[2] as string;
  } else if (text !== '') {
    attrs[ATTR.exceptionMessage] = text.startsWith('Uncaught ') ? text.slice(9) : text;
  }
  const stack = renderStackTrace(text === '' ? 'Uncaught exception' : text, data.stack_trace);
  if (stack !== undefined) attrs[ATTR.exceptionStacktrace] = stack;
  // The exception's own location wins over the stack's innermost frame. The spec does not say
  // whether line/column are zero-based (call frames are); they are promoted as sent.
  if (typeof data.source_url === 'string' && data.source_url !== '') {
    attrs[ATTR.codeFilePath] = data.source_url;
    if (typeof data.line === 'number' && Number.isInteger(data.line)) attrs[ATTR.codeLine] = data.line;
    if (typeof data.column === 'number' && Number.isInteger(data.column)) attrs[ATTR.codeColumn] = data.column;
  }
}
