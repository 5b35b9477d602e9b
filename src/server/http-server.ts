// The bridge's HTTP surface on BRIDGE_LISTEN (docs/design.md "The operator contract"):
//   GET /healthz            the process is alive and its event loop turns
//   GET /readyz             ready unless the last commit failed, delivered batches cannot be deleted, the
//                           lease is not held or the API key is refused (503 + reasons); read-only
//   GET /metrics            Prometheus text
//   GET /v1/sessions        per-session state, pool lookups, spool
//   GET /v1/sessions/{id}   one session
//   PUT /v1/sessions/{id}   follow a session (JSON body: {pool?, start?, attributes?}); survives restarts
//   DELETE /v1/sessions/{id}
// HEAD answers as GET without a body; another method on a route is 405 with Allow.
// Who may use /v1/* is decided once at start (control-access.ts): the bearer token when one is set,
// open on loopback, closed beyond loopback unless the documented opt-out is set. This file binds the
// port and routes; the routes' answers are readiness.ts and sessions-route.ts, and every answer
// (errors in the session service's Error shape {code, message}) is written by http-reply.ts.
//
// Lifecycle: listening (before the bridge exists) → attached → closed. `run` binds the port first,
// so a port in use fails start-up before any session is followed; until the bridge is attached,
// /healthz answers 200 and everything else 503 "starting".
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from '../util/node-http.js';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ConfigError } from '../config/errors.js';
import type { Bridge } from '../daemon/bridge.js';
import {
  allowedHostSet,
  bearerToken,
  decideControlAccess,
  hostAllowed,
  isLoopback,
  originAllowed,
  tokenMatches,
  type ControlAccess,
} from './control-access.js';
import { HttpError, methodNotAllowed, send } from './http-reply.js';
import { limitConnections, SERVER_TIMEOUTS } from './connection-limits.js';
import { ready } from './readiness.js';
import { sessions } from './sessions-route.js';

/**
 * Requests handled at once, by kind; beyond, 503 with Retry-After at once. The port may be open to a
 * whole cluster for scraping: a flood must queue outside, not in front of the store's connections.
 * Probes (/readyz, /metrics) and the control API have slots of their own, so control requests whose
 * bodies arrive a byte a second cannot turn the probes away; /healthz takes none (it answers from
 * memory, at once: a liveness probe must not fail because the surface is busy).
 */
const MAX_CONCURRENT_REQUESTS = { probe: 32, control: 16 } as const;
type RequestKind = keyof typeof MAX_CONCURRENT_REQUESTS;

/** The routes that only answer reads: GET and HEAD. */
const READ_ONLY: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

export interface HttpSurface {
  readonly url: string;
  /** What the control API is at this address (for the start-up log). */
  readonly control: ControlAccess;
  /** Starts serving readiness, metrics and control from this bridge. */
  attach(bridge: Bridge): void;
  close(): Promise<void>;
}

export interface HttpOptions {
  /** BRIDGE_CONTROL_TOKEN. */
  token?: string | undefined;
  /** The opt-out: serve the control API beyond loopback without a token. */
  insecure?: boolean;
  /** Names besides loopback literals and `localhost` that requests may use (control_allowed_hosts). */
  allowedHosts?: readonly string[] | undefined;
}

/** Which Host and Origin names the surface serves (control-access.ts, "Names"). */
interface NamePolicy {
  /** On loopback the Host header is checked on every route. */
  checkHost: boolean;
  listed: ReadonlySet<string>;
}

