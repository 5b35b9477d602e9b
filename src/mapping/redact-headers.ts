// Header masking (issue 3, item 5; DESIGN.md "Secrets"): values of authorization, cookie,
// set-cookie, proxy-authorization and API-key/token style headers are replaced by `REDACTED` in
// request and response headers (BrowserHttpHeaders: structure not shown, so any value type is
// masked, and names compare case-insensitively). URL-carrying headers get URL redaction, because a
// Referer or Location repeats the signed URL the body masks elsewhere.
import type { JsonValue } from './log-record.js';
import { compileNameMatcher, type NameMatcher } from './name-matcher.js';
import { REDACTED } from './options.js';
import type { UrlRedactor } from './redact-url.js';
import { setOwn } from './attributes.js';

const URL_HEADERS = compileNameMatcher(['referer', 'location', 'content-location', 'origin']);

export interface HeaderRedactor {
  /** The headers with secrets masked; the same object when nothing changed. */
  redact(headers: { [key: string]: JsonValue }): { [key: string]: JsonValue };
}

export function createHeaderRedactor(names: NameMatcher, urls: UrlRedactor): HeaderRedactor {
  return {
    redact(headers) {
      let out: { [key: string]: JsonValue } | undefined;
      for (const name of Object.keys(headers)) {
        const value = headers[name] as JsonValue;
        let next: JsonValue = value;
        if (names.matches(name)) next = REDACTED;
        else if (typeof value === 'string' && URL_HEADERS.matches(name)) next = urls.redact(value);
        if (next !== value) {
          out ??= { ...headers };
          setOwn(out, name, next);
        }
      }
      return out ?? headers;
    },
  };
}
