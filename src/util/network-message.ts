// What a failed request says, in one short word where there is one: the system or undici error code
// (ECONNREFUSED, UND_ERR_SOCKET, …), which fetch and undici often hide in `cause`, else the message.
export function networkMessage(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } } | null | undefined;
  return e?.cause?.code ?? e?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}

/** The error's code only (ECONNREFUSED, UND_ERR_HEADERS_TIMEOUT, …), when it has one. */
export function networkCode(err: unknown): string | undefined {
  const e = err as { code?: string; cause?: { code?: string } } | null | undefined;
  return e?.cause?.code ?? e?.code;
}
