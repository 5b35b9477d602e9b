// Sends one OTLP/HTTP logs request and says what happened as a value (docs/design.md "Conventions":
// results at I/O boundaries are values): success (with the partial-success count read from the response),
// retryable (with the server's Retry-After), or failure (with its status). There is no retry here:
// delivery owns the one retry layer.
//
// Why not the exporter library's transport: it reports a retryable answer without its status code
// (metrics and status must say http_503, not "error"), has no proxy support, and reports partial
// success only in a diagnostic log line. Endpoint, headers, compression and timeout come from the
// configuration, which already reads the OTEL_EXPORTER_OTLP_* variables.
//
// Retryable, as the OTLP specification lists them: 429, 502, 503, 504, and network errors or
// timeouts (the request may never have arrived).
//
// A 2xx is success, as the specification says, but its body is looked at: empty or an
// ExportLogsServiceResponse is a collector's answer; anything else (an HTML page from a catch-all
// route at a wrong path) is still success (the records are acknowledged: retrying them would not make
// that endpoint store them) and reported as `export_answer_unrecognized`: a warning and a counter.
import type { TlsFiles } from '../config/tls.js';
import { HttpClient, type HttpResponse } from '../util/http-client.js';
import { BODY_TIMEOUT, HEADERS_TIMEOUT } from '../util/http-timeout.js';
import { parseRetryAfter } from '../util/backoff.js';
import { decodeContentCoding } from '../util/content-coding.js';
import { readPrefix } from '../util/read-prefix.js';
import { decodePartialSuccess, decodeStatusMessage, isOtlpAnswer } from '../wire/partial-success.js';
import { networkCode, networkMessage } from '../util/network-message.js';
import { displayUrl } from '../mapping/display-url.js';
import { ignoreFacts, type Emit } from '../vocabulary/facts.js';
import { joinBody, type RequestBody } from '../wire/otlp-request.js';

// node:zlib (about 2 MiB of RSS on Node 24) is taken at the first gzip body: compression is off by
// default. promisify through getBuiltinModule: an ES import of node:util costs about 3 MiB
// (util/command-line.ts).
let gzipPromised: ((body: Uint8Array) => Promise<Buffer>) | undefined;
// One deflate over the joined body, not a gzip stream fed chunk by chunk: a stream runs one zlib
// job on the thread pool per chunk (hundreds of small segments a request), and the join's copy is
// small next to deflating the same bytes.
const gzipAsync = (body: RequestBody): Promise<Buffer> =>
  (gzipPromised ??= process.getBuiltinModule('node:util').promisify(process.getBuiltinModule('node:zlib').gzip))(
    joinBody(body),
  );
const RETRYABLE = new Set([429, 502, 503, 504]);
/** Error bodies are read only this far: enough for a message, never a memory risk. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * What one export came to. `status` is the HTTP status, `grpcCode` the gRPC status code (one or the
 * other, by transport; neither for a request that got no answer). `refused` marks a failure the
 * collector pinned on the request's content, whatever the protocol: 'invalid' (HTTP 400, gRPC
 * INVALID_ARGUMENT) or 'too_large' (HTTP 413): delivery splits the batch to find the record.
 */
export type ExportOutcome =
  | { kind: 'success'; rejected: number; message?: string }
  | {
      kind: 'retryable';
      status?: number;
      grpcCode?: number;
      retryAfterMs?: number;
      /** Set when no answer came within the request's timeout (this long): the `timeout` outcome. */
      timeoutMs?: number;
      message: string;
    }
  | { kind: 'failure'; status?: number; grpcCode?: number; refused?: 'invalid' | 'too_large'; message: string };

export interface TransportOptions {
  url: string;
  headers: Record<string, string>;
  compression: 'gzip' | 'none';
  timeoutMs: number;
  /** Requests in flight at once: the connection pool is sized to it. */
  connections: number;
  userAgent: string;
  /** A private CA and/or client certificate for the collector. */
  tls?: TlsFiles;
  /** Where an answer that is not OTLP is reported. */
  emit?: Emit;
}

export interface OtlpTransport {
  readonly url: string;
  /** Sends one request body (its chunks in order: otlp-request.ts). */
  send(body: RequestBody, contentType: string): Promise<ExportOutcome>;
  close(): Promise<void>;
}

/**
 * A transport's answer, even when it throws. The transports report every network and protocol
 * failure as an outcome, so a throw is a defect of theirs or of a library under them (gRPC's
 * `makeUnaryRequest` throws on a channel it considers shut down). Taken as retryable, the records
 * or spans stay queued and the failure is counted and logged like any other, instead of rejecting
 * a delivery loop that nothing awaits, which would stop delivery without a word.
 */
