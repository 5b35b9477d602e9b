// The bridge's HTTP surface on BRIDGE_LISTEN (docs/design.md "The operator contract"):
//   GET /healthz            the process is alive and its event loop turns
//   GET /readyz             ready unless the last commit failed, delivered batches cannot be deleted, the
//                           lease is not held or the API key is refused (503 + reasons); read-only
//   GET /metrics            Prometheus text
//   GET /v1/sessions        per-session state, pool lookups, spool
//   GET /v1/sessions/{id}   one session
//   PUT /v1/sessions/{id}   follow a session (JSON body: {pool?, start?, attributes?}); survives restarts
//   DELETE /v1/sessions/{id}
// Who may use /v1/* is decided once at start (control-access.ts): the bearer token when one is set,
// open on loopback, closed beyond loopback unless the documented opt-out is set.
// Errors use the session service's Error shape {code, message}.
//
// Lifecycle: listening (before the bridge exists) → attached → closed. `run` binds the port first,
// so a port in use fails start-up before any session is followed; until the bridge is attached,
// /healthz answers 200 and everything else 503 "starting".
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from '../util/node-http.js';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ConfigError } from '../config/errors.js';
import { parseSessionSpec, SESSION_ID_RULE, validSessionId } from '../config/sessions.js';
import type { Bridge } from '../daemon/bridge.js';
import { SessionLimitError } from '../daemon/session-room.js';
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

const MAX_BODY = 64 * 1024;
/**
 * Requests handled at once; beyond, 503 with Retry-After at once. The port may be open to a whole
 * cluster for scraping: a flood must queue outside, not in front of the store's connections.
 */
const MAX_CONCURRENT_REQUESTS = 32;

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
  /** Names besides loopback literals and `localhost` that requests may use (control.allowed_hosts). */
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
  let inFlight = 0;
  const server: Server = createServer((req, res) => {
    if (inFlight >= MAX_CONCURRENT_REQUESTS) {
      res.setHeader('retry-after', '1');
      send(res, 503, { code: 'busy', message: `more than ${MAX_CONCURRENT_REQUESTS} requests at once; retry` });
      return;
    }
    inFlight++;
    handle(bridge, control, names, req, res)
      .catch((err: unknown) => {
        log.error({ error: (err as Error).message, path: req.url }, 'control request failed');
        if (!res.headersSent) send(res, 500, { code: 'internal_error', message: 'internal error' });
        else res.destroy();
      })
      .finally(() => inFlight--);
  });
  server.keepAliveTimeout = 5000;
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

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const text = type === 'application/json' ? JSON.stringify(body, null, 2) + '\n' : String(body);
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(text);
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

