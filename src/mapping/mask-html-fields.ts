// Secrets an HTML page carries in its markup: the anti-forgery token of a form
// (`<input type="hidden" name="csrf_token" value="…">`, Rails' `authenticity_token`, ASP.NET's
// `__RequestVerificationToken`, Django's `csrfmiddlewaretoken`), the same token in a meta tag for
// scripts (`<meta name="csrf-token" content="…">`), a password field a page filled in, a key a
// settings page shows in a `<textarea>`. The value (`input`), text (`textarea`) or content (`meta`)
// of an element named like a secret by the body lists, or of a `type=password` input (or one whose
// id is named like a secret, or that a short word of its name or id such as `pin` or `pw` names, or
// whose `autocomplete` says it holds a password, a one-time code or card data), is masked, as are
// the options of a secret select, the secret-named members of the JSON a page embeds in a
// `<script type="application/json">` and of the state it renders into an inline script
// (mask-inline-state.ts); the rest of the page stays byte for byte.
//
// Attributes are read as HTML reads them: in any order, quoted with `"` or `'` or unquoted, names in
// any case, character references in the values that name a field decoded (`pass&#119;ord`). A tag the cut ends inside is read to the end, so a value cut short is masked too. One
// pass: the search for the next tag starts where the last one ended, and each tag is read once up
// to its `>`, so a page of unclosed tags or quotes costs its length, not its square.
import { REDACTED } from '../config/mapping-section.js';
import { maskJsonText } from './mask-json-text.js';
import { maskInlineState } from './mask-inline-state.js';
import { hasSecretFieldWord, matchesFieldName, type NameMatcher } from './name-matcher.js';

/** The start of a tag read here; the name must end there (not `<inputs`, `<metadata`). */
const TAG = /<(input|meta|textarea|script|select)(?=[\s/>])/gi;
/** Where a textarea's text, a JSON script's and a select's end. */
const TEXTAREA_END = /<\/textarea/gi;
const SCRIPT_END = /<\/script/gi;
const SELECT_END = /<\/select/gi;
/** An option of a secret select; only searched between the select's start and end. */
const OPTION = /<option(?=[\s/>])/gi;

/**
 * The autofill field names (HTML's `autocomplete` attribute, WHATWG "Autofill") of credentials
 * and card data: a field says what it holds even when its name says nothing (`name="f3"`).
 */
const SECRET_AUTOFILL: ReadonlySet<string> = new Set([
  'current-password',
  'new-password',
  'one-time-code',
  'cc-number',
  'cc-csc',
]);

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9 || c === 12;

interface Attribute {
  name: string;
  /** The value's first and past-last index in the text; start -1 when the attribute has none. */
  start: number;
  end: number;
}

/** The attributes of the tag whose name ends at `i`, and the index past its `>` (the text's end when cut). */
function readTag(text: string, i: number): { attributes: Attribute[]; end: number } {
  const n = text.length;
  const attributes: Attribute[] = [];
  for (;;) {
    while (i < n && (isSpace(text.charCodeAt(i)) || text.charCodeAt(i) === 47) /* / */) i++;
    if (i >= n) return { attributes, end: n };
    if (text.charCodeAt(i) === 62 /* > */) return { attributes, end: i + 1 };
    const nameStart = i;
    // A name may begin with `=` (HTML's rule); it ends at white space, `/`, `>` or `=`.
    i++;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (isSpace(c) || c === 47 || c === 62 || c === 61 /* = */) break;
    }
    const name = text.slice(nameStart, i).toLowerCase();
    let j = i;
    while (j < n && isSpace(text.charCodeAt(j))) j++;
    if (text.charCodeAt(j) !== 61) {
      attributes.push({ name, start: -1, end: -1 });
      continue;
    }
    j++;
    while (j < n && isSpace(text.charCodeAt(j))) j++;
    const q = text.charCodeAt(j);
    if (q === 34 /* " */ || q === 39 /* ' */) {
      const close = text.indexOf(q === 34 ? '"' : "'", j + 1);
      const end = close === -1 ? n : close;
      attributes.push({ name, start: j + 1, end });
      i = close === -1 ? n : close + 1;
    } else {
      let k = j;
      while (k < n && !isSpace(text.charCodeAt(k)) && text.charCodeAt(k) !== 62) k++;
      attributes.push({ name, start: j, end: k });
      i = k;
    }
  }
}

