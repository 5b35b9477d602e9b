// The service operations the bridge uses (a session's name is taken wherever its id is):
// GET /browsers/{id}/telemetry/stream and
// GET /browser_pools/{id_or_name}, and the archive the real service also has,
// GET /browsers/{id}/telemetry/events (docs/service-api.md "Archive"; absent when the
// simulator runs with archiveSize 0, as an older service), and the session list, GET /browsers
// (docs/service-api.md "Session list", browser-list.ts; absent with listRoute: false). Order of
// checks on the stream, by design: bearer auth first (docs/service-api.md "Authentication" 2),
// then injected faults, then the session lookup
// (502 while an ended session's VM goes away, then 404), then the stream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError, sendInjectedFailure, sendJson } from './http-util.js';
import type { SimPool } from './pools.js';
import { findPool } from './pools.js';
import type { Session } from './session.js';
import { StreamConnection } from './stream-connection.js';
import { listBrowsers } from './browser-list.js';
import type { Faults, SimStats } from './types.js';

export interface ServiceContext {
  apiKeys: ReadonlySet<string>;
  keepaliveMs: number;
  faults(): Faults;
  sessions: Map<string, Session>;
  pools: Map<string, SimPool>;
  stats: SimStats;
  /** Whether the archive route exists. */
  archive: boolean;
  /** Whether the session list (GET /browsers) exists. */
  list: boolean;
}

const STREAM_PATH = /^\/browsers\/([^/]+)\/telemetry\/stream$/;
const ARCHIVE_PATH = /^\/browsers\/([^/]+)\/telemetry\/events$/;
const POOL_PATH = /^\/browser_pools\/([^/]+)$/;
const SESSION_PATH = /^\/browsers\/([^/]+)$/;

export function handleServiceRequest(ctx: ServiceContext, req: IncomingMessage, res: ServerResponse, url: URL): void {
  ctx.stats.requests++;
  try {
    route(ctx, req, res, url);
  } finally {
    // Every branch answers synchronously, so the status is known here.
    if (res.headersSent) ctx.stats.byStatus[res.statusCode] = (ctx.stats.byStatus[res.statusCode] ?? 0) + 1;
  }
}

function route(ctx: ServiceContext, req: IncomingMessage, res: ServerResponse, url: URL): void {
  if (!authorized(ctx, req)) {
    sendError(res, 401, 'Missing or invalid authorization token', 'unauthorized', { 'WWW-Authenticate': 'Bearer' });
    return;
  }
  if (ctx.list && url.pathname === '/browsers') {
    ctx.stats.listRequests++;
    if (req.method !== 'GET') sendError(res, 405, `${req.method ?? ''} not allowed`, undefined, { Allow: 'GET' });
    else listBrowsers(ctx.sessions, ctx.faults(), res, url);
    return;
  }
  const stream = STREAM_PATH.exec(url.pathname);
  const archive = stream || !ctx.archive ? null : ARCHIVE_PATH.exec(url.pathname);
  const pool = stream || archive ? null : POOL_PATH.exec(url.pathname);
  const browser = stream || archive || pool ? null : SESSION_PATH.exec(url.pathname);
  if (!stream && !archive && !pool && !browser) {
    sendError(res, 404, `no route for ${url.pathname}`);
    return;
  }
  if (req.method !== 'GET') {
    sendError(res, 405, `${req.method ?? ''} not allowed`, undefined, { Allow: 'GET' });
    return;
  }
  const id = safeDecode(((stream ?? archive ?? pool ?? browser) as RegExpExecArray)[1] as string);
  if (id === undefined) sendError(res, 400, 'malformed path parameter');
  else if (stream) openStream(ctx, req, res, url, id);
  else if (archive) listEvents(ctx, res, url, id);
  else if (pool) getPool(ctx, res, id);
  else getBrowser(ctx, res, url, id);
}

/**
 * A session by id or by name, as every `/browsers/{id_or_name}/…` route of the service takes
 * either (docs/service-api.md "Session names on sub-routes"): the id first; else the live session
 * of that name, else the newest ended one.
 */
export function findSession(sessions: ReadonlyMap<string, Session>, ref: string): Session | undefined {
  const byId = sessions.get(ref);
  if (byId) return byId;
  let found: Session | undefined;
  for (const s of sessions.values()) {
    if (s.name !== ref) continue;
    if (!s.ended) return s;
    if (found === undefined || s.createdAt > found.createdAt) found = s;
  }
  return found;
}

export function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

function authorized(ctx: ServiceContext, req: IncomingMessage): boolean {
  const header = req.headers.authorization;
  if (!header) return false;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m !== null && ctx.apiKeys.has(m[1] as string);
}

