// URL redaction and URL attributes. A hand-rolled scanner rather than `new URL()`: the WHATWG parser
// normalizes (case, trailing slash, percent-encoding, default ports), which would break the promise
// that everything except the masked parts reaches the collector exactly as the service sent it
// (round-trip invariant), and it is several times slower on the per-event path.
//
// Masked (semantic conventions for url.full): the user-info part becomes
// `REDACTED` (`REDACTED:REDACTED` when it had a password), and the value of every query, fragment
// or path parameter (`;jsessionid=`) whose name matches the configured list becomes `REDACTED`.
// Fragments are included because OAuth implicit flows put `access_token` there, and single-page
// apps route with a query inside the fragment (`#/verify?code=…`).
import type { AttributeValue } from '../vocabulary/log-record.js';
import { matchesFieldName, type NameMatcher } from './name-matcher.js';
import { REDACTED } from '../config/mapping-section.js';
import { ATTR } from './attributes.js';
import { boundedMemo } from '../util/bounded-memo.js';
import { maskJsonText } from './mask-json-text.js';
import { maskGraphqlArguments } from './mask-graphql.js';

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

export interface UrlRedactor {
  /** The URL with secrets masked; the same string when nothing needed masking. */
  redact(url: string): string;
}

/** `&`, `;` and `?`: where a parameter ends (see redactParams). */
const isParamEnd = (c: number): boolean => c === 38 /* & */ || c === 59 /* ; */ || c === 63; /* ? */

/**
 * Masks values of matching `name=value` pairs in text (a query or fragment); null when unchanged.
 * Pairs end at `&`, at `;` (the older form separator) and at `?`: a hash-routed fragment carries
 * its own query (`#/verify?code=…`), and a parameter's value may be a URL with a query of its own
 * (`?next=https://a.example/cb?token=…`). Splitting there can only mask more, never less. A
 * bracketed name (`user[password]`, PHP and Rails forms) is read by its last segment.
 */
export function redactParams(text: string, params: NameMatcher): string | null {
  let out: string[] | null = null;
  let last = 0;
  let start = 0;
  const n = text.length;
  while (start <= n) {
    let end = start;
    let eq = -1;
    for (; end < n; end++) {
      const c = text.charCodeAt(end);
      if (isParamEnd(c)) break;
      if (c === 61 /* = */ && eq === -1) eq = end;
    }
    if (eq !== -1 && eq + 1 < end) {
      let name = text.slice(start, eq);
      if (name.includes('%')) {
        try {
          name = decodeURIComponent(name);
        } catch {
          // A malformed escape: match on the raw name.
        }
      }
      if (matchesFieldName(params, name)) {
        if (text.slice(eq + 1, end) !== REDACTED) {
          (out ??= []).push(text.slice(last, eq + 1), REDACTED);
          last = end;
        }
      } else if (name === 'query' || mayHoldJson(text.charCodeAt(eq + 1))) {
        // Most parameters are plain words: looked at by their first character, not copied out.
        const value = text.slice(eq + 1, end);
        // JSON first for every parameter (a `query` may hold JSON too), then a `query`'s GraphQL.
        let json = maskJsonParam(value, params);
        if (name === 'query') json = maskGraphqlParam(json ?? value, params) ?? json;
        if (json !== null) {
          (out ??= []).push(text.slice(last, eq + 1), json);
          last = end;
        }
      }
    }
    start = end + 1;
  }
  if (out === null) return null;
  out.push(text.slice(last));
  return out.join('');
}

/** Whether a value starting with `c` may be JSON: `{`, `[`, or a percent-escape (of them, maskJsonParam asks). */
const mayHoldJson = (c: number): boolean => c === 123 /* { */ || c === 91 /* [ */ || c === 37; /* % */

/** A JSON parameter value (`variables={"token":…}`, Apollo's persisted queries) with its secret-named members masked. */
function maskJsonParam(value: string, names: NameMatcher): string | null {
  const c = value.charCodeAt(0);
  if (!mayHoldJson(c) || (c === 37 /* % */ && !/^%(?:7b|5b)/i.test(value))) return null;
  return maskDecoded(value, false, (json) => maskJsonText(json, names));
}

/** A GraphQL GET's `query` parameter with its inline arguments masked (mask-graphql.ts). */
const maskGraphqlParam = (value: string, names: NameMatcher): string | null =>
  maskDecoded(value, true, (document) => maskGraphqlArguments(document, names));

/**
 * `mask` applied to a parameter value percent-decoded (`+` as a space when `plus`), its result
 * encoded again; null when it masked nothing, so the URL keeps its bytes. Decoding never gives up:
 * one bad escape (`%FF`) must not keep the secrets beside it, and a lone surrogate is made a
 * U+FFFD before encoding, where it would throw.
 */
