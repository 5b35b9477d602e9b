// What a failed request says, in one short word where there is one: the system error code
// (ECONNREFUSED, ECONNRESET, …) or the HTTP client's own (HTTP_HEADERS_TIMEOUT, util/http-timeout.ts),
// which some errors (gRPC's, fetch's) hide in `cause`, else the message. A TLS handshake that met a
// plaintext server gets the likely fix beside its OpenSSL code, which alone
// (ERR_SSL_WRONG_VERSION_NUMBER) tells an operator nothing; so does an HTTP/1.1 request answered by an
// HTTP/2 or gRPC port (llhttp's HPE_INVALID_CONSTANT), and the stream parser's HTTP_PARSE gets its
// reason (a connection closed inside a chunk). Only string codes count: a DOMException
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

export function networkMessage(err: unknown): string {
  const e = err as Failure;
  const code = networkCode(err);
  if (code !== undefined && TLS_TO_PLAINTEXT.has(code))
    return `${code}: TLS to a port that speaks plaintext (write the URL with http://, or use the TLS port)`;
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