/** Character references in an attribute value: numeric ones, and the named ones of ASCII punctuation a name holds. */
const CHAR_REF =
  /&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(amp|quot|apos|lt|gt|lowbar|UnderBar|period|colon|lsqb|rsqb));?/g;
const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  quot: '"',
  apos: "'",
  lt: '<',
  gt: '>',
  lowbar: '_',
  UnderBar: '_',
  period: '.',
  colon: ':',
  lsqb: '[',
  rsqb: ']',
};

/** An attribute value as the browser reads it: `name="pass&#119;ord"` names a password field. */
function decodeCharRefs(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(CHAR_REF, (ref, hex?: string, dec?: string, named?: string) => {
    if (named !== undefined) return NAMED[named] ?? ref;
    const code = hex !== undefined ? parseInt(hex, 16) : Number(dec);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
  });
}

const valueOf = (text: string, attributes: Attribute[], name: string): string | undefined => {
  const a = attributes.find((x) => x.name === name && x.start !== -1);
  return a === undefined ? undefined : decodeCharRefs(text.slice(a.start, a.end));
};

const namedLikeSecret = (name: string | undefined, names: NameMatcher): boolean =>
  name !== undefined && name !== '' && matchesFieldName(names, name);

/** A form control named like a secret by the lists, or by a word of its name or id (`#login-pw`, `user_pin`). */
const fieldNamedLikeSecret = (name: string | undefined, names: NameMatcher): boolean =>
  name !== undefined && name !== '' && (matchesFieldName(names, name) || hasSecretFieldWord(name));

/** Whether an `autocomplete` value (tokens: a section, shipping/billing, the field name) names a credential. */
function autofillsSecret(value: string | undefined): boolean {
  if (value === undefined || value.length > 200) return false;
  for (const token of value.toLowerCase().split(/[\s]+/)) if (SECRET_AUTOFILL.has(token)) return true;
  return false;
}

/**
 * The JSON a page embeds for its scripts (`<script type="application/json">`: Next.js's
 * `__NEXT_DATA__`, which carries NextAuth's `csrfToken`; state a server renders for the client),
 * masked as a JSON body is; null when it is no JSON or nothing was masked. JavaScript is not read.
 */
function maskEmbeddedJson(text: string, start: number, stop: number, names: NameMatcher): string | null {
  let i = start;
  while (i < stop && isSpace(text.charCodeAt(i))) i++;
  const c = text.charCodeAt(i);
  if (c !== 123 /* { */ && c !== 91 /* [ */) return null;
  return maskJsonText(text.slice(start, stop), names, i - start);
}

/**
 * `text` (an HTML page or part of one) with the value of every secret-named `input` and the content
 * of every secret-named `meta` masked; null when nothing was.
 */