function maskDecoded(value: string, plus: boolean, mask: (text: string) => string | null): string | null {
  const raw = plus ? value.replaceAll('+', ' ') : value;
  const masked = mask(raw.includes('%') ? percentDecode(raw) : raw);
  return masked === null ? null : encodeURIComponent(wellFormed(masked));
}

const utf8 = new TextDecoder('utf-8');
const utf8Encoder = new TextEncoder();

/** `text` percent-decoded as UTF-8, leniently: a malformed escape stays as written, a bad byte sequence becomes U+FFFD. */
export function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // Fall through to the byte-wise decoding below (rare: only malformed input gets here).
  }
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 37 /* % */ && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c < 0x80) bytes.push(c);
    else {
      const cp = text.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      for (const b of utf8Encoder.encode(ch)) bytes.push(b);
      i += ch.length - 1;
    }
  }
  return utf8.decode(new Uint8Array(bytes));
}

/** `text` with each lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, ES2024). */
export const wellFormed = (text: string): string =>
  text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

/**
 * Masks matching path parameters (RFC 3986 §3.3 `;name=value`, e.g. `/cart;jsessionid=…/item`) in
 * the path `path`; null when unchanged.
 */
export function redactPathParams(path: string, params: NameMatcher): string | null {
  let out: string[] | null = null;
  let last = 0;
  // The next `/` and `=` at or after a position, found natively and kept until passed: a parameter
  // runs to the next `;` or `/`, and a `data:` URL's `;base64,…` is one of up to 8 KB (a loop over
  // its characters was most of the time it took to map such a request).
  let slash = -2;
  let equals = -2;
  let nextSemi = path.indexOf(';');
  for (let semi = nextSemi; semi !== -1; semi = nextSemi) {
    if (slash !== -1 && slash <= semi) slash = path.indexOf('/', semi + 1);
    if (equals !== -1 && equals <= semi) equals = path.indexOf('=', semi + 1);
    nextSemi = path.indexOf(';', semi + 1);
    let end = path.length;
    if (slash !== -1) end = slash;
    if (nextSemi !== -1 && nextSemi < end) end = nextSemi;
    const eq = equals !== -1 && equals < end ? equals : -1;
    if (eq !== -1 && eq + 1 < end && params.matches(path.slice(semi + 1, eq)) && path.slice(eq + 1, end) !== REDACTED) {
      (out ??= []).push(path.slice(last, eq + 1), REDACTED);
      last = end;
    }
  }
  if (out === null) return null;
  out.push(path.slice(last));
  return out.join('');
}

/** The end of the authority of `url` (the first `/`, `?` or `#` after `from`), or its length. */
function authorityEnd(url: string, from: number): number {
  for (let i = from; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 47 /* / */ || c === 63 /* ? */ || c === 35 /* # */) return i;
  }
  return url.length;
}

export function createUrlRedactor(params: NameMatcher, userinfo: boolean): UrlRedactor {
  return {
    redact(url: string): string {
      const at = userinfo ? url.indexOf('@') : -1;
      const q = url.indexOf('?');
      const hash = url.indexOf('#');
      const semi = url.indexOf(';');
      // Fast path: most URLs carry neither user-info nor parameters.
      if (at === -1 && q === -1 && hash === -1 && semi === -1) return url;
      let result = url;
      let changed = false;
      // 1. User-info: only inside the authority (`scheme://userinfo@host` or `//userinfo@host`).
      if (at !== -1) {
        const schemeLen = SCHEME.exec(url)?.[0].length ?? 0;
        if (url.startsWith('//', schemeLen)) {
          const authStart = schemeLen + 2;
          const authEnd = authorityEnd(url, authStart);
          const userEnd = url.lastIndexOf('@', authEnd - 1);
          if (userEnd >= authStart) {
            const info = url.slice(authStart, userEnd);
            const masked = info.includes(':') ? `${REDACTED}:${REDACTED}` : REDACTED;
            if (info !== masked) {
              result = url.slice(0, authStart) + masked + url.slice(userEnd);
              changed = true;
            }
          }
        }
      }
      // 2. Path, query and fragment (positions re-read: user-info masking moved them).
      const h = changed ? result.indexOf('#') : hash;
      const qAny = changed ? result.indexOf('?') : q;
      const qs = qAny !== -1 && (h === -1 || qAny < h) ? qAny : -1;
      const pathEnd = qs !== -1 ? qs : h !== -1 ? h : result.length;
      const pathSemi = semi === -1 ? -1 : result.indexOf(';');
      let path: string | null = null;
      let query: string | null = null;
      let fragment: string | null = null;
      if (pathSemi !== -1 && pathSemi < pathEnd) path = redactPathParams(result.slice(0, pathEnd), params);
      if (qs !== -1) query = redactParams(result.slice(qs + 1, h === -1 ? undefined : h), params);
      if (h !== -1) fragment = redactParams(result.slice(h + 1), params);
      if (path !== null || query !== null || fragment !== null) {
        let rebuilt = path ?? result.slice(0, pathEnd);
        if (qs !== -1) rebuilt += '?' + (query ?? result.slice(qs + 1, h === -1 ? undefined : h));
        if (h !== -1) rebuilt += '#' + (fragment ?? result.slice(h + 1));
        result = rebuilt;
        changed = true;
      }
      return changed ? result : url;
    },
  };
}

