// JSON a page printed to the console: a debugging print of a session or a token answer
// (`console.log(JSON.stringify(session))`, or as a later argument) carries the same secret-named
// members a response body does, and gets the same masking (mask-json-text.ts, scanned as text, so
// a print the service cut at 8,192 bytes is masked too). Besides JSON, only an argument that is
// nothing but a cookie list or a form (mask-printed-pairs.ts): prose such as `key=value` inside a
// message is not read as a form, nor quoted words before a colon as members.
import type { JsonValue } from '../vocabulary/log-record.js';
import { maskJsonText } from './mask-json-text.js';
import type { NameMatcher } from './name-matcher.js';
import { setOwn } from './attributes.js';
import { maskPrintedPairs } from './mask-printed-pairs.js';

type JsonObject = { [key: string]: JsonValue };

/**
 * A printed string with the members named like a secret of the JSON in it masked, or the string
 * itself. The JSON is read from its first `{` or `[` on: the words before it (`session {…}`) are
 * not, and a message without either is prose, whose quotes (`the "code": field`) name nothing.
 */
function maskOne(value: JsonValue, names: NameMatcher): JsonValue {
  if (typeof value !== 'string') return value;
  // A JSON member is a quoted name and a colon: one native search settles most messages.
  if (!value.includes('":')) return maskPrintedPairs(value, names);
  const brace = value.indexOf('{');
  const bracket = value.indexOf('[');
  const from = brace === -1 ? bracket : bracket === -1 ? brace : Math.min(brace, bracket);
  return from === -1 ? value : (maskJsonText(value, names, from) ?? value);
}

/** A console event's `data` with its `text` and `args` masked; the same object when nothing was. */
export function maskPrintedJson(data: JsonObject, names: NameMatcher): JsonObject {
  let out: JsonObject | undefined;
  const text = data.text;
  const maskedText = text === undefined ? text : maskOne(text, names);
  if (maskedText !== text) setOwn((out ??= { ...data }), 'text', maskedText as JsonValue);
  const args = data.args;
  if (Array.isArray(args)) {
    let list: JsonValue[] | undefined;
    for (let i = 0; i < args.length; i++) {
      // A console event repeats its text as its first argument: scanned once.
      const next = args[i] === text && maskedText !== undefined ? maskedText : maskOne(args[i] as JsonValue, names);
      if (next !== args[i]) (list ??= args.slice())[i] = next;
    }
    if (list !== undefined) setOwn((out ??= { ...data }), 'args', list);
  }
  return out ?? data;
}
