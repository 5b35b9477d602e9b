// The open-span state the span builder keeps between events (plain JSON, saved with a checkpoint)
// and how an open document or request becomes a finished BridgeSpan. Attribute names that have no
// semantic convention are `browser.*` (docs/mapping.md "Semantic conventions").
import type { AttributeValue } from '../vocabulary/log-record.js';
import { SPAN_KIND, type BridgeSpan, type SpanEvent, type SpanLink, type SpanRef } from '../vocabulary/span.js';
import { rate, type ClsState } from './web-vitals.js';

type Attrs = Record<string, AttributeValue>;

export const SPAN_ATTR = {
  sessionId: 'browser.session.id',
  loaderId: 'browser.navigation.loader_id',
  frameId: 'browser.frame.id',
  parentFrameId: 'browser.frame.parent_id',
  targetId: 'browser.target.id',
  frameKind: 'browser.frame.kind',
  sameDocument: 'browser.navigation.same_document_count',
  restored: 'browser.navigation.restored_visit',
  lcp: 'browser.web_vital.lcp.value',
  cls: 'browser.web_vital.cls.value',
  consoleErrors: 'browser.console.error_count',
  droppedEvents: 'browser.span.dropped_events',
  incomplete: 'browser.span.incomplete',
  endReason: 'browser.span.end_reason',
  startUnknown: 'browser.span.start_unknown',
  resendCount: 'http.request.resend_count',
  canceled: 'browser.network.canceled',
  vitalName: 'browser.web_vital.name',
  vitalValue: 'browser.web_vital.value',
  vitalRating: 'browser.web_vital.rating',
  vitalId: 'browser.web_vital.id',
} as const;

/** Why a span ended other than by its own closing event. */
export type EndReason = 'session_end' | 'session_removed' | 'evicted' | 'navigated_away' | 'page_crashed';

/** One document (a loader): its navigation span while it is open. */
export interface DocState extends SpanRef {
  loaderId: string;
  frameId?: string;
  targetId?: string;
  parentFrameId?: string;
  link?: SpanRef;
  /**
   * The document's visit, from 1 on, when it was committed again after it had been left (a page
   * restored from the back/forward cache keeps its loader); absent for its first visit.
   */
  visit?: number;
  /** Redacted url.full of the page (the navigation's, else the document request's). */
  url?: string;
  navigated: boolean;
  startMicros: number;
  lastMicros: number;
  loadMicros?: number;
  sameDocument: number;
  lcp?: { value: number; tsMicros: number };
  cls: ClsState;
  clsLastMicros: number;
  errors: number;
  events: SpanEvent[];
  droppedEvents: number;
}

/** One hop of one network request, open between its request and its response or failure. */
export interface ReqState extends SpanRef {
  key: string;
  parentSpanId?: string;
  hop: number;
  startMicros: number;
  startUnknown: boolean;
  attributes: Attrs;
  /** The visit of its page it was made in, from 1 on (a page restored from the back/forward cache). */
  visit?: number;
  /** The CDP session (`session_id`) that reported the hop: a redirect is that session's next hop. */
  cdpSession?: string;
}

/** A span's events are bounded so one chatty page cannot grow the state without limit. */
export const MAX_EVENTS_PER_SPAN = 128;

export function addEvent(doc: DocState, event: SpanEvent): void {
  if (doc.events.length < MAX_EVENTS_PER_SPAN) doc.events.push(event);
  else doc.droppedEvents++;
}

