// Credentials an agent writes into the code it submits (`api_call.code`): `page.fill('#password',
// 'hunter2')`, `page.type('input[name=otp]', '123456')`, `await page.locator('#api-key').fill("…")`,
// Selenium's `find_element(By.ID, "password").send_keys("…")`, a script's
// `document.querySelector('#password').value = '…'`. When `drop_api_call_code` is off the
// code is kept for what it shows of the agent's steps; the string literal typed into a field named
// like a secret is masked (its quotes kept), and the rest stays byte for byte.
//
// A call that types is one of the methods below. Its value is its second argument when that is a
// string literal (`page.fill(selector, value)`), else its first when the second is absent or an
// options object (`locator.fill(value, { timeout })`); Python's keyword arguments
// (`fill(selector="#pw", value="…")`, `fill(value="…", timeout=500)`) are read as the same places.
// The field is named by the first argument in the two-argument form and by the statement before
// the call (`page.locator('#api-key')`, a `getByLabel('Password')` on the line before a `.fill(`
// that continues it): the words in it (`api-key`, `api`, `key`, `Password`; camelCase and `-`/`_`
// split too) are matched against the body lists, as a form field's name is, and so are the short
// words the lists leave out (`#pin`, `#login-pw`: name-matcher.ts). A call on a variable bound to a
// secret-named field (`const pw = page.locator('#password'); await pw.fill('…')`) types into that
// field. A value that is not a literal (`process.env.PW`) is no secret of the code's; keystrokes
// without a field (`page.keyboard.type('…')` after a click on the password field) name none, and
// are kept.
import { REDACTED } from '../config/mapping-section.js';
import { hasSecretFieldWord, type NameMatcher } from './name-matcher.js';
import { SERVICE_CUT } from './body-secrets.js';

// `.value = '…'` is a field set from a script (`page.evaluate`, `$eval`): its literal is read as a
// call's only argument is.
const CALL =
  /\.(?:(?:fill|type|pressSequentially|press_sequentially|send_keys|sendKeys|setValue|set_value|insertText|insert_text)\s*\(|value\s*=(?!=))/g;

/** How far back the statement before a call is read for the field's name. */
const MAX_LOOKBACK = 300;
/** How far an argument that is no literal is skipped to find the next one. */
const MAX_ARGUMENT = 300;

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9;

/**
 * Where the string literal opened at `open` (`'`, `"` or a backtick) ends: past its closing quote,
 * or -1 when the text (or `limit`) ends first.
 */
function literalEnd(code: string, open: number, limit = code.length): number {
  const q = code.charCodeAt(open);
  for (let i = open + 1; i < limit; i++) {
    const c = code.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === q) return i + 1;
  }
  return -1;
}

const isQuote = (c: number): boolean => c === 39 || c === 34 || c === 96;

interface Argument {
  start: number;
  /** Past its end; the text's end when the code is cut inside it. */
  end: number;
  literal: boolean;
  closed: boolean;
  /** Python's keyword (`value` of `value="…"`), the argument being what follows its `=`. */
  keyword: string | undefined;
}

/** A Python keyword argument's `name=` (not `==`, nor an arrow's `=>`). */
const KEYWORD = /([A-Za-z_][A-Za-z0-9_]*)\s*=(?![=>])\s*/y;

/** The argument at `i` (past white space): a literal, or anything up to the next `,` or `)` at its own depth. */
function readArgument(code: string, i: number): Argument | undefined {
  while (i < code.length && isSpace(code.charCodeAt(i))) i++;
  if (i >= code.length) return undefined;
  KEYWORD.lastIndex = i;
  const keyword = KEYWORD.exec(code)?.[1];
  if (keyword !== undefined) {
    i = KEYWORD.lastIndex;
    if (i >= code.length) return undefined;
  }
  const c = code.charCodeAt(i);
  if (c === 41 /* ) */) return undefined;
  if (isQuote(c)) {
    const end = literalEnd(code, i);
    return end === -1
      ? { start: i, end: code.length, literal: true, closed: false, keyword }
      : { start: i, end, literal: true, closed: true, keyword };
  }
  let depth = 0;
  const limit = Math.min(code.length, i + MAX_ARGUMENT);
  let k = i;
  for (; k < limit; k++) {
    const d = code.charCodeAt(k);
    if (isQuote(d)) {
      // Bounded as the argument is: from every call of a long text, an escaped quote (`\'`) read
      // as an opening one would otherwise be searched to the text's end.
      const end = literalEnd(code, k, limit);
      if (end === -1) return { start: i, end: limit, literal: false, closed: false, keyword };
      k = end - 1;
    } else if (d === 40 || d === 91 || d === 123) depth++;
    else if (d === 41 || d === 93 || d === 125) {
      if (depth === 0) break;
      depth--;
    } else if (d === 44 /* , */ && depth === 0) break;
  }
  return { start: i, end: k, literal: false, closed: k < code.length, keyword };
}

/** Past the `,` after an argument ending at `end`, or -1 when the call's list ends there. */
function nextArgument(code: string, end: number): number {
  let i = end;
  while (i < code.length && isSpace(code.charCodeAt(i))) i++;
  return code.charCodeAt(i) === 44 ? i + 1 : -1;
}

/**
 * Where the statement holding the call at `at` starts: after a `;`, or a line break whose next line
 * does not continue a chain (`.fill(` on its own line), at most MAX_LOOKBACK characters back and
 * not before `previous`, the call before this one.
 */