export async function sendOutcome(t: OtlpTransport, body: RequestBody, contentType: string): Promise<ExportOutcome> {
  try {
    return await t.send(body, contentType);
  } catch (err) {
    return { kind: 'retryable', message: `the transport failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}

export function createOtlpTransport(o: TransportOptions): OtlpTransport {
  // Every step has the request's timeout: the connection, the answer's head, each silence of its body.
  const http = new HttpClient({
    tls: o.tls ?? {},
    connectTimeoutMs: o.timeoutMs,
    headersTimeoutMs: o.timeoutMs,
    bodyTimeoutMs: o.timeoutMs,
    connections: o.connections,
  });
  const baseHeaders: Record<string, string> = { ...o.headers, 'user-agent': o.userAgent };
  const emit = o.emit ?? ignoreFacts;
  let unrecognized = 0;
  if (o.compression === 'gzip') baseHeaders['content-encoding'] = 'gzip';
  return {
    url: o.url,
    async send(body, contentType) {
      const payload = o.compression === 'gzip' ? await gzipAsync(body) : body;
      let res: HttpResponse;
      try {
        res = await http.request(o.url, {
          method: 'POST',
          headers: { ...baseHeaders, 'content-type': contentType },
          body: payload,
          signal: AbortSignal.timeout(o.timeoutMs),
        });
      } catch (err) {
        return { kind: 'retryable', ...failure(err, o.timeoutMs) };
      }
      let read: { bytes: Buffer; cut: boolean };
      try {
        read = await readPrefix(res.body, MAX_RESPONSE_BYTES);
      } catch (err) {
        const { message, timeoutMs } = failure(err, o.timeoutMs);
        if (res.statusCode >= 200 && res.statusCode < 300) {
          // A 2xx whose body is slow is an answer: its body says at most how many were rejected,
          // and waiting on it again and again would hold delivery for good. One whose connection
          // is reset or closed before the body's end is not: a peer that answers 200 before reading
          // the request and then resets it has stored nothing, and sending the records again costs
          // at most a duplicate (log.record.uid), where taking the head for an answer loses them.
          // (Without the status: counted as the network failure it is, not as http_200.)
          if (timeoutMs !== undefined) return { kind: 'success', rejected: 0 };
          return { kind: 'retryable', message: `HTTP ${res.statusCode}, then ${message}` };
        }
        return { kind: 'retryable', status: res.statusCode, message: `HTTP ${res.statusCode}, then ${message}` };
      }
      // A coded answer (gzip from a proxy) is read decoded: its partial success counts. Cut in the
      // read or in the decoding (a small gzip can unpack past the cap), it is no answer.
      const decoded = decodeContentCoding(read.bytes, res.headers['content-encoding'], MAX_RESPONSE_BYTES);
      const data = decoded.bytes;
      const cut = read.cut || decoded.cut;
      const status = res.statusCode;
      if (status >= 200 && status < 300) {
        const answerType = res.headers['content-type'] ?? contentType;
        if (!isOtlpAnswer(data, answerType, cut))
          emit({
            f: 'export_answer_unrecognized',
            endpoint: displayUrl(o.url),
            status,
            contentType: res.headers['content-type'] ?? '',
            bytes: cut ? MAX_RESPONSE_BYTES : data.length,
            count: ++unrecognized,
          });
        const partial = decodePartialSuccess(data, answerType);
        return partial
          ? { kind: 'success', rejected: partial.rejected, message: partial.message }
          : { kind: 'success', rejected: 0 };
      }
      // The collector's own words (a google.rpc.Status when it speaks OTLP): an operator needs them
      // to tell a wrong header or tenant from a bad record.
      const type = String(res.headers['content-type'] ?? '');
      const raw =
        isText(type) && !type.includes('json')
          ? data.toString('utf8')
          : decodeStatusMessage(data, type) || (isText(type) ? data.toString('utf8') : '');
      const location = status >= 300 && status < 400 ? res.headers.location : undefined;
      // No redirect is followed (the records and credentials would go where the answer says): the
      // operator must hear where it points, to configure that URL.
      const text = (location ? `redirects to ${displayUrl(String(location))}, not followed` : raw)
        .slice(0, 300)
        .replace(/\s+/g, ' ')
        .trim();
      const message = `HTTP ${status}${text ? `: ${text}` : ''}`;
      if (RETRYABLE.has(status)) {
        const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
        return retryAfterMs === undefined
          ? { kind: 'retryable', status, message }
          : { kind: 'retryable', status, retryAfterMs, message };
      }
      const refused = status === 400 ? 'invalid' : status === 413 ? 'too_large' : undefined;
      return refused ? { kind: 'failure', status, refused, message } : { kind: 'failure', status, message };
    },
    async close() {
      // destroy, not close: close waits for requests in flight, and a collector that never answers
      // must not hold shutdown past its grace period (their records stay spooled).
      http.close();
    },
  };
}

function isText(contentType: unknown): boolean {
  const t = typeof contentType === 'string' ? contentType : '';
  return t.startsWith('text/') || t.includes('json');
}

/**
 * A timeout for every way a request can time out once it is on its way (its own signal, the
 * client's header and body timers: each has the request's timeout), else the code. A connection that
 * could not be opened in time is a network failure (HTTP_CONNECT_TIMEOUT): the collector is
 * unreachable, not slow. The message says how long was waited, once: it is what lastError shows.
 */
function failure(err: unknown, timeoutMs: number): { message: string; timeoutMs?: number } {
  const code = networkCode(err);
  if ((err as { name?: string }).name === 'TimeoutError' || code === HEADERS_TIMEOUT || code === BODY_TIMEOUT)
    return { message: `timeout after ${timeoutMs / 1000} s`, timeoutMs };
  return { message: networkMessage(err) };
}
