// The mapping's redaction compiled once from its options: the URL and header redactors, the names
// of secret keys, and the body transformer built on them. The mapper and `tail` (cli/tail-view.ts)
// both compile theirs here, so what the terminal shows masked is what the exporter sends.
import type { RedactionOptions } from '../config/mapping-section.js';
import { createBodyTransformer, type BodyTransformer } from './body-transform.js';
import { compileNameMatcher, type NameMatcher } from './name-matcher.js';
import { createHeaderRedactor } from './redact-headers.js';
import { createUrlRedactor, identityUrlRedactor, type UrlRedactor } from './redact-url.js';

export interface CompiledRedaction {
  /** Masks the secret parts of a URL; undefined when redaction is off. */
  urls: UrlRedactor | undefined;
  /** Header names whose values are secret; undefined when redaction is off. */
  secretNames: NameMatcher | undefined;
  /** The body walk with every mask that is on (none when redaction is off). */
  transformer: BodyTransformer;
}

/** Compiles the redactors of `r` (each call its own: the transformer keeps per-walk state). */
export function compileRedaction(r: RedactionOptions): CompiledRedaction {
  const urls = r.enabled ? createUrlRedactor(compileNameMatcher(r.queryParams), r.urlUserinfo) : undefined;
  const secretNames = r.enabled ? compileNameMatcher(r.headers) : undefined;
  const headers =
    secretNames !== undefined ? createHeaderRedactor(secretNames, urls ?? identityUrlRedactor) : undefined;
  // Body keys named like a secret by either list: `password` (header list), `code`, `client_secret`.
  const bodyNames = r.enabled ? compileNameMatcher([...r.headers, ...r.queryParams]) : undefined;
  return { urls, secretNames, transformer: createBodyTransformer(r, headers, urls, bodyNames) };
}