/** Binds the port; rejects (EADDRINUSE, EACCES, …) before anything else has started. */
export async function listenHttp(
  listen: { host: string; port: number },
  log: Logger,
  opts: HttpOptions = {},
): Promise<HttpSurface> {
  const control = decideControlAccess(listen.host, opts.token, opts.insecure === true);
  const names: NamePolicy = { checkHost: isLoopback(listen.host), listed: allowedHostSet(opts.allowedHosts) };
  let bridge: Bridge | undefined;
  const inFlight: Record<RequestKind, number> = { probe: 0, control: 0 };
  const server: Server = createServer(SERVER_TIMEOUTS, (req, res) => {
    const kind = requestKind(req.url);
    if (kind !== undefined && inFlight[kind] >= MAX_CONCURRENT_REQUESTS[kind]) {
      res.setHeader('retry-after', '1');
      send(res, 503, {
        code: 'busy',
        message: `more than ${MAX_CONCURRENT_REQUESTS[kind]} ${kind} requests at once; retry`,
      });
      return;
    }
    if (kind !== undefined) inFlight[kind]++;
    handle(bridge, control, names, req, res)
      .catch((err: unknown) => {
        // A client that went away in the middle of its body: nothing to answer, nothing to report.
        if (req.destroyed && !req.complete) return void res.destroy();
        log.error({ error: (err as Error).message, path: req.url }, 'control request failed');
        // The one store failure a caller can act on, said as it is (store/state-file-check.ts).
        if (!res.headersSent && (err as { code?: string }).code === 'STATE_FILE_GONE')
          send(res, 503, { code: 'state_file_gone', message: (err as Error).message });
        else if (!res.headersSent) send(res, 500, { code: 'internal_error', message: 'internal error' });
        else res.destroy();
      })
      .finally(() => {
        if (kind !== undefined) inFlight[kind]--;
      });
  });
  server.keepAliveTimeout = 5000;
  limitConnections(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address() as AddressInfo;
  const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return {
    url: `http://${host}:${a.port}`,
    control,
    attach: (b) => {
      bridge = b;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The path a request is routed by, its dot segments resolved (`/healthz/../v1/sessions` is the
 * control API); undefined when the target is no URL (an absolute form such as `http://[::1/`,
 * which Node's parser lets through).
 */
function routePath(url: string | undefined): string | undefined {
  try {
    return new URL(url ?? '/', 'http://bridge').pathname;
  } catch {
    return undefined;
  }
}

/** Which slots a request takes: none for /healthz (or a target that is no URL), the control API's, or the probes'. */
function requestKind(url: string | undefined): RequestKind | undefined {
  // Decided on the path the router reads: slow PUTs sent to the control API by another spelling
  // took the probes' slots, and /readyz answered busy.
  const path = routePath(url);
  if (path === undefined || path === '/healthz') return undefined;
  return path === '/v1/sessions' || path.startsWith('/v1/sessions/') ? 'control' : 'probe';
}

/** listenHttp + attach, for callers that already have a bridge (tests, demo). */
export async function startHttpServer(
  bridge: Bridge,
  listen: { host: string; port: number },
  log: Logger,
  opts: HttpOptions = { token: bridge.config.controlToken, allowedHosts: bridge.config.controlAllowedHosts },
): Promise<HttpSurface> {
  const surface = await listenHttp(listen, log, opts);
  surface.attach(bridge);
  return surface;
}

/** Null when the request may use the control API, else the refusal to send. */
function refusal(control: ControlAccess, req: IncomingMessage): HttpError | null {
  switch (control.mode) {
    case 'open-loopback':
    case 'open-insecure':
      return null;
    case 'closed':
      return new HttpError(
        403,
        'forbidden',
        'the control API is disabled: the bridge listens beyond loopback and no BRIDGE_CONTROL_TOKEN is set (set one, or BRIDGE_CONTROL_INSECURE=true to open it anyway)',
      );
    case 'token':
      return tokenMatches(bearerToken(req.headers.authorization), control.token)
        ? null
        : new HttpError(401, 'unauthorized', 'missing or invalid control token');
  }
}

async function handle(
  bridge: Bridge | undefined,
  control: ControlAccess,
  names: NamePolicy,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = routePath(req.url);
  // HEAD is GET without the body (RFC 9110 9.3.2): node:http leaves the body of a HEAD answer out.
  const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
  try {
    if (path === undefined) throw new HttpError(400, 'invalid_input', 'the request target is not a valid URL');
    // DNS rebinding: a page that renamed itself to 127.0.0.1 still sends its own name as Host.
    if (names.checkHost && !hostAllowed(req.headers.host, names.listed)) {
      throw new HttpError(
        403,
        'forbidden',
        'this Host is not served: the bridge listens on loopback and answers only to loopback addresses, localhost or the names in control_allowed_hosts (BRIDGE_CONTROL_ALLOWED_HOSTS)',
      );
    }
    if (READ_ONLY.has(path) && method !== 'GET') throw methodNotAllowed(req.method ?? method, path, ['GET', 'HEAD']);
    if (path === '/healthz') return send(res, 200, { status: bridge ? 'ok' : 'starting' });
    if (!bridge) throw new HttpError(503, 'unavailable', 'the bridge is starting');
    if (path === '/readyz') return await ready(bridge, res);
    if (path === '/metrics') {
      return send(res, 200, await bridge.metrics.registry.metrics(), bridge.metrics.registry.contentType);
    }
    if (path === '/v1/sessions' || path.startsWith('/v1/sessions/')) {
      if (!originAllowed(req.headers.origin, names.listed)) {
        throw new HttpError(
          403,
          'forbidden',
          'cross-site requests are refused: the Origin is not a loopback address, localhost or in control_allowed_hosts (BRIDGE_CONTROL_ALLOWED_HOSTS)',
        );
      }
      const refused = refusal(control, req);
      if (refused) {
        if (refused.status === 401) res.setHeader('www-authenticate', 'Bearer');
        throw refused;
      }
      return await sessions(bridge, req, res, method, path);
    }
    return send(res, 404, { code: 'not_found', message: `no route for ${req.method ?? method} ${path}` });
  } catch (err) {
    const answer =
      err instanceof HttpError
        ? err
        : err instanceof ConfigError
          ? new HttpError(400, 'invalid_input', err.message)
          : undefined;
    if (answer === undefined) throw err;
    // A refused change is worth a line, whatever refused it (the token, the origin, an unknown
    // session, an invalid body, the session cap): who tried, and why not. A refused read is not
    // (scanners, probes). The socket is gone by now when the body was cut off at its limit (413).
    if ((method === 'PUT' || method === 'DELETE') && (path === '/v1/sessions' || path?.startsWith('/v1/sessions/'))) {
      bridge?.log.warn(
        { method, path, status: answer.status, code: answer.code, remote: req.socket?.remoteAddress },
        'control API: change refused',
      );
    }
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    return send(res, answer.status, { code: answer.code, message: answer.message });
  }
}
