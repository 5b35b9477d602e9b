// What a failed request says, in one short word where there is one: the system or undici error code
// (ECONNREFUSED, UND_ERR_SOCKET, …), which fetch and undici often hide in `cause`, else the message.
// A TLS handshake that met a plaintext server gets the likely fix beside its OpenSSL code, which
// alone (ERR_SSL_WRONG_VERSION_NUMBER) tells an operator nothing.

/** OpenSSL's answers when the peer's first bytes are not TLS: an https:// URL for a plaintext port. */
const TLS_TO_PLAINTEXT = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST']);

export function networkMessage(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } } | null | undefined;
  const code = e?.cause?.code ?? e?.code;
  if (code !== undefined && TLS_TO_PLAINTEXT.has(code)) return `${code}: TLS to a port that speaks plaintext (write the URL with http://, or use the TLS port)`;
  return code ?? e?.cause?.message ?? e?.message ?? String(err);
}

/** The error's code only (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT, …), when it has one. */
export function networkCode(err: unknown): string | undefined {
  const e = err as { code?: string; cause?: { code?: string } } | null | undefined;
  return e?.cause?.code ?? e?.code;
}
