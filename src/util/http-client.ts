// The HTTP client both peers are spoken to with (the session service and the collector), and the
// `check`, `top` and healthcheck commands: Node's own node:http / node:https with keep-alive
// connections, opened by peer-connection.ts (TLS with the peer's material, proxies from the standard
// variables, a connect timeout).
//
// Why not undici (which this was until it had to go): its JavaScript and the llhttp WebAssembly it
// compiles cost about 28 MiB of RSS in every thread that makes a request, and the daemon makes them
// in its main thread and in its ingest worker. Measured: `await import('undici')` and one GET, 70.6
// MiB; the same GET with node:http, 42.9 MiB (node itself, 39). A one-session sidecar must stay
// within 64 MiB. node:http's parser is native and already in the binary.
//
// What the callers relied on from undici, kept here:
// - headers timeout: no response head within it once the request is on its connection → the
//   request fails with HTTP_HEADERS_TIMEOUT (http-timeout.ts);
// - body timeout: no body bytes within it while the reader waits for some → the body fails with
//   HTTP_BODY_TIMEOUT. Silence while the reader holds unread bytes (it paused: back-pressure) is its
//   own doing and does not count, as undici did not count a paused body;
// - abort: the signal fails the request, or, once the answer is there, the body (with the signal's
//   reason, so AbortSignal.timeout() still reads as a TimeoutError);
// - back-pressure: the body is the IncomingMessage itself; once the reader stops, node:http stops
//   reading the socket when the body's buffer is full (readHighWaterMark), and the peer's writes stall;
// - `connections`: at most that many requests in flight (hence connections), the rest wait in order;
// - keep-alive: an idle connection is kept for keepAliveMs (30 s) and then closed.
import type {
  Agent as HttpAgentType,
  ClientRequest,
  ClientRequestArgs,
  IncomingHttpHeaders,
  IncomingMessage,
} from 'node:http';
// node:https (and node:tls under it, about 7 MiB of RSS on Node 24) is taken when the first https://
// peer is: a sidecar talking plain HTTP to a local collector and service never loads it.
const https = (): typeof import('node:https') => process.getBuiltinModule('node:https');
import type { Duplex } from 'node:stream';
import { BODY_TIMEOUT, HEADERS_TIMEOUT, HttpTimeoutError } from './http-timeout.js';
import { openConnection, type TlsFiles } from './peer-connection.js';
import { Agent as HttpAgent, request as httpRequest } from './node-http.js';
import { proxyFor } from './proxy-env.js';

export interface HttpClientOptions {
  tls?: TlsFiles;
  connectTimeoutMs: number;
  /** From the request on its connection to the response head; 0: none. */
  headersTimeoutMs: number;
  /** Longest silence of the body while its reader waits; 0: none (a reader with its own watchdog). */
  bodyTimeoutMs: number;
  /** Requests in flight at once; more wait their turn. Unbounded when absent. */
  connections?: number;
  /** How long an idle connection is kept for the next request (default 30 s). */
  keepAliveMs?: number;
  /** Bytes of a response body read ahead of its reader (default: Node's socket default, 16 KiB on Node 20). */
  readHighWaterMark?: number;
  /** Where the proxy variables are read (default process.env); {} for a client that never uses a proxy. */
  env?: NodeJS.ProcessEnv;
}

export interface HttpRequest {
  method?: string;
  headers?: Record<string, string>;
  /** The body, or its chunks in order: written as they are (not joined) behind one Content-Length. */
  body?: Buffer | readonly Buffer[];
  signal?: AbortSignal;
}

export interface HttpResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** Read it to its end or destroy it: until then the connection (and a `connections` slot) is held. */
  body: IncomingMessage;
}

const KEEP_ALIVE_MS = 30_000;

export class HttpClient {
  private readonly agents = new Map<string, HttpAgentType>();
  /** Cancels of connections being opened: a close must not let one finish and carry a request. */
  private readonly opening = new Set<(why: Error) => void>();
  private readonly waiting: Array<() => void> = [];
  private inFlight = 0;
  private closed = false;

  constructor(private readonly o: HttpClientOptions) {}

