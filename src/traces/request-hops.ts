// The CLIENT spans of one session's network requests (span-builder.ts hands them the network
// events): a hop is *open* from its network_request to its network_response or
// network_loading_failed, or to the next network_request of the same request id that says
// `is_redirect` from the same CDP session (a redirect: each hop is its own span,
// `http.request.resend_count` counting them), or *cut* (evicted past MAX_OPEN_REQUESTS, the
// session's end). A finished request is remembered (bounded): its request or response seen again
// (out of order, or again in a new epoch) points at the span already emitted instead of opening one
// under the same id. A request belongs to its page's trace (`loader_id`), in the visit of the page
// it was made in; one without a loader is the root of a trace of its own.
import type { AttributeValue } from '../vocabulary/log-record.js';
import type { BridgeSpan, SpanRef } from '../vocabulary/span.js';
import { spanIdOf, traceIdOf } from './span-ids.js';
import { finishRequest, type EndReason, type ReqState, type RequestEnd } from './span-shapes.js';
import { httpStatus, str } from './event-fields.js';

export const MAX_OPEN_REQUESTS = 2048;
/** Finished requests remembered: a late or repeated event comes within a few requests of its pair. */
export const MAX_CLOSED_REQUESTS = 128;

/** Request attributes the CLIENT span takes from the record (already redacted there). */
const REQUEST_ATTRS = [
  'http.request.method',
  'http.request.method_original',
  'url.full',
  'url.scheme',
  'server.address',
  'server.port',
  'browser.network.request.id',
  'browser.network.resource_type',
] as const;

/** What the requests ask of the pages (span-builder.ts). */
export interface PageIds {
  /** The ids of the page's navigation span now (its latest visit). */
  ref(loader: string): SpanRef;
  /** The page's latest visit (undefined: its first). */
  visit(loader: string): number | undefined;
  /** The ids of a given visit's navigation span. */
  refOf(loader: string, visit: number | undefined): SpanRef;
}

/** What is kept of the requests with a checkpoint (open-state.ts). */
export interface RequestState {
  requests?: ReqState[];
  closedRequests?: Array<[string, number]>;
  closedVisits?: Array<[string, number]>;
}

export class RequestHops {
  readonly open: Map<string, ReqState>;
  /** Finished requests (key → last hop), oldest first. */
  readonly closed: Map<string, number>;
  /** The visit of those finished under a restored page's later visit (keys of `closed` only). */
  readonly closedVisits: Map<string, number>;

  constructor(
    private readonly sessionId: string,
    private readonly pages: PageIds,
    private readonly emit: (span: BridgeSpan) => void,
    restored?: RequestState,
  ) {
    this.open = new Map((restored?.requests ?? []).map((r) => [r.key, structuredClone(r)]));
    this.closed = new Map(restored?.closedRequests ?? []);
    this.closedVisits = new Map(restored?.closedVisits ?? []);
  }

  /**
   * A network event with a request id: the span its record belongs to. undefined for a proxy_error
   * with no request open (it belongs to the page then).
   */
  observe(
    type: string,
    ts: number,
    data: Record<string, unknown>,
    requestId: string,
    loader: string | undefined,
    attrs: Readonly<Record<string, AttributeValue>>,
  ): SpanRef | undefined {
    const target = str(data.target_id) ?? '';
    const cdpSession = str(data.session_id);
    const key = loader === undefined ? `t:${target}:${requestId}` : `${loader}:${requestId}`;
    const open = this.open.get(key);
    const finished = open === undefined ? this.closed.get(key) : undefined;
    if (finished !== undefined) return this.finishedRef(key, loader, finished);
    if (type === 'network_request') {
      // The same request id again while its hop is open is the next hop only when the service says
      // so: it sets `is_redirect` when a request of that id is still pending on the same CDP
      // session. Without it, or from another CDP session than the hop's, the event is that request
      // seen again (from another CDP session of the same target: a page and its worker, or a
      // target attached more than once, whose copies of a redirect say `is_redirect` too), and
      // stays in its span; counting it as a hop ended the request early and sent a second span.
      if (open !== undefined && (data.is_redirect !== true || !sameCdpSession(open, cdpSession)))
        return { traceId: open.traceId, spanId: open.spanId };
      let hop = 0;
      if (open !== undefined) {
        hop = open.hop + 1;
        this.close(open, ts, { kind: 'redirected' });
      }
      return this.openHop(key, loader, hop, ts, attrs, false, cdpSession);
    }
    if (type === 'proxy_error') return open;
    const req = open ?? this.openHop(key, loader, 0, ts, attrs, true, cdpSession);
    for (const name of REQUEST_ATTRS) if (attrs[name] !== undefined) req.attributes[name] ??= attrs[name];
    const ref = { traceId: req.traceId, spanId: req.spanId };
    if (type === 'network_response') this.close(req, ts, { kind: 'response', status: httpStatus(data.status) });
    else this.close(req, ts, { kind: 'failed', errorType: str(data.error_text), canceled: data.canceled === true });
    return ref;
  }