/** `https://host/path`: the page without user-info, query or fragment, as the navigation span's name. */
export function pageName(url: string | undefined): string {
  if (url === undefined || url === '') return 'navigation';
  try {
    const u = new URL(url);
    if (u.protocol === 'data:' || u.protocol === 'blob:' || u.origin === 'null') return u.protocol + '…';
    return u.origin + u.pathname;
  } catch {
    const cut = url.search(/[?#]/);
    return cut === -1 ? url : url.slice(0, cut);
  }
}

function vitalEvent(name: 'lcp' | 'cls', value: number, tsMicros: number, doc: DocState): SpanEvent {
  return {
    name: 'browser.web_vital',
    tsMicros,
    attributes: {
      [SPAN_ATTR.vitalName]: name,
      [SPAN_ATTR.vitalValue]: value,
      [SPAN_ATTR.vitalRating]: rate(name, value),
      [SPAN_ATTR.vitalId]: `${name}-${doc.loaderId}`,
    },
  };
}

/** The navigation span of a document, ending at its load event (or its last event without one). */
export function finishDoc(sessionId: string, doc: DocState, reason: EndReason | undefined): BridgeSpan {
  const attributes: Attrs = { [SPAN_ATTR.sessionId]: sessionId, [SPAN_ATTR.loaderId]: doc.loaderId };
  if (doc.url !== undefined) attributes['url.full'] = doc.url;
  if (doc.frameId !== undefined) attributes[SPAN_ATTR.frameId] = doc.frameId;
  if (doc.targetId !== undefined) attributes[SPAN_ATTR.targetId] = doc.targetId;
  if (doc.parentFrameId !== undefined) attributes[SPAN_ATTR.parentFrameId] = doc.parentFrameId;
  attributes[SPAN_ATTR.frameKind] = doc.parentFrameId === undefined ? 'top' : 'iframe';
  if (doc.sameDocument > 0) attributes[SPAN_ATTR.sameDocument] = doc.sameDocument;
  if (doc.visit !== undefined) attributes[SPAN_ATTR.restored] = doc.visit;
  if (doc.errors > 0) attributes[SPAN_ATTR.consoleErrors] = doc.errors;
  const events = doc.events.slice();
  if (doc.lcp !== undefined) {
    attributes[SPAN_ATTR.lcp] = doc.lcp.value;
    events.push(vitalEvent('lcp', doc.lcp.value, doc.lcp.tsMicros, doc));
  }
  if (doc.cls.shifts > 0) {
    attributes[SPAN_ATTR.cls] = doc.cls.max;
    events.push(vitalEvent('cls', doc.cls.max, doc.clsLastMicros, doc));
  }
  if (doc.droppedEvents > 0) attributes[SPAN_ATTR.droppedEvents] = doc.droppedEvents;
  // Without a load event the page never finished loading while it was watched: say so, whatever
  // closed it. Not of an iframe: Chromium's load event (Page.loadEventFired) is its target's top
  // frame's only, so an iframe in its page's process never gets one, and every such iframe would be marked.
  // Nor of a restored page: it loaded in its first visit, and a restore fires no load event.
  if (doc.loadMicros === undefined && doc.parentFrameId === undefined && doc.visit === undefined)
    attributes[SPAN_ATTR.incomplete] = true;
  if (reason !== undefined) attributes[SPAN_ATTR.endReason] = reason;
  const links: SpanLink[] = doc.link === undefined ? [] : [{ ...doc.link, attributes: {} }];
  const crashed = reason === 'page_crashed';
  return {
    traceId: doc.traceId,
    spanId: doc.spanId,
    name: pageName(doc.url),
    kind: SPAN_KIND.internal,
    startMicros: doc.startMicros,
    endMicros: Math.max(doc.startMicros, doc.loadMicros ?? doc.lastMicros),
    attributes,
    events,
    links,
    status: crashed ? { code: 2, message: 'page crashed' } : { code: 0 },
  };
}

/** How a request hop ended: its response, its failure, the next redirect hop, or no end seen. */
export type RequestEnd =
  | { kind: 'response'; status: number | undefined }
  | { kind: 'failed'; errorType: string | undefined; canceled: boolean }
  | { kind: 'redirected' }
  | { kind: 'cut'; reason: EndReason };

/** The CLIENT span of one request hop (HTTP client span conventions: name `{method}`, status ERROR from 400). */
export function finishRequest(sessionId: string, req: ReqState, endMicros: number, end: RequestEnd): BridgeSpan {
  const attributes: Attrs = { ...req.attributes, [SPAN_ATTR.sessionId]: sessionId };
  if (req.hop > 0) attributes[SPAN_ATTR.resendCount] = req.hop;
  if (req.startUnknown) attributes[SPAN_ATTR.startUnknown] = true;
  let status: BridgeSpan['status'] = { code: 0 };
  if (end.kind === 'response' && end.status !== undefined) {
    attributes['http.response.status_code'] = end.status;
    if (end.status >= 400) {
      attributes['error.type'] = String(end.status);
      status = { code: 2 };
    }
  } else if (end.kind === 'failed') {
    attributes['error.type'] = end.errorType ?? '_OTHER';
    // A cancelled load is routine (navigation away, aborted fetch): marked, but not an error.
    if (end.canceled) attributes[SPAN_ATTR.canceled] = true;
    else status = { code: 2, message: end.errorType ?? 'loading failed' };
  } else if (end.kind === 'cut') {
    attributes[SPAN_ATTR.incomplete] = true;
    attributes[SPAN_ATTR.endReason] = end.reason;
  }
  const method = req.attributes['http.request.method'];
  const span: BridgeSpan = {
    traceId: req.traceId,
    spanId: req.spanId,
    name: typeof method === 'string' && method !== '_OTHER' ? method : 'HTTP',
    kind: SPAN_KIND.client,
    startMicros: req.startMicros,
    endMicros: Math.max(req.startMicros, endMicros),
    attributes,
    events: [],
    links: [],
    status,
  };
  if (req.parentSpanId !== undefined) span.parentSpanId = req.parentSpanId;
  return span;
}