  request(url: string | URL, r: HttpRequest = {}): Promise<HttpResponse> {
    let target: URL;
    try {
      target = typeof url === 'string' ? new URL(url) : url;
      if (target.protocol !== 'http:' && target.protocol !== 'https:')
        throw new Error(`not an http(s) URL: ${target.protocol}`);
      if (this.closed) throw new Error('the HTTP client is closed');
      r.signal?.throwIfAborted();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return this.turn(r.signal).then(() => this.send(target, r));
  }

  /**
   * Destroys every connection, busy or idle, and every one being opened: a peer that never answers
   * must not hold a shutdown. Requests in flight fail; later ones are refused.
   */
  close(): void {
    this.closed = true;
    const why = new Error('the HTTP client is closed');
    for (const cancel of [...this.opening]) cancel(why);
    for (const agent of this.agents.values()) agent.destroy();
    for (const wake of this.waiting.splice(0)) wake();
  }

  /** Resolves when a `connections` slot is free (at once without a limit); the caller then owns one. */
  private turn(signal: AbortSignal | undefined): Promise<void> {
    const max = this.o.connections;
    if (max === undefined || this.inFlight < max) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.waiting.indexOf(wake);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(abortReason(signal!));
      };
      const wake = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.inFlight++;
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(wake);
    });
  }

  private release(): void {
    this.inFlight--;
    this.waiting.shift()?.();
  }

  private send(url: URL, r: HttpRequest): Promise<HttpResponse> {
    const { headersTimeoutMs, bodyTimeoutMs } = this.o;
    return new Promise<HttpResponse>((resolve, reject) => {
      let res: IncomingMessage | undefined;
      let headersTimer: NodeJS.Timeout | undefined;
      let headersVerdict: NodeJS.Immediate | undefined;
      let abortVerdict: NodeJS.Immediate | undefined;
      let released = false;
      // Declared before `done`, which the failure of http.request itself (ERR_INVALID_CHAR) reaches
      // before any listener is added: a const declared below was still in its dead zone then, a
      // ReferenceError instead of the error, and the connections slot never given back.
      let onAbort: (() => void) | undefined;
      /** Ends this attempt; `keepSlot`: the slot passes to the attempt that sends the request again. */
      const done = (keepSlot = false): void => {
        if (released) return;
        released = true;
        clearTimeout(headersTimer);
        clearImmediate(headersVerdict);
        clearImmediate(abortVerdict);
        if (onAbort) r.signal?.removeEventListener('abort', onAbort);
        if (!keepSlot) this.release();
      };
      let req: ClientRequest;
      try {
        if (this.closed) throw new Error('the HTTP client is closed');
        // Aborted while it waited for its turn: an abort listener added now would never fire.
        r.signal?.throwIfAborted();
        const headers: Record<string, string> = { ...r.headers };
        if (r.body) headers['content-length'] = String(byteLength(r.body));
        const args: ClientRequestArgs = { method: r.method ?? 'GET', headers, agent: this.agentFor(url) };
        req = (url.protocol === 'https:' ? https().request : httpRequest)(url, args);
      } catch (err) {
        done();
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      // A deadline's verdict (the signal's, the headers timer's) waits one turn: see oneTurnLater.
      onAbort = (): void => {
        abortVerdict ??= oneTurnLater(() => {
          if (res?.complete) return;
          const why = abortReason(r.signal!);
          res?.destroy(why);
          req.destroy(why);
        });
      };
      r.signal?.addEventListener('abort', onAbort, { once: true });
      // One listener for the request's whole life: after the answer, a socket error would otherwise
      // be an uncaught 'error' on the request; it belongs to the body then.
      req.on('error', (err) => {
        if (res) {
          res.destroy(err);
          return;
        }
        if (closedUnanswered(req, err) && !this.closed && !r.signal?.aborted) {
          // A kept-alive connection the peer closed as this request came (an idle timeout it does not
          // announce), unread: the request goes again at once on another connection, as browsers
          // do, instead of failing as a network error that delivery backs off from and warns of
          // (it would send the same bytes again after its backoff). Each such retry takes one stale connection out of
          // the pool, so it ends at a new connection, whose failure is the request's.
          done(true);
          resolve(this.send(url, r));
          return;
        }
        done();
        reject(err);
      });
      if (headersTimeoutMs > 0) {
        req.once('socket', () => {
          headersTimer = setTimeout(() => {
            headersVerdict = oneTurnLater(() => {
              if (res !== undefined) return;
              req.destroy(
                new HttpTimeoutError(HEADERS_TIMEOUT, `no response from ${url.host} within ${headersTimeoutMs} ms`),
              );
            });
          }, headersTimeoutMs);
        });
      }
      req.once('response', (answer: IncomingMessage) => {
        res = answer;
        clearTimeout(headersTimer);
        answer.once('close', done);
        if (bodyTimeoutMs > 0) watchBody(answer, bodyTimeoutMs, url.host);
        resolve({ statusCode: answer.statusCode ?? 0, headers: answer.headers, body: answer });
      });
      writeBody(req, r.body);
    });
  }

  /** One agent per scheme and route (direct, or through a given proxy). */
  private agentFor(url: URL): HttpAgentType {
    const proxy = proxyFor(url, this.o.env ?? process.env);
    const key = `${url.protocol}${proxy ? ` via ${proxy.href}` : ''}`;
    let agent = this.agents.get(key);
    if (agent) return agent;
    const secure = url.protocol === 'https:';
    const Base: typeof HttpAgent = secure ? https().Agent : HttpAgent;
    const { tls = {}, connectTimeoutMs, readHighWaterMark } = this.o;
    const opening = this.opening;
    agent = new (class extends Base {
      override createConnection(
        options: ClientRequestArgs,
        opened: (err: Error | null, socket?: Duplex) => void,
      ): undefined {
        const peer = { secure, host: String(options.host), port: Number(options.port) };
        // Declared before the call: a callback that came before openConnection returned must not
        // reach a `cancel` still in its temporal dead zone (a ReferenceError from a timer, exit 1).
        let settled = false;
        let cancel: ((why: Error) => void) | undefined;
        // eslint-disable-next-line prefer-const -- a const would be exactly that dead zone
        cancel = openConnection(
          peer,
          {
            tls,
            timeoutMs: connectTimeoutMs,
            ...(proxy ? { proxy } : {}),
            ...(readHighWaterMark !== undefined ? { readHighWaterMark } : {}),
          },
          (err, socket) => {
            settled = true;
            if (cancel) opening.delete(cancel);
            opened(err, socket);
          },
        );
        if (!settled) opening.add(cancel);
        return undefined;
      }
    })({ keepAlive: true, timeout: this.o.keepAliveMs ?? KEEP_ALIVE_MS, scheduling: 'lifo' });
    this.agents.set(key, agent);
    return agent;
  }
}

