// HTTP client of the session service (node:http, through util/http-client.ts). Four operations: streamBrowserTelemetry, the browser
// pool lookup, the telemetry archive and the session list (docs/service-api.md "Stream telemetry
// events", "Browser pool", "Archive", "Session list"; see upstream/archive.ts and
// upstream/browser-list.ts). Results at this boundary are values, not
// exceptions, except for network failures (connection refused, reset, timeout), which throw. How the
// bodies are read (capped, paced, discarded) is upstream/read-body.ts.
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { TlsFiles } from '../config/tls.js';
import { HttpClient } from '../util/http-client.js';
import { createApiKeyProvider, type ApiKeyProvider } from './api-key.js';
import type { UpstreamConfig } from '../config/schema.js';
import { BRIDGE_VERSION } from '../util/version.js';
import { parseApiError, redirectError, type ApiErrorBody } from './api-error.js';
import { parseRetryAfter } from '../util/backoff.js';
import { listSearchParams, parseListPage, type BrowserListQuery, type ListPage } from './browser-list.js';
import { limitConcurrency } from '../util/concurrency-limit.js';
import { MIN_BODY_RATE, readPaced, type LargeBodyGate } from './read-body.js';
import { readableBody, readCapped, type StreamBody } from './stream-body.js';
import { requestStream } from './stream-request.js';
import { proxyFor } from '../util/proxy-env.js';

/**
 * Pool lookups in flight at once per client. Every new pool reference (a PUT with a pool the bridge
 * has not seen) is looked up at once; without a bound a burst of them is a burst at the service.
 */
export const MAX_POOL_LOOKUPS = 4;

/**
 * One id as one path segment. encodeURIComponent leaves `.` alone, and a segment of dots only is a
 * dot-segment the URL parser removes (RFC 3986 §5.2.4): `..` would turn the stream of a session into
 * `GET {base}/telemetry/stream` with the key. Ids are checked where they enter (config/sessions.ts);
 * this is the last door before the key is sent, so it throws rather than asks.
 */
export function idSegment(id: string): string {
  if (id === '' || /^\.+$/.test(id)) throw new Error(`refusing to request an id that is empty or dots only ("${id}")`);
  return encodeURIComponent(id);
}

/**
 * Bytes of a node:http body buffered ahead of its reader before reading from the socket stops (Node
 * 22's default is 64 KiB): a thousand https:// or proxied streams may each hold this much read-ahead
 * (plus a 64 KiB read) in memory. Plain http:// streams are read without it (stream-request.ts).
 */
const STREAM_HIGH_WATER_MARK = 16 * 1024;

export interface StreamPosition {
  /** Resume strictly after this seq (Last-Event-ID); wins over replayAll (docs/service-api.md "Stream telemetry events" rule 3). */
  lastEventId?: number;
  /** replay=all: start from the oldest retained event (docs/service-api.md "Stream telemetry events" rule 3). */
  replayAll: boolean;
}

export type OpenStreamResult =
  | { kind: 'stream'; body: StreamBody }
  | { kind: 'error'; status: number; error: ApiErrorBody; retryAfterMs?: number }
  | { kind: 'bad-content-type'; status: number; contentType: string };

export type GetResult<T> =
  { kind: 'ok'; value: T } | { kind: 'error'; status: number; error: ApiErrorBody; retryAfterMs?: number };

export interface ArchivePageQuery {
  /** 1..100 (the service's bound). */
  limit: number;
  offset?: string;
  /** RFC 3339; the service defaults to 5 minutes ago, so a reader of older history must say. */
  since?: string;
  order?: 'asc' | 'desc';
}

export type ArchivePageResult =
  | { kind: 'ok'; items: unknown[]; hasMore: boolean; nextOffset?: string }
  | { kind: 'error'; status: number; error: ApiErrorBody; retryAfterMs?: number };

