// How the HTTP surface answers: JSON bodies (the session service's Error shape {code, message} for
// errors), the bounded JSON request body, and the error a route throws to answer with a status.
// Apart from the routes so that every route answers the same way.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The largest request body a route reads (a PUT's session settings are far smaller). */
const MAX_BODY = 64 * 1024;

/** Thrown by a route: answered with `status`, `headers` and {code, message}. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** 405 for `method` on a route that takes `allow` (RFC 9110 15.5.6: the answer names them in Allow). */
export function methodNotAllowed(method: string, route: string, allow: readonly string[], hint = ''): HttpError {
  const message = `${method} is not supported on ${route}; use ${allow.join(' or ')}${hint}`;
  return new HttpError(405, 'method_not_allowed', message, { allow: allow.join(', ') });
}

/** Writes a JSON (or, with `type`, a text) answer that no cache keeps. */
export function send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const text = type === 'application/json' ? JSON.stringify(body, null, 2) + '\n' : String(body);
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(text);
}

/** The request body as JSON ({} when empty); 413 past MAX_BODY, 400 when it does not parse. */
export async function readJson(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, 'body_too_large', `request body exceeds ${MAX_BODY} bytes`);
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'invalid_json', 'request body is not valid JSON');
  }
}
