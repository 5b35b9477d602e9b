// URLs as the CLI and the daemon's logs may print them: user-info and credential-like query
// parameters masked, with the same rules the exporter applies to URLs inside records.
import { compileNameMatcher } from './name-matcher.js';
import { DEFAULT_REDACTED_QUERY_PARAMS } from '../config/mapping-section.js';
import { createUrlRedactor } from './redact-url.js';

const secretParams = compileNameMatcher(DEFAULT_REDACTED_QUERY_PARAMS);
const safeUrls = createUrlRedactor(secretParams, true);
const safeQueries = createUrlRedactor(secretParams, false);

/** A URL as it may be printed: user-info and credential-like parameters masked. */
export const displayUrl = (url: string): string => safeUrls.redact(url);

/**
 * A database URL as it may be printed: the user is kept (it says which role connects), the
 * password masked, in the user-info and in the query string alike (pg accepts it in both).
 */
export function displayStoreUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '(invalid URL)';
  }
  if (u.password) u.password = 'REDACTED';
  return safeQueries.redact(u.toString());
}