  /** The session ended (or was removed): every open hop is cut. */
  end(reason: EndReason): void {
    for (const req of [...this.open.values()]) this.close(req, req.startMicros, { kind: 'cut', reason });
  }

  private close(req: ReqState, endMicros: number, end: RequestEnd): void {
    this.open.delete(req.key);
    // A redirect's next hop is opened under the same key at once.
    if (end.kind !== 'redirected') {
      this.closed.delete(req.key);
      this.closed.set(req.key, req.hop);
      if (req.visit === undefined) this.closedVisits.delete(req.key);
      else this.closedVisits.set(req.key, req.visit);
      if (this.closed.size > MAX_CLOSED_REQUESTS) {
        const oldest = this.closed.keys().next().value!;
        this.closed.delete(oldest);
        this.closedVisits.delete(oldest);
      }
    }
    this.emit(finishRequest(this.sessionId, req, endMicros, end));
  }

  /** The span a finished request's last hop was emitted as. */
  private finishedRef(key: string, loader: string | undefined, hop: number): SpanRef {
    const kind = loader === undefined ? 'orphan' : 'request';
    // In the trace of the visit it was made in, which a restore since may have followed.
    const visit = this.closedVisits.get(key);
    let traceId: string;
    if (loader === undefined) traceId = traceIdOf('orphan', [this.sessionId, key]);
    else if (visit === this.pages.visit(loader)) traceId = this.pages.ref(loader).traceId;
    else traceId = this.pages.refOf(loader, visit).traceId;
    return { traceId, spanId: spanIdOf(kind, [this.sessionId, key, String(hop)]) };
  }

  private openHop(
    key: string,
    loader: string | undefined,
    hop: number,
    ts: number,
    attrs: Readonly<Record<string, AttributeValue>>,
    startUnknown: boolean,
    cdpSession: string | undefined,
  ): ReqState {
    if (this.open.size >= MAX_OPEN_REQUESTS) {
      const oldest = this.open.values().next().value!;
      this.close(oldest, oldest.startMicros, { kind: 'cut', reason: 'evicted' });
    }
    const kind = loader === undefined ? 'orphan' : 'request';
    const page = loader === undefined ? undefined : this.pages.ref(loader);
    const req: ReqState = {
      key,
      traceId: page?.traceId ?? traceIdOf('orphan', [this.sessionId, key]),
      spanId: spanIdOf(kind, [this.sessionId, key, String(hop)]),
      hop,
      startMicros: ts,
      startUnknown,
      attributes: {},
    };
    if (page !== undefined) req.parentSpanId = page.spanId;
    const visit = loader === undefined ? undefined : this.pages.visit(loader);
    if (visit !== undefined) req.visit = visit;
    if (cdpSession !== undefined) req.cdpSession = cdpSession;
    for (const name of REQUEST_ATTRS) if (attrs[name] !== undefined) req.attributes[name] = attrs[name];
    this.open.set(key, req);
    return req;
  }
}

/** Whether an event from CDP session `session` is of the hop's session (unknown on either side: yes). */
function sameCdpSession(hop: ReqState, session: string | undefined): boolean {
  return hop.cdpSession === undefined || session === undefined || hop.cdpSession === session;
}
