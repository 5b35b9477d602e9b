// Secrets written inline in a GraphQL document: `login(user: "alice", password: "…")`, as clients
// that build the query text themselves send it, instead of passing the value in `variables`. An
// argument (or input object field) whose name is named like a secret has its string value replaced
// by REDACTED, the quotes and the rest of the document kept (GraphQL spec §2.6 Arguments, §2.9.4
// String Value). Values of other kinds (numbers, enums, variables) are no credential's shape.
import { REDACTED } from '../config/mapping-section.js';
import type { NameMatcher } from './name-matcher.js';

/**
 * `name: "string"` or `name: """block"""`: a name (§2.1.9), the colon, a block string (§2.9.4, its
 * only escape `\"""`) or a quoted string with its escapes. Block strings come first: read as a
 * quoted string, `"""x"""` was an empty string followed by the secret. The lookbehind starts a
 * name only where one can start: without it a long run of name characters before `":` was tried
 * from each of its positions, quadratic (60,000 of them froze the loop for 6 s). A string the
 * text ends inside (a body the service cut) is masked to the end.
 */
const ARGUMENT =
  /(?<![_0-9A-Za-z])([_A-Za-z][_0-9A-Za-z]*)(\s*:\s*)(?:"""((?:\\"""|[^"\\]|\\(?!""")|"(?!""))*)(?:"""|$)|"((?:[^"\\\n]|\\.)*)(?:"|$))/g;

/**
 * Whether `text` reads as an executable GraphQL document (§2.2): past ignored tokens (white space,
 * commas, `#` comments) a selection set or an operation or fragment keyword. A `query` member or
 * parameter of a search API holds prose (`author: "bob" secret: "plans"`), no arguments.
 */
function isDocument(text: string): boolean {
  let i = 0;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 35 /* # */) {
      while (i < text.length && text.charCodeAt(i) !== 10 && text.charCodeAt(i) !== 13) i++;
    } else if (c === 32 || c === 9 || c === 10 || c === 13 || c === 44 /* , */ || c === 0xfeff) i++;
    else break;
  }
  return text.charCodeAt(i) === 123 /* { */ || OPERATION.test(text.slice(i, i + 13));
}

const OPERATION = /^(?:query|mutation|subscription|fragment)(?![_0-9A-Za-z])/;

/** The GraphQL document with the string arguments named like a secret masked; null when none is. */
export function maskGraphqlArguments(document: string, names: NameMatcher): string | null {
  // Every argument has a colon and a quoted value: most strings have neither.
  if (!document.includes(':') || !document.includes('"') || !isDocument(document)) return null;
  let changed = false;
  const out = document.replace(
    ARGUMENT,
    (whole, name: string, colon: string, block: string | undefined, value: string | undefined) => {
      if ((block ?? value) === REDACTED || !names.matches(name)) return whole;
      changed = true;
      return `${name}${colon}"${REDACTED}"`;
    },
  );
  return changed ? out : null;
}
