// Small response helpers shared by the service API and the control API. Error bodies follow the
// service's Error shape (docs/service-api.md "Errors"): `code` (machine-readable) and `message` (human-readable).
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** Default application codes per status; the service does not publish the full list. */
export function defaultErrorCode(status: number): string {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 409:
      return 'conflict';
    case 429:
      return 'rate_limited';
    case 500:
      return 'internal_error';
    case 503:
      return 'capacity_exhausted';
    default:
      return status >= 500 ? 'internal_error' : 'error';
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  code?: string,
  headers: OutgoingHttpHeaders = {},
): void {
  sendJson(res, status, { code: code ?? defaultErrorCode(status), message }, headers);
}

/** An answer the control API queued (listFailNext, archiveFailNext): a 429 says when to come back. */
export function sendInjectedFailure(res: ServerResponse, fail: { status: number; retryAfterSeconds?: number }): void {
  const headers =
    fail.status === 429 || fail.retryAfterSeconds !== undefined
      ? { 'Retry-After': String(fail.retryAfterSeconds ?? 1) }
      : {};
  sendError(res, fail.status, `injected failure (${fail.status})`, undefined, headers);
}

/** Reads a JSON body (empty body → undefined); rejects bodies over 1 MiB or that are not JSON. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 1 << 20) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return undefined;
  return JSON.parse(text) as unknown;
}
