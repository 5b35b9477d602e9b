// Trace and span ids derived from what identifies the thing they describe, never from arrival
// order or a counter: a replay after kill -9, a failover to another replica, or a request's events
// arriving before its navigation's all give the same ids. SHA-256 over the identifying parts, each
// prefixed with a kind so that a navigation and a request can never share an id; the W3C Trace
// Context ids are then the first 16 (trace) or 8 (span) bytes of the digest. An all-zero id is
// invalid in OTLP; SHA-256 gives one with probability 2^-64 and 2^-128, which is accepted.

export type IdKind = 'navigation' | 'request' | 'api_call' | 'orphan';

let hash: typeof import('node:crypto').hash | undefined;

function digest(kind: string, parts: readonly string[]): string {
  // A NUL cannot occur inside ids the service sends, so the joined text is unambiguous. The one-shot
  // hash() costs a third of createHash().update().digest() per id, and ids are made per request.
  // node:crypto is taken at the first id: with traces off it is never loaded (about 3 MiB of RSS).
  hash ??= process.getBuiltinModule('node:crypto').hash;
  return hash('sha256', kind + '\u0000' + parts.join('\u0000'), 'hex');
}

/** The 32-hex-digit trace id of a trace rooted at `kind` identified by `parts`. */
export function traceIdOf(kind: IdKind, parts: readonly string[]): string {
  return digest(`trace:${kind}`, parts).slice(0, 32);
}

/** The 16-hex-digit span id of a span of `kind` identified by `parts`. */
export function spanIdOf(kind: IdKind, parts: readonly string[]): string {
  return digest(`span:${kind}`, parts).slice(0, 16);
}
