// URLs as the CLI and the daemon's logs may print them: user-info and credential-like query
// parameters masked, with the same rules the exporter applies to URLs inside records.
import { compileNameMatcher } from '../mapping/name-matcher.js';
import { DEFAULT_REDACTED_QUERY_PARAMS } from '../mapping/options.js';
import { createUrlRedactor } from '../mapping/redact-url.js';

const safeUrls = createUrlRedactor(compileNameMatcher(DEFAULT_REDACTED_QUERY_PARAMS), true);

/** A URL as it may be printed: user-info and credential-like parameters masked. */
export const displayUrl = (url: string): string => safeUrls.redact(url);