/** A redactor that changes nothing (redaction disabled). */
export const identityUrlRedactor: UrlRedactor = { redact: (url) => url };

/** What url.* and server.* a URL promotes (addUrlAttributes), parsed once per URL. */
interface UrlParts {
  scheme: string | undefined;
  /** False for `data:` URLs: they carry a payload, not a location. */
  full: boolean;
  host: string | undefined;
  port: number | undefined;
}

/**
 * URLs up to this long are parsed once and remembered (bounded: past URL_MEMO_ENTRIES the memo
 * starts over). Events of one page repeat its URL, and a request's URL comes back with its
 * response: parsing it afresh cost a regular expression, a lower-casing and a few slices each time.
 */
export const URL_MEMO_CHARS = 1024;
const URL_MEMO_ENTRIES = 512;
const urlParts = boundedMemo(URL_MEMO_ENTRIES, parseUrlParts);

/**
 * Adds url.full, url.scheme, server.address and server.port (only when explicit) for an already
 * redacted URL. `data:` URLs carry a payload, not a location: only their scheme is promoted, so the
 * payload is not duplicated into attributes.
 */
export function addUrlAttributes(attrs: Record<string, AttributeValue>, url: string): void {
  const p = url.length <= URL_MEMO_CHARS ? urlParts(url) : parseUrlParts(url);
  if (p.scheme !== undefined) attrs[ATTR.urlScheme] = p.scheme;
  if (!p.full) return;
  attrs[ATTR.urlFull] = url;
  if (p.host !== undefined) attrs[ATTR.serverAddress] = p.host;
  if (p.port !== undefined) attrs[ATTR.serverPort] = p.port;
}

/** Schemes whose authority names a server the browser connected to (server.address, server.port). */
const SERVER_SCHEMES = new Set(['http', 'https', 'ws', 'wss', 'ftp']);

function parseUrlParts(url: string): UrlParts {
  const m = SCHEME.exec(url);
  const scheme = m === null ? undefined : url.slice(0, m[0].length - 1).toLowerCase();
  const parts: UrlParts = { scheme, full: scheme !== 'data', host: undefined, port: undefined };
  const schemeLen = m === null ? 0 : m[0].length;
  if (!parts.full || !url.startsWith('//', schemeLen)) return parts;
  // A browser's own pages have an authority but no server: `chrome-error://chromewebdata/` (a
  // failed navigation), `chrome-extension://<id>/`, `devtools://devtools/`. As server.address they
  // would group failed pages under a server named chromewebdata.
  if (scheme !== undefined && !SERVER_SCHEMES.has(scheme)) return parts;
  const start = schemeLen + 2;
  let end = url.length;
  for (let i = start; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 47 || c === 63 || c === 35) {
      end = i;
      break;
    }
  }
  let hostPort = url.slice(start, end);
  const at = hostPort.lastIndexOf('@');
  if (at !== -1) hostPort = hostPort.slice(at + 1);
  let host = hostPort;
  let port: string | undefined;
  if (hostPort.startsWith('[')) {
    // IPv6 literal: server.address carries it without brackets.
    const close = hostPort.indexOf(']');
    host = close === -1 ? hostPort.slice(1) : hostPort.slice(1, close);
    if (close !== -1 && hostPort.charCodeAt(close + 1) === 58) port = hostPort.slice(close + 2);
  } else {
    const colon = hostPort.lastIndexOf(':');
    if (colon !== -1) {
      host = hostPort.slice(0, colon);
      port = hostPort.slice(colon + 1);
    }
  }
  if (host !== '') parts.host = host;
  // A port past 65535 names no server (a URL no browser would fetch): not promoted.
  if (port !== undefined && /^\d{1,5}$/.test(port) && Number(port) <= 65535) parts.port = Number(port);
  return parts;
}