async function readJson(req: IncomingMessage): Promise<unknown> {
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

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function handle(
  bridge: Bridge | undefined,
  control: ControlAccess,
  names: NamePolicy,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://bridge');
  const path = url.pathname;
  const method = req.method ?? 'GET';
  try {
    // DNS rebinding: a page that renamed itself to 127.0.0.1 still sends its own name as Host.
    if (names.checkHost && !hostAllowed(req.headers.host, names.listed)) {
      throw new HttpError(
        403,
        'forbidden',
        'this Host is not served: the bridge listens on loopback and answers only to loopback addresses, localhost or control.allowed_hosts',
      );
    }
    if (path === '/healthz' && method === 'GET') return send(res, 200, { status: bridge ? 'ok' : 'starting' });
    if (!bridge) throw new HttpError(503, 'unavailable', 'the bridge is starting');
    if (path === '/readyz' && method === 'GET') return await ready(bridge, res);
    if (path === '/metrics' && method === 'GET') {
      return send(res, 200, await bridge.metrics.registry.metrics(), bridge.metrics.registry.contentType);
    }
    if (path === '/v1/sessions' || path.startsWith('/v1/sessions/')) {
      if (!originAllowed(req.headers.origin, names.listed)) {
        throw new HttpError(
          403,
          'forbidden',
          'cross-site requests are refused: the Origin is not a loopback address, localhost or in control.allowed_hosts',
        );
      }
      const refused = refusal(control, req);
      if (refused) {
        if (refused.status === 401) res.setHeader('www-authenticate', 'Bearer');
        // A refused change is worth a line (who tried); a refused read is not (scanners, probes).
        if (method === 'PUT' || method === 'DELETE')
          bridge.log.warn(
            { method, path, status: refused.status, remote: req.socket.remoteAddress },
            'control API: change refused',
          );
        throw refused;
      }
      return await sessions(bridge, req, res, method, path);
    }
    return send(res, 404, { code: 'not_found', message: `no route for ${method} ${path}` });
  } catch (err) {
    if (err instanceof HttpError) return send(res, err.status, { code: err.code, message: err.message });
    if (err instanceof ConfigError) return send(res, 400, { code: 'invalid_input', message: err.message });
    throw err;
  }
}

async function ready(bridge: Bridge, res: ServerResponse): Promise<void> {
  // Read-only and from memory: what the spool's own commits found, not a write of its own (a
  // readiness probe must not cost a synchronous SQLite write or a shared-store connection).
  const problems: string[] = [];
  const commitError = bridge.spool.commitError;
  if (commitError !== undefined) problems.push(`store not writable: ${commitError}`);
  const lease = bridge.supervisor.ownership?.lease;
  if (lease && !lease.valid)
    problems.push(
      'lease not held: the shared store is unreachable or too slow to renew it; nothing is read or sent meanwhile',
    );
  // Every stream refused for the API key: nothing is read; say so, and what to check.
  const refused = bridge.supervisor.status().filter((s) => s.state === 'unauthorized');
  if (refused.length > 0)
    problems.push(
      `the service refuses the API key for ${refused.length} session(s) (check ${bridge.client.keySource}); retried every ${Math.round(bridge.config.upstream.backoff.authMs / 1000)} s`,
    );
  // Delivered batches that cannot be deleted: the volume is full, even while commits still squeeze through.
  if (bridge.spool.undeletedBatches > 0)
    problems.push(`spool cannot delete ${bridge.spool.undeletedBatches} delivered batches (disk full?); retrying`);
  // A failing collector does not make the bridge unready: it still reads and spools safely. It is
  // reported here (and in bridge_export_requests_total) so an operator sees it.
  const body = {
    status: problems.length === 0 ? 'ready' : 'not_ready',
    problems,
    exporter: bridge.delivery.exportFailing
      ? {
          failing: true,
          lastError: bridge.delivery.lastError,
          ...(bridge.delivery.refusing ? { refusingAll: bridge.delivery.refusing } : {}),
        }
      : { failing: false },
    // The shared store may be the very thing that is unreachable.
    spool: await bridge.spoolFigures().then(
      (s) => {
        const pausedMs = bridge.spool.memoryDeliveryPausedMs;
        return {
          ...s,
          limitedByDisk: bridge.spool.limitedByDisk,
          // Delivery from memory waits for checkpoint writes (the store's failing commits say why).
          ...(pausedMs !== undefined ? { deliveryPausedMs: pausedMs } : {}),
        };
      },
      () => null,
    ),
    ...(bridge.supervisor.ownership
      ? {
          replica: bridge.config.replicaId,
          lease: { valid: bridge.supervisor.ownership.lease.valid },
          replicas: bridge.supervisor.ownership.replicas,
        }
      : {}),
  };
  send(res, problems.length === 0 ? 200 : 503, body);
}

async function sessions(
  bridge: Bridge,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  path: string,
): Promise<void> {
  const sup = bridge.supervisor;
  if (path === '/v1/sessions') {
    if (method !== 'GET')
      throw new HttpError(405, 'method_not_allowed', 'use GET on /v1/sessions, PUT/DELETE on /v1/sessions/{id}');
    return send(res, 200, {
      sessions: await sup.statusWithOwners(),
      pools: bridge.pools.poolStatus(),
      spool: await bridge.store.spoolStats(),
      // Recorded, not followed while max_sessions are; followed as others end.
      ...(sup.waitingForRoom().length > 0
        ? { waiting: { maxSessions: bridge.config.maxSessions, sessions: sup.waitingForRoom() } }
        : {}),
      ...(sup.ownership ? { replica: bridge.config.replicaId } : {}),
    });
  }
  const id = decodeId(path.slice('/v1/sessions/'.length));
  if (!validSessionId(id)) throw new HttpError(400, 'invalid_input', `session id ${SESSION_ID_RULE}`);
  if (method === 'GET') {
    const s = sup.session(id) ?? (sup.ownership ? (await sup.statusWithOwners()).find((x) => x.id === id) : undefined);
    if (!s) throw new HttpError(404, 'not_found', `session ${id} is not followed`);
    return send(res, 200, s);
  }
  if (method === 'PUT') {
    const body = await readJson(req);
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new HttpError(400, 'invalid_input', 'body must be a JSON object');
    const spec = parseSessionSpec({ ...(body as Record<string, unknown>), id }, 'body');
    // Every fresh id opens a stream and stores a row: a client must not be able to grow that without
    // bound. An id already followed may still be updated at the cap. Asked here before the service
    // is, and again by the supervisor, whose count holds for PUTs that run at the same moment.
    const cap = bridge.config.maxSessions;
    if (sup.followedCount >= cap && !sup.isWaiting(id) && !sup.followed().some((f) => f.spec.id === id))
      refuseOverLimit(bridge, req, res, id, new SessionLimitError(sup.followedCount, cap));
    // A mistyped id is refused here, not followed as if it had ended. When the service cannot be
    // asked now, the session is followed (202) and its stream's 404 is checked the same way later.
    const known = await sessionKnown(bridge, id);
    if (known === false)
      throw new HttpError(
        404,
        'unknown_session',
        `the service does not know session ${id} (GET /browsers/{id}?include_deleted=true is 404)`,
      );
    const r = await sup.add(spec, 'api').catch((err: unknown) => {
      if (err instanceof SessionLimitError) refuseOverLimit(bridge, req, res, id, err);
      throw err;
    });
    // Every change to what the bridge follows leaves a line: who asked, and what it is now.
    bridge.log.info(
      {
        session: id,
        pool: spec.pool,
        start: spec.start,
        attributes: Object.keys(spec.attributes),
        remote: req.socket.remoteAddress,
      },
      r.created
        ? 'control API: session added; followed from now on and after a restart'
        : 'control API: session settings replaced',
    );
    return send(res, known === true ? (r.created ? 201 : 200) : 202, r.status);
  }
  if (method === 'DELETE') {
    if (!(await sup.remove(id))) throw new HttpError(404, 'not_found', `session ${id} is not followed`);
    bridge.log.info(
      { session: id, remote: req.socket.remoteAddress },
      'control API: session removed; no longer followed',
    );
    res.writeHead(204).end();
    return;
  }
  throw new HttpError(405, 'method_not_allowed', `${method} is not supported on /v1/sessions/{id}`);
}

/** A PUT of one session more than max_sessions: 429, counted and logged (one fact). */
function refuseOverLimit(
  bridge: Bridge,
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
  err: SessionLimitError,
): never {
  bridge.emit({
    f: 'session_refused',
    sessions: [id],
    source: 'api',
    followed: err.followed,
    limit: err.limit,
    remote: req.socket.remoteAddress ?? '',
  });
  res.setHeader('retry-after', '60');
  throw new HttpError(429, 'too_many_sessions', err.message);
}

/** Whether the service knows the session (ended ones included); undefined when it cannot be asked now. */
async function sessionKnown(bridge: Bridge, id: string): Promise<boolean | undefined> {
  try {
    const r = await bridge.client.getSession(id, AbortSignal.timeout(5000));
    if (r.kind === 'ok') return true;
    return r.status === 404 ? false : undefined;
  } catch {
    return undefined;
  }
}

function decodeId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    // A malformed percent-encoding (%zz, a lone %) is the client's mistake, not the bridge's.
    throw new HttpError(400, 'invalid_input', 'session id is not valid percent-encoding');
  }
}
