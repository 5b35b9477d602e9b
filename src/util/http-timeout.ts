// The three ways an HTTP request of ours times out, as errors with a code: log lines, metrics and
// `check` show the code (util/network-message.ts) and tell a timeout from a refusal by it.

export const CONNECT_TIMEOUT = 'HTTP_CONNECT_TIMEOUT';
/** No response head within the headers timeout once the request was on its connection. */
export const HEADERS_TIMEOUT = 'HTTP_HEADERS_TIMEOUT';
/** No body bytes within the body timeout while the reader was waiting for some. */
export const BODY_TIMEOUT = 'HTTP_BODY_TIMEOUT';

export type HttpTimeoutCode = typeof CONNECT_TIMEOUT | typeof HEADERS_TIMEOUT | typeof BODY_TIMEOUT;

export class HttpTimeoutError extends Error {
  override readonly name = 'HttpTimeoutError';
  constructor(
    readonly code: HttpTimeoutCode,
    message: string,
  ) {
    super(message);
  }
}

/** Whether `code` is one of ours. */
export const isHttpTimeout = (code: string | undefined): boolean =>
  code === CONNECT_TIMEOUT || code === HEADERS_TIMEOUT || code === BODY_TIMEOUT;