function openStream(ctx: ServiceContext, req: IncomingMessage, res: ServerResponse, url: URL, id: string): void {
  const faults = ctx.faults();
  const fail = faults.failNext.shift();
  if (fail) {
    const headers =
      fail.status === 429 || fail.retryAfterSeconds !== undefined
        ? { 'Retry-After': String(fail.retryAfterSeconds ?? 1) }
        : {};
    sendError(res, fail.status, `injected failure (${fail.status})`, fail.code, headers);
    return;
  }
  if (faults.wrongContentType > 0) {
    faults.wrongContentType--;
    const body = 'upstream proxy: service temporarily unavailable\n';
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  const session = findSession(ctx.sessions, id);
  if (session?.ended && session.serverErrorsLeft > 0) {
    // The VM is going away: the proxy in front of it still routes there for a moment.
    session.serverErrorsLeft--;
    sendError(res, 502, `browser session ${id} is unavailable`, 'bad_gateway');
    return;
  }
  if (!session || session.ended) {
    sendError(res, 404, `browser session ${id} not found`);
    return;
  }

  // Start position (rules 4-6): Last-Event-ID wins over replay=all; without either, only new events.
  // Last-Event-ID 0 names no event: from now, as the real service does. One beyond the current seq
  // comes from a client that knew an earlier epoch (faults.staleResume: wait for seq to pass it, or
  // replay from the oldest retained event).
  const lastEventId = parseLastEventId(req.headers['last-event-id']);
  let startAfter: number;
  if (lastEventId !== undefined && lastEventId > 0) {
    startAfter = lastEventId > session.lastSeq && faults.staleResume === 'replay' ? 0 : lastEventId;
  } else if (lastEventId === undefined && url.searchParams.get('replay') === 'all') startAfter = 0;
  else startAfter = session.lastSeq;

  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    // The real service asks proxies (nginx) not to buffer the stream.
    'X-Accel-Buffering': 'no',
    'X-SSE-Content-Type': 'application/json',
  });
  // Headers go out now, so a client sees the 200 even when no event follows (rule 7).
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  ctx.stats.activeStreams++;
  const conn = new StreamConnection(res, session, startAfter, {
    faults: () => ctx.faults(),
    keepaliveMs: ctx.keepaliveMs,
    onClose: () => {
      ctx.stats.activeStreams--;
    },
  });
  session.attach(conn);
}

/** A non-numeric or empty Last-Event-ID is ignored, as if absent. */
function parseLastEventId(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || !/^\s*\d+\s*$/.test(v)) return undefined;
  const n = Number(v.trim());
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * GET /browsers/{id}: the session; an ended (deleted) one only with include_deleted=true, as the real
 * service and its SDKs do. A session never created is 404 either way.
 */
function getBrowser(ctx: ServiceContext, res: ServerResponse, url: URL, id: string): void {
  const session = findSession(ctx.sessions, id);
  if (!session || (session.ended && url.searchParams.get('include_deleted') !== 'true')) {
    sendError(res, 404, `browser session ${id} not found`);
    return;
  }
  sendJson(res, 200, {
    session_id: session.id,
    ...(session.name !== undefined ? { name: session.name } : {}),
    deleted_at: session.ended ? new Date().toISOString() : null,
    ...(session.poolId !== undefined ? { pool: { id: session.poolId } } : {}),
    telemetry: session.telemetryConfig,
  });
}

/**
 * GET /browsers/{id}/telemetry/events: a page of the archive; an empty list when there is no data.
 * A session that never existed is 404, as on the real service.
 */
function listEvents(ctx: ServiceContext, res: ServerResponse, url: URL, id: string): void {
  const fail = ctx.faults().archiveFailNext?.shift();
  if (fail) return sendInjectedFailure(res, fail);
  const session = findSession(ctx.sessions, id);
  if (!session) {
    sendError(res, 404, `browser session ${id} not found`);
    return;
  }
  const r = session.archive.query(url.searchParams, Date.now() * 1000);
  if (!r.ok) {
    sendError(res, 400, r.message, 'invalid_input');
    return;
  }
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(r.page.body)),
    'X-Has-More': String(r.page.hasMore),
  };
  if (r.page.nextOffset !== undefined) headers['X-Next-Offset'] = r.page.nextOffset;
  res.writeHead(200, headers);
  res.end(r.page.body);
}

function getPool(ctx: ServiceContext, res: ServerResponse, idOrName: string): void {
  const pool = findPool(ctx.pools, idOrName);
  if (!pool) sendError(res, 404, `browser pool ${idOrName} not found`);
  else sendJson(res, 200, pool);
}