function statementStart(code: string, at: number, previous: number): number {
  // Each part of the code is read for names by one call only: read 300 characters back from every
  // call, 8 KB of short calls was read 40 times over (60 ms). A name before an earlier typing call
  // of the same statement (`locator('#pw').fill('').type('x')`) is lost to the later one.
  const floor = Math.max(0, previous, at - MAX_LOOKBACK);
  for (let i = at - 1; i >= floor; i--) {
    const c = code.charCodeAt(i);
    if (c === 59 /* ; */) return i + 1;
    if (c === 10) {
      let j = i + 1;
      while (j < at && isSpace(code.charCodeAt(j))) j++;
      if (code.charCodeAt(j) !== 46 /* . */) return i + 1;
    }
  }
  return floor;
}

/** Whether `text` (a selector, a locator chain) holds a word named like a secret. */
function namesSecret(text: string, names: NameMatcher): boolean {
  // `#pin`, `#login-pw`: short words the lists leave out of names (name-matcher.ts).
  if (hasSecretFieldWord(text)) return true;
  for (const compound of text.match(/[A-Za-z0-9_-]+/g) ?? []) {
    if (names.matches(compound)) return true;
    for (const word of compound.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[\s_-]+/))
      if (word !== '' && names.matches(word)) return true;
  }
  return false;
}

/**
 * A binding's name and `=`: JavaScript's `const`/`let`/`var` or none, Python's, or a member's as a
 * page object sets it (`this.box = page.locator(…)`, `self.box =`), known by its last name.
 */
const BINDING = /(?<![\w$])([A-Za-z_$][\w$]*)\s*=(?![=>])/g;
const IDENTIFIER = /[A-Za-z_$][\w$]*/g;

/**
 * The variables the code binds to something named like a secret (`const pw = page.locator('#password')`,
 * Python's `box = page.locator("#password")`): a call on one types into that field. Each value is
 * read to its statement's end (a `;`, a line break that no `.` line continues, at most
 * MAX_LOOKBACK characters) and the search goes on from there, so each part of the code is read once.
 */
function secretBindings(code: string, names: NameMatcher): Set<string> {
  const found = new Set<string>();
  BINDING.lastIndex = 0;
  for (let m = BINDING.exec(code); m !== null; m = BINDING.exec(code)) {
    const start = BINDING.lastIndex;
    const limit = Math.min(code.length, start + MAX_LOOKBACK);
    let end = start;
    for (; end < limit; end++) {
      const c = code.charCodeAt(end);
      if (c === 59 /* ; */) break;
      if (c === 10) {
        let j = end + 1;
        while (j < limit && isSpace(code.charCodeAt(j))) j++;
        if (code.charCodeAt(j) !== 46 /* . */) break;
      }
    }
    // A locator is made by a call; a value without one (`n = 3`, `a = b`) is not looked at.
    const value = code.slice(start, end);
    if (value.includes('(') && namesSecret(value, names)) found.add(m[1]!);
    BINDING.lastIndex = Math.max(end, start);
  }
  return found;
}

/** Whether the statement `field` uses one of the variables in `bindings`. */
function usesBinding(field: string, bindings: Set<string>): boolean {
  if (bindings.size === 0) return false;
  for (const name of field.match(IDENTIFIER) ?? []) if (bindings.has(name)) return true;
  return false;
}

/**
 * `code` with the literal typed into every secret-named field masked; null when nothing was. Code the
 * service cut keeps its `...[truncated]` outside of a literal the cut ends inside.
 */
export function maskAgentCode(text: string, names: NameMatcher): string | null {
  const cut = text.endsWith(SERVICE_CUT);
  const masked = maskCode(cut ? text.slice(0, -SERVICE_CUT.length) : text, names);
  return masked === null || !cut ? masked : masked + SERVICE_CUT;
}

function maskCode(code: string, names: NameMatcher): string | null {
  let out: string[] | null = null;
  let copied = 0;
  CALL.lastIndex = 0;
  let previous = 0;
  let bindings: Set<string> | undefined;
  for (let m = CALL.exec(code); m !== null; previous = m.index, m = CALL.exec(code)) {
    const first = readArgument(code, CALL.lastIndex);
    if (first === undefined) continue;
    const after = first.closed ? nextArgument(code, first.end) : -1;
    const second = after === -1 ? undefined : readArgument(code, after);
    let value: Argument | undefined;
    let field = code.slice(statementStart(code, m.index, previous), m.index);
    if (second?.literal === true) {
      value = second;
      field += code.slice(first.start, first.end);
    } else if (
      first.literal &&
      first.keyword !== 'selector' &&
      // Options after the value: `{ timeout }`, or Python's `timeout=500`.
      (second === undefined || code.charCodeAt(second.start) === 123 /* { */ || second.keyword !== undefined)
    )
      value = first;
    if (value === undefined || value.start < copied) continue;
    // The bindings are searched once, and only for code that types into a field it does not name.
    if (!namesSecret(field, names) && !usesBinding(field, (bindings ??= secretBindings(code, names)))) continue;
    const inner = code.slice(value.start + 1, value.closed ? value.end - 1 : value.end);
    if (inner === '' || inner === REDACTED) continue;
    const quote = code[value.start]!;
    (out ??= []).push(code.slice(copied, value.start), quote + REDACTED + (value.closed ? quote : ''));
    copied = value.end;
    CALL.lastIndex = Math.max(CALL.lastIndex, value.end);
  }
  if (out === null) return null;
  out.push(code.slice(copied));
  return out.join('');
}