/** A kept-alive connection that ended (closed or reset) before any answer to this request came. */
function closedUnanswered(req: ClientRequest, err: Error): boolean {
  const code = (err as { code?: string }).code;
  return req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE');
}

function byteLength(body: Buffer | readonly Buffer[]): number {
  if (Buffer.isBuffer(body)) return body.length;
  let n = 0;
  for (const c of body) n += c.length;
  return n;
}

/**
 * Ends the request with its body. Chunks are written corked: uncorked, each write to a connected
 * socket is a system call of its own; corked, end() hands them all to one writev.
 */
function writeBody(req: ClientRequest, body: Buffer | readonly Buffer[] | undefined): void {
  if (body === undefined || Buffer.isBuffer(body)) return void req.end(body);
  req.cork();
  for (const c of body) if (c.length > 0) req.write(c);
  req.end();
}

/**
 * Fails the body after `ms` without a byte while its reader waits for one. Bytes are counted where
 * they arrive (the socket), not by reading the body, which would take it out of its reader's hands.
 */
function watchBody(body: IncomingMessage, ms: number, host: string): void {
  const socket = body.socket;
  let chunks = 0;
  let verdict: NodeJS.Immediate | undefined;
  const onBytes = (): void => {
    chunks++;
    timer.refresh();
  };
  const silent = (): boolean => !body.complete && body.readableLength === 0;
  const timer = setTimeout(() => {
    // Every byte is in: silence is all that is left to come.
    if (body.complete) return;
    // Unread bytes: the reader paused (back-pressure), so the silence is not the peer's.
    if (body.readableLength > 0) return void timer.refresh();
    // The verdict one turn later, once the bytes waiting in the socket were read (oneTurnLater).
    const seen = chunks;
    verdict = oneTurnLater(() => {
      if (body.destroyed || !silent()) return;
      if (chunks !== seen) return void timer.refresh();
      body.destroy(new HttpTimeoutError(BODY_TIMEOUT, `no bytes from ${host} for ${ms} ms`));
    });
  }, ms);
  socket.on('data', onBytes);
  const stop = (): void => {
    clearTimeout(timer);
    clearImmediate(verdict);
    socket.off('data', onBytes);
  };
  // 'end' before 'close': the connection may go back to the pool between the two.
  body.once('end', stop);
  body.once('close', stop);
}

/**
 * Runs `verdict` one turn of the event loop later: setImmediate runs after the poll phase, which
 * reads the sockets. When the process could not run for longer than a timeout (SIGSTOP, a frozen VM,
 * a blocked loop), libuv runs the due timers first, before the answer that arrived meanwhile is read:
 * deciding then failed requests whose answers were there, and an export sent its records again.
 */
function oneTurnLater(verdict: () => void): NodeJS.Immediate {
  return setImmediate(verdict);
}

/** What an aborted signal fails a request with: its reason (a TimeoutError for AbortSignal.timeout()). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return Object.assign(new Error('the request was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}