export function maskHtmlFields(text: string, names: NameMatcher): string | null {
  // Most bodies that reach here hold no markup at all.
  // No markup: a script served on its own (`window.__ENV__ = {…}`, a runtime configuration) is all script.
  if (!text.includes('<')) return maskInlineState(text, names, 0);
  let out: string[] | null = null;
  let copied = 0;
  const mask = (start: number, end: number): void => {
    (out ??= []).push(text.slice(copied, start), REDACTED);
    copied = end;
  };
  /** Where the first script that is no JSON starts: inline state is searched from there on. */
  let script = -1;
  TAG.lastIndex = 0;
  for (let m = TAG.exec(text); m !== null; m = TAG.exec(text)) {
    const { attributes, end } = readTag(text, m.index + m[0].length);
    TAG.lastIndex = end;
    const tag = m[1]!.toLowerCase();
    if (tag === 'script') {
      // Other scripts are read on as markup: what they write (`document.write('<input …>')`,
      // a `text/template`) holds the same tokens.
      if (valueOf(text, attributes, 'type')?.toLowerCase().includes('json') !== true) {
        if (script === -1) script = m.index;
        continue;
      }
      SCRIPT_END.lastIndex = end;
      const close = SCRIPT_END.exec(text);
      const stop = close === null ? text.length : close.index;
      TAG.lastIndex = stop;
      const masked = maskEmbeddedJson(text, end, stop, names);
      if (masked === null) continue;
      (out ??= []).push(text.slice(copied, end), masked);
      copied = stop;
      if (stop >= text.length) break;
      continue;
    }
    const meta = tag === 'meta';
    const secret = meta
      ? namedLikeSecret(valueOf(text, attributes, 'name'), names)
      : fieldNamedLikeSecret(valueOf(text, attributes, 'name'), names) ||
        // A field a script reads by its id (`#api-key`) rather than posts by name.
        fieldNamedLikeSecret(valueOf(text, attributes, 'id'), names) ||
        valueOf(text, attributes, 'type')?.toLowerCase() === 'password' ||
        autofillsSecret(valueOf(text, attributes, 'autocomplete'));
    if (!secret) continue;
    if (tag === 'select') {
      // Its value is the selected option's: every option's value and text are masked, as only a
      // secret select's end is searched (see the textarea's below).
      SELECT_END.lastIndex = end;
      const close = SELECT_END.exec(text);
      const stop = close === null ? text.length : close.index;
      maskOptions(text, end, stop, mask);
      TAG.lastIndex = stop;
      if (copied >= text.length) break;
      continue;
    }
    let target: { start: number; end: number } | undefined;
    if (tag === 'textarea') {
      // A textarea's value is its text (a private key, a recovery code a settings page shows). Only
      // a secret one's end is searched: from every textarea of a page with none, the search would
      // run to the text's end.
      TEXTAREA_END.lastIndex = end;
      const close = TEXTAREA_END.exec(text);
      target = { start: end, end: close === null ? text.length : close.index };
      TAG.lastIndex = target.end;
    }
    target ??= attributes.find((a) => a.name === (meta ? 'content' : 'value') && a.start !== -1);
    if (target === undefined || target.end === target.start) continue;
    if (text.slice(target.start, target.end) === REDACTED) continue;
    mask(target.start, target.end);
    if (target.end >= text.length) break;
  }
  let masked: string | null = null;
  if (out !== null) {
    out.push(text.slice(copied));
    masked = out.join('');
  }
  if (script === -1) return masked;
  // Masks before the first script shift it: then the state is searched from the start.
  return maskInlineState(masked ?? text, names, masked === null ? script : 0) ?? masked;
}

/**
 * The `value` and `label` of each `<option>` between `from` and `stop` (a secret select's content) and its text
 * (up to the next tag) handed to `mask`, in order. Only the select's content is searched: from every
 * select without options, a search of the text would run to its end.
 */
function maskOptions(text: string, from: number, stop: number, mask: (start: number, end: number) => void): void {
  const inner = text.slice(from, stop);
  OPTION.lastIndex = 0;
  for (let m = OPTION.exec(inner); m !== null; m = OPTION.exec(inner)) {
    const { attributes, end } = readTag(inner, m.index + m[0].length);
    // The value, and the label a browser shows instead of the text (`label="4242 …"`), in the tag's order.
    const value = attributes.find((a) => a.name === 'value' && a.start !== -1);
    const label = attributes.find((a) => a.name === 'label' && a.start !== -1);
    for (const a of value !== undefined && label !== undefined && label.start < value.start
      ? [label, value]
      : [value, label])
      if (a !== undefined && a.end > a.start && inner.slice(a.start, a.end) !== REDACTED)
        mask(from + a.start, from + a.end);
    if (end >= inner.length) return;
    OPTION.lastIndex = end;
    const next = inner.indexOf('<', end);
    const textEnd = next === -1 ? inner.length : next;
    const own = inner.slice(end, textEnd);
    if (own.trim() !== '' && own !== REDACTED) mask(from + end, from + textEnd);
  }
}
