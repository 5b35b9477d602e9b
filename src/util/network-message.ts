// What a failed request says, in one short word where there is one: the system error code
// (ECONNREFUSED, ECONNRESET, …) or the HTTP client's own (HTTP_HEADERS_TIMEOUT, util/http-timeout.ts),
// which some errors (gRPC's, fetch's) hide in `cause`, else the message. A TLS handshake that met a
// plaintext server gets the likely fix beside its OpenSSL code, which alone
// (ERR_SSL_WRONG_VERSION_NUMBER) tells an operator nothing; so does an HTTP/1.1 request answered by an
// HTTP/2 or gRPC port (llhttp's HPE_INVALID_CONSTANT), and the stream parser's HTTP_PARSE gets its
// reason (a connection closed inside a chunk), and a certificate refused says why (expired, another
// host's, an unknown signer) and so what fixes it. Only string codes count: a DOMException
// (an aborted or timed-out signal) carries a number there, which says nothing in a log line.

/** OpenSSL's answers when the peer's first bytes are not TLS: an https:// URL for a plaintext port. */
const TLS_TO_PLAINTEXT = new Set([
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_PACKET_LENGTH_TOO_LONG',
  'ERR_SSL_HTTP_REQUEST',
]);

/**
 * llhttp's answers when the peer's first bytes are not an HTTP/1.1 response: most often an HTTP/2
 * or gRPC port (an OTLP/HTTP exporter aimed at a collector's 4317) answering with its preface.
 */
const NOT_HTTP1 = new Set(['HPE_INVALID_CONSTANT', 'HPE_INVALID_VERSION', 'HPE_INVALID_STATUS']);

type Failure = { code?: unknown; message?: string; cause?: { code?: unknown; message?: string } } | null | undefined;

/**
 * Why a TLS peer's certificate was not accepted, in words that point at the fix: a CA setting helps
 * only an unknown signer; an expired certificate, or one issued for another name, is the server's
 * to fix (or the URL's). Node reports these by OpenSSL's verify code; gRPC quotes OpenSSL's text
 * without the code, so each kind is known by either.
 */
const CERTIFICATE_PROBLEMS: readonly CertificateProblem[] = [
  {
    kind: 'expired',
    codes: ['CERT_HAS_EXPIRED'],
    text: /certificate has expired/i,
    words: "the server's certificate has expired: it must be renewed on the server (no CA setting helps)",
  },
  {
    kind: 'not_yet_valid',
    codes: ['CERT_NOT_YET_VALID'],
    text: /certificate is not yet valid/i,
    words: "the server's certificate is not valid yet: is this machine's clock (or the server's) wrong?",
  },
  {
    kind: 'other_host',
    codes: ['ERR_TLS_CERT_ALTNAME_INVALID'],
    text: /does not match certificate's altnames|ERR_TLS_CERT_ALTNAME_INVALID/i,
    words: "the server's certificate was issued for other names than the URL's host: use a name it holds in the URL",
  },
  {
    kind: 'unknown_signer',
    codes: [
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'SELF_SIGNED_CERT_IN_CHAIN',
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'UNABLE_TO_GET_ISSUER_CERT',
      'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    ],
    text: /self[- ]signed certificate|unable to verify the first certificate|unable to get (local )?issuer certificate/i,
    words: "the server's certificate is not signed by a CA this process trusts: configure the CA that signed it",
  },
];

interface CertificateProblem {
  kind: 'expired' | 'not_yet_valid' | 'other_host' | 'unknown_signer';
  codes: readonly string[];
  text: RegExp;
  words: string;
}

/** What a certificate failure means, from its code or (gRPC) its text; undefined for anything else. */
export function certificateProblem(codeOrText: string): CertificateProblem | undefined {
  return CERTIFICATE_PROBLEMS.find((p) => p.codes.includes(codeOrText) || p.text.test(codeOrText));
}

export function networkMessage(err: unknown): string {
  const e = err as Failure;
  const code = networkCode(err);
  if (code !== undefined && TLS_TO_PLAINTEXT.has(code))
    return `${code}: TLS to a port that speaks plaintext (write the URL with http://, or use the TLS port)`;
  const certificate = code === undefined ? undefined : certificateProblem(code);
  if (certificate !== undefined) return `${code}: ${certificate.words}`;
  if (code !== undefined && NOT_HTTP1.has(code))
    return `${code}: the server did not answer in HTTP/1.1 (an HTTP/2 or gRPC port, such as OTLP/gRPC's 4317? OTLP/HTTP is usually on 4318)`;
  // The stream's own response parser (upstream/http-response-parser.ts): its code alone says nothing.
  if (code === 'HTTP_PARSE' && typeof e?.message === 'string') return `${code}: ${e.message}`;
  return code ?? e?.cause?.message ?? e?.message ?? String(err);
}

/** The error's code only (ECONNREFUSED, HTTP_HEADERS_TIMEOUT, …), when it has one. */
export function networkCode(err: unknown): string | undefined {
  const e = err as Failure;
  const code = e?.cause?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}
