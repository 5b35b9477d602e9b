// What node:http refuses in a header field value (ERR_INVALID_CHAR), named for a person. A request
// carrying such a value fails before it leaves, every time, and reads like an unreachable peer; the
// usual cause is a secret pasted or mounted with its line end (a Kubernetes Secret made from a file
// that ends in a newline, `%0D%0A` in OTEL_EXPORTER_OTLP_HEADERS).

/** Controls other than tab (CR, LF, NUL, …) and anything past U+00FF. */
const BAD_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

/** Undefined when node:http sends `value` as a header value; else what is wrong with it, without quoting it (it is usually a credential). */
export function headerValueProblem(value: string): string | undefined {
  const bad = BAD_VALUE_CHAR.exec(value);
  if (!bad) return undefined;
  const code = bad[0].charCodeAt(0);
  const what =
    code === 13 || code === 10
      ? 'a line break (CR or LF)'
      : code < 32 || code === 127
        ? `a control character (U+${code.toString(16).toUpperCase().padStart(4, '0')})`
        : 'a character beyond U+00FF';
  return `contains ${what}, which no HTTP header may carry`;
}