export type ListPageResult =
  ({ kind: 'ok' } & ListPage) | { kind: 'error'; status: number; error: ApiErrorBody; retryAfterMs?: number };

export interface UpstreamClientOptions {
  baseUrl: string;
  apiKey: ApiKeyProvider;
  connectTimeoutMs: number;
  userAgent?: string;
  /** A private CA for the service's certificate. */
  tls?: TlsFiles;
  /** Bytes per second a JSON body must average after the first connectTimeoutMs (default MIN_BODY_RATE). */
  minBodyRate?: number;
}

export class UpstreamClient {
  private readonly http: HttpClient;
  /** Stream connections on sockets of our own, destroyed by close() as the HTTP client's are. */
  private readonly ownSockets = new Set<Socket>();
  private closed = false;

  constructor(private readonly opts: UpstreamClientOptions) {
    // No body timeout: the subscriber runs its own idle watchdog, which must not fire while it
    // pauses reading on purpose (back-pressure).
    this.http = new HttpClient({
      tls: opts.tls ?? {},
      connectTimeoutMs: opts.connectTimeoutMs,
      headersTimeoutMs: opts.connectTimeoutMs,
      bodyTimeoutMs: 0,
      readHighWaterMark: STREAM_HIGH_WATER_MARK,
    });
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      authorization: `Bearer ${this.opts.apiKey.get()}`,
      'user-agent': this.opts.userAgent ?? 'browser-telemetry-bridge',
      ...extra,
    };
  }

  /**
   * GET /browsers/{id}/telemetry/stream. Without a proxy it is read on a socket of the bridge's own,
   * TLS for https:// (upstream/stream-request.ts: no per-session read buffering); through a proxy
   * it goes through node:http.
   */
  async openStream(sessionId: string, pos: StreamPosition, signal: AbortSignal): Promise<OpenStreamResult> {
    const url = new URL(`${this.opts.baseUrl}/browsers/${idSegment(sessionId)}/telemetry/stream`);
    const extra: Record<string, string> = { accept: 'text/event-stream', 'cache-control': 'no-cache' };
    if (pos.lastEventId !== undefined && pos.lastEventId > 0) extra['last-event-id'] = String(pos.lastEventId);
    else if (pos.replayAll) url.searchParams.set('replay', 'all');
    const headers = this.headers(extra);
    let res: { statusCode: number; headers: Record<string, string | string[] | undefined>; body: StreamBody };
    if (proxyFor(url) === undefined) {
      if (this.closed) throw new Error('the HTTP client is closed');
      const { connectTimeoutMs, tls } = this.opts;
      res = await requestStream(
        { url, headers, signal, connectTimeoutMs, headersTimeoutMs: connectTimeoutMs, ...(tls ? { tls } : {}) },
        this.ownSockets,
      );
    } else {
      const answer = await this.http.request(url, { method: 'GET', headers, signal });
      res = { statusCode: answer.statusCode, headers: answer.headers, body: readableBody(answer.body) };
    }
    if (res.statusCode !== 200) {
      const text = await readCapped(res.body, this.opts.connectTimeoutMs);
      const out: OpenStreamResult = {
        kind: 'error',
        status: res.statusCode,
        error: answerError(res.statusCode, text, res.headers.location, url),
      };
      const ra = parseRetryAfter(res.headers['retry-after']);
      if (ra !== undefined) out.retryAfterMs = ra;
      return out;
    }
    const ct = String(res.headers['content-type'] ?? '');
    if (!/^text\/event-stream\b/i.test(ct)) {
      res.body.destroy();
      return { kind: 'bad-content-type', status: res.statusCode, contentType: ct || '(none)' };
    }
    return { kind: 'stream', body: res.body };
  }

  /**
   * One GET of a JSON page (the archive, the session list): a non-200 answer as the service's error
   * with its Retry-After, a body that is not JSON as an invalid response naming `what`.
   */
  private async getJson(
    url: string | URL,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
    maxBytes: number,
    what: string,
    gate?: LargeBodyGate,
  ): Promise<
    | { kind: 'error'; status: number; error: ApiErrorBody; retryAfterMs?: number }
    | { kind: 'json'; body: unknown; headers: IncomingHttpHeaders }
  > {
    const res = await this.http.request(url, { method: 'GET', headers: this.headers(headers), signal });
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    if (!ok) {
      const text = await readCapped(readableBody(res.body), this.opts.connectTimeoutMs, maxBytes);
      const ra = parseRetryAfter(res.headers['retry-after']);
      return {
        kind: 'error',
        status: res.statusCode,
        error: answerError(res.statusCode, text, res.headers.location, url),
        ...(ra !== undefined ? { retryAfterMs: ra } : {}),
      };
    }
    // A page of 100 screenshots is tens of megabytes: its deadline grows with what arrives. A body
    // cut short (a reset, a stall) is a network failure the caller may retry, not "not JSON".
    const { text, cut } = await readPaced(res.body, {
      timeoutMs: this.opts.connectTimeoutMs,
      maxBytes,
      minBytesPerSecond: this.opts.minBodyRate ?? MIN_BODY_RATE,
      ...(gate !== undefined ? { gate } : {}),
    });
    if (cut !== undefined) throw new Error(`${what} cut short: ${cut}`);
    try {
      return { kind: 'json', body: JSON.parse(text) as unknown, headers: res.headers };
    } catch {
      return {
        kind: 'error',
        status: res.statusCode,
        error: { code: 'invalid_response', message: `${what} is not JSON` },
      };
    }
  }

  /**
   * GET /browsers/{id}/telemetry/events: one page of the archive. `offset` is the opaque cursor of
   * the previous page's X-Next-Offset, passed back as it came.
   */
  async listEvents(
    sessionId: string,
    q: ArchivePageQuery,
    signal?: AbortSignal,
    gate?: LargeBodyGate,
  ): Promise<ArchivePageResult> {
    const url = new URL(`${this.opts.baseUrl}/browsers/${idSegment(sessionId)}/telemetry/events`);
    url.searchParams.set('limit', String(q.limit));
    if (q.offset !== undefined) url.searchParams.set('offset', q.offset);
    else if (q.since !== undefined) url.searchParams.set('since', q.since);
    if (q.order !== undefined) url.searchParams.set('order', q.order);
    const got = await this.getJson(url, { accept: 'application/json' }, signal, MAX_ARCHIVE_BODY, 'archive page', gate);
    if (got.kind === 'error') return got;
    const { body: items, headers: resHeaders } = got;
    if (!Array.isArray(items))
      return { kind: 'error', status: 200, error: { code: 'invalid_response', message: 'archive page is not a list' } };
    const more =
      String(resHeaders['x-has-more'] ?? '')
        .trim()
        .toLowerCase() === 'true';
    const next = resHeaders['x-next-offset'];
    const nextOffset = Array.isArray(next) ? next[0] : next;
    return {
      kind: 'ok',
      items,
      hasMore: more && nextOffset !== undefined && nextOffset !== '',
      ...(nextOffset ? { nextOffset } : {}),
    };
  }

  /**
   * GET /browsers: one page of the session list (upstream/browser-list.ts). `project` selects a
   * project as the SDKs do (X-Kernel-Project-Id).
   */
  async listBrowsers(
    q: BrowserListQuery,
    opts: { project?: string; signal?: AbortSignal } = {},
  ): Promise<ListPageResult> {
    const url = `${this.opts.baseUrl}/browsers?${listSearchParams(q).toString()}`;
    const extra: Record<string, string> = { accept: 'application/json' };
    if (opts.project !== undefined) extra['x-kernel-project-id'] = opts.project;
    const got = await this.getJson(url, extra, opts.signal, MAX_LIST_BODY, 'the session list');
    if (got.kind === 'error') return got;
    const { body, headers: resHeaders } = got;
    const page = parseListPage(body, q.offset, header(resHeaders['x-has-more']), header(resHeaders['x-next-offset']));
    if ('error' in page)
      return { kind: 'error', status: 200, error: { code: 'invalid_response', message: page.error } };
    return { kind: 'ok', ...page };
  }

  /** GET /browser_pools/{id_or_name}, at most MAX_POOL_LOOKUPS at once. */
  readonly getPool: (idOrName: string, signal?: AbortSignal) => Promise<GetResult<unknown>> = limitConcurrency(
    MAX_POOL_LOOKUPS,
    (idOrName, signal) => this.fetchPool(idOrName, signal),
  );

  private async fetchPool(idOrName: string, signal?: AbortSignal): Promise<GetResult<unknown>> {
    const got = await this.getJson(
      `${this.opts.baseUrl}/browser_pools/${idSegment(idOrName)}`,
      { accept: 'application/json' },
      signal,
      MAX_POOL_BODY,
      'pool response',
    );
    return got.kind === 'json' ? { kind: 'ok', value: got.body } : got;
  }

  /**
   * GET /browsers/{id}?include_deleted=true: whether the service knows the session at all, ended
   * (deleted) ones included, as the SDKs ask. Tells "never existed" from "ended", and a session the
   * archive does not know from a service without an archive.
   */
  async getSession(sessionId: string, signal?: AbortSignal): Promise<GetResult<unknown>> {
    const got = await this.getJson(
      `${this.opts.baseUrl}/browsers/${idSegment(sessionId)}?include_deleted=true`,
      { accept: 'application/json' },
      signal,
      MAX_POOL_BODY,
      'session response',
    );
    return got.kind === 'json' ? { kind: 'ok', value: got.body } : got;
  }

  /**
   * GET any path under the base URL, answered as its status and error body. `check` asks a route
   * that cannot exist, to learn what "no such route" looks like at this base URL.
   */
  async probeRoute(path: string, signal?: AbortSignal): Promise<{ status: number; error: ApiErrorBody }> {
    const res = await this.http.request(`${this.opts.baseUrl}${path}`, {
      method: 'GET',
      headers: this.headers({ accept: 'application/json' }),
      signal,
    });
    const text = await readCapped(readableBody(res.body), this.opts.connectTimeoutMs);
    return { status: res.statusCode, error: parseApiError(res.statusCode, text) };
  }

  /** Where the API key comes from (for the hint after a 401). */
  get keySource(): string {
    return this.opts.apiKey.source;
  }

  invalidateKey(): void {
    this.opts.apiKey.invalidate();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.http.close();
    for (const socket of this.ownSockets) socket.destroy();
    this.ownSockets.clear();
  }
}

const MAX_POOL_BODY = 4 * 1024 * 1024;
/** 100 sessions with their metadata (tags, profile, viewport…): far below this. */
const MAX_LIST_BODY = 8 * 1024 * 1024;

const header = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** A non-2xx answer as the service's error; a redirect says where it points (nothing follows it). */
function answerError(
  status: number,
  text: string,
  location: string | string[] | undefined,
  url: string | URL,
): ApiErrorBody {
  const e = parseApiError(status, text);
  return redirectError(status, header(location), url, e) ?? e;
}
/** 100 events of up to ~1 MB each (screenshots). */
const MAX_ARCHIVE_BODY = 128 * 1024 * 1024;

/** The client for the configured service (the bridge and every ingest worker build theirs here). */
export function createUpstreamClient(up: UpstreamConfig): UpstreamClient {
  return new UpstreamClient({
    baseUrl: up.url,
    apiKey: createApiKeyProvider(up),
    connectTimeoutMs: up.connectTimeoutMs,
    tls: up.tls,
    userAgent: `browser-telemetry-bridge/${BRIDGE_VERSION}`,
  });
}
