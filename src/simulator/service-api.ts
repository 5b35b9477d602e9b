// The two service operations the bridge uses (spec: Endpoints): GET /browsers/{id}/telemetry/stream
// and GET /browser_pools/{id_or_name}. Order of checks on the stream, by design: bearer auth first
// (spec: Authentication 3), then injected faults, then the session lookup (404), then the stream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError, sendJson } from './http-util.js';
import type { SimPool } from './pools.js';
import { findPool } from './pools.js';
import type { Session } from './session.js';
import { StreamConnection } from './stream-connection.js';
import type { Faults, SimStats } from './types.js';

export interface ServiceContext {
  apiKeys: ReadonlySet<string>;
  keepaliveMs: number;
  faults(): Faults;
  sessions: Map<string, Session>;
  pools: Map<string, SimPool>;
  stats: SimStats;
}

const STREAM_PATH = /^\/browsers\/([^/]+)\/telemetry\/stream$/;
const POOL_PATH = /^\/browser_pools\/([^/]+)$/;

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
  const stream = STREAM_PATH.exec(url.pathname);
  const pool = stream ? null : POOL_PATH.exec(url.pathname);
  if (!stream && !pool) {
    sendError(res, 404, `no route for ${url.pathname}`);
    return;
  }
  if (req.method !== 'GET') {
    sendError(res, 405, `${req.method ?? ''} not allowed`, undefined, { Allow: 'GET' });
    return;
  }
  const id = safeDecode(((stream ?? pool) as RegExpExecArray)[1] as string);
  if (id === undefined) sendError(res, 400, 'malformed path parameter');
  else if (stream) openStream(ctx, req, res, url, id);
  else getPool(ctx, res, id);
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
    const headers = fail.status === 429 || fail.retryAfterSeconds !== undefined ? { 'Retry-After': String(fail.retryAfterSeconds ?? 1) } : {};
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
  const session = ctx.sessions.get(id);
  if (!session || session.ended) {
    sendError(res, 404, `browser session ${id} not found`);
    return;
  }

  // Start position (rules 4-6): Last-Event-ID wins over replay=all; without either, only new events.
  const lastEventId = parseLastEventId(req.headers['last-event-id']);
  let startAfter: number;
  if (lastEventId !== undefined) startAfter = lastEventId;
  else if (url.searchParams.get('replay') === 'all') startAfter = 0;
  else startAfter = session.lastSeq;

  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-SSE-Content-Type': 'application/json',
  });
  // Headers go out now, so a client sees the 200 even when no event follows (rule 7).
  res.flushHeaders();
  res.socket?.setNoDelay(true);
  ctx.stats.activeStreams++;
  const conn = new StreamConnection(res, session, startAfter, {
    faults: ctx.faults,
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

function getPool(ctx: ServiceContext, res: ServerResponse, idOrName: string): void {
  const pool = findPool(ctx.pools, idOrName);
  if (!pool) sendError(res, 404, `browser pool ${idOrName} not found`);
  else sendJson(res, 200, pool);
}
