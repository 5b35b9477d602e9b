// Header masking (docs/design.md "Secrets"): values of authorization, cookie,
// set-cookie, proxy-authorization and API-key/token style headers are replaced by `REDACTED` in
// request and response headers. BrowserHttpHeaders is "forwarded as-is from CDP without
// normalization", so both shapes a header list takes in the wild are handled: an object of
// name → value (CDP's Network.Headers; any value type is masked) and an array of `{name, value}`
// entries (HAR and fetch-style lists). Names compare case-insensitively. URL-carrying headers get
// URL redaction, because a Referer, a Location or HTTP/2's `:path` repeats the signed URL the body
// masks elsewhere.
import type { JsonValue } from '../vocabulary/log-record.js';
import { compileNameMatcher, type NameMatcher } from './name-matcher.js';
import { REDACTED } from '../config/mapping-section.js';
import type { UrlRedactor } from './redact-url.js';
import { setOwn } from './attributes.js';
import { isJsonObject } from '../util/guards.js';

// `:path` is HTTP/2's (and HTTP/3's) request target, query included (RFC 9113 §8.3.1): Chromium
// reports it among the headers it sent (Network.requestWillBeSentExtraInfo).
const URL_HEADERS = compileNameMatcher(['referer', 'location', 'content-location', 'origin', ':path']);

type JsonObject = { [key: string]: JsonValue };

export interface HeaderRedactor {
  /** The headers (object or `{name, value}` list) with secrets masked; the same value when nothing changed. */
  redact(headers: JsonObject | JsonValue[]): JsonObject | JsonValue[];
}

export function createHeaderRedactor(names: NameMatcher, urls: UrlRedactor): HeaderRedactor {
  /** The masked value of one header, or the value itself. */
  const one = (name: string, value: JsonValue): JsonValue => {
    if (names.matches(name)) return value === REDACTED ? value : REDACTED;
    if (typeof value === 'string' && URL_HEADERS.matches(name)) return urls.redact(value);
    return value;
  };
  return {
    redact(headers) {
      if (Array.isArray(headers)) {
        let out: JsonValue[] | undefined;
        for (let i = 0; i < headers.length; i++) {
          const entry = headers[i];
          if (!isJsonObject(entry) || typeof entry.name !== 'string' || !Object.hasOwn(entry, 'value')) continue;
          const value = entry.value as JsonValue;
          const next = one(entry.name, value);
          if (next !== value) (out ??= headers.slice())[i] = { ...entry, value: next };
        }
        return out ?? headers;
      }
      let out: JsonObject | undefined;
      for (const name of Object.keys(headers)) {
        const value = headers[name] as JsonValue;
        const next = one(name, value);
        if (next !== value) setOwn((out ??= { ...headers }), name, next);
      }
      return out ?? headers;
    },
  };
}
