// Events → spans, for one session: one trace per navigation (a document, i.e. a CDP loader), a
// CLIENT span per request hop under it, a span per api_call. Records point at these spans through
// the SpanRef observe() returns (docs/traces.md).
//
// States. A document is *unseen* until the first event naming its loader_id (the document request
// comes before page_navigation: Chrome commits after the response), then *open* while its events
// gather (requests, load, vitals, console errors, interactions), then *closed* when the page is
// left (a page_navigation commits another loader in the same frame), its target crashes, the
// open-document bound evicts it, or the session ends. Closing emits the navigation span once; a
// closed loader is remembered (bounded) so a late event cannot reopen it and emit a second span
// under the same id. Only a page_navigation committing it again after the page that followed it
// (a page restored from the back/forward cache keeps its loader) opens it anew: *open* as its next
// visit, a span of its own whose ids count the visits (restores, reopen). The requests' CLIENT
// spans, their hops and redirects, are request-hops.ts's, under the page they name.
//
// Ids are a pure function of (session, loader, its visit, request id, hop), never of arrival
// order, so a replay gives the same ids; the state (snapshot/restore) is plain JSON, saved beside
// the stream checkpoint, so a span open at kill -9 is completed after the restart as if nothing
// happened.
import type { Envelope } from '../upstream/envelope.js';
import type { AttributeValue, BridgeLogRecord } from '../vocabulary/log-record.js';
import type { BridgeSpan, SpanRef } from '../vocabulary/span.js';
import { spanIdOf, traceIdOf } from './span-ids.js';
import { addEvent, finishDoc, type DocState, type EndReason } from './span-shapes.js';
import { RequestHops } from './request-hops.js';
import { emptyCls } from './web-vitals.js';
import { openStateJson, type SpanBuilderState } from './open-state.js';
import { apiCallSpan } from './api-call-span.js';
import { str } from './event-fields.js';
import { addPageEvent } from './page-events.js';

export type { SpanBuilderState } from './open-state.js';

export interface Observed {
  /** The span the event's record belongs to, when it belongs to one. */
  ref: SpanRef | undefined;
  /** Spans this event completed. */
  finished: BridgeSpan[];
}

export interface SpanBuilder {
  /** Feeds one event in stream order; `record` is its mapped record (redacted), null when filtered. */
  observe(envelope: Envelope, record: BridgeLogRecord | null): Observed;
  /**
   * The session ended (or was removed for good): every open span is flushed, marked
   * `browser.span.end_reason=session_end` (or `session_removed`).
   */
  end(reason?: 'session_end' | 'session_removed'): BridgeSpan[];
  snapshot(): SpanBuilderState;
  /** The same state as JSON text, in one pass (what a checkpoint stores; no copy of the state first). */
  snapshotJson(): string;
}

export const MAX_OPEN_DOCS = 64;
export const MAX_CLOSED = 256;
export { MAX_CLOSED_REQUESTS, MAX_OPEN_REQUESTS } from './request-hops.js';

const EMPTY: readonly BridgeSpan[] = Object.freeze([]);
const NO_ATTRS: Readonly<Record<string, AttributeValue>> = Object.freeze({});

export function createSpanBuilder(sessionId: string, restored?: SpanBuilderState): SpanBuilder {
  const docs = new Map<string, DocState>((restored?.docs ?? []).map((d) => [d.loaderId, structuredClone(d)]));
  const frames = new Map<string, string>(restored?.frames ?? []);
  const closed: string[] = [...(restored?.closed ?? [])];
  const closedSet = new Set(closed);
  // Loaders committed again after they were left, with their latest visit (always an open or a
  // closed loader's: forgotten with it).
  const visits = new Map<string, number>(restored?.visits ?? []);
  let out: BridgeSpan[] = [];
  // Each open document's JSON as of the last snapshot, until it is touched again: the state is
  // serialized after every batch of the session (its checkpoint may move there), and the open
  // documents with their span events are most of it while an event changes one or two of them.
  // Every change to a document goes through touchDoc (onPage is given what it returned), which
  // forgets its JSON.
  const docJson = new WeakMap<DocState, string>();

  // A page's ids are asked for by every request of the page: derived once per loader (bounded).
  const docRefs = new Map<string, SpanRef>();
  const visitRef = (loader: string, visit: number | undefined): SpanRef => {
    const parts = visit === undefined ? [sessionId, loader] : [sessionId, loader, `visit:${visit}`];
    return { traceId: traceIdOf('navigation', parts), spanId: spanIdOf('navigation', parts) };
  };
  const docRef = (loader: string): SpanRef => {
    let ref = docRefs.get(loader);
    if (ref === undefined) {
      if (docRefs.size >= MAX_OPEN_DOCS + MAX_CLOSED) docRefs.delete(docRefs.keys().next().value!);
      ref = visitRef(loader, visits.get(loader));
      docRefs.set(loader, ref);
    }
    return ref;
  };

  const requests = new RequestHops(
    sessionId,
    { ref: docRef, visit: (loader) => visits.get(loader), refOf: visitRef },
    (span) => out.push(span),
    restored,
  );

  function closeDoc(doc: DocState, reason: EndReason | undefined): void {
    docs.delete(doc.loaderId);
    if (doc.frameId !== undefined && frames.get(doc.frameId) === doc.loaderId) frames.delete(doc.frameId);
    closed.push(doc.loaderId);
    closedSet.add(doc.loaderId);
    if (closed.length > MAX_CLOSED) {
      const forgotten = closed.shift()!;
      closedSet.delete(forgotten);
      // Its ids go with its visits: a later event of it gets the first visit's ids, as after a restart.
      if (visits.delete(forgotten)) docRefs.delete(forgotten);
    }
    out.push(finishDoc(sessionId, doc, reason));
  }

  /**
   * Whether a page_navigation of a left document commits it again rather than repeating its first
   * commit: the frame shows another document now, and the navigation came after that one began.
   * A navigation the service sends again (a replay from 1 in a new epoch, a target attached twice)
   * keeps its original time, before the page that followed; it reopens nothing.
   */
  function restores(loader: string, frame: string | undefined, ts: number): boolean {
    const current = frame === undefined ? undefined : frames.get(frame);
    const shown = current === undefined || current === loader ? undefined : docs.get(current);
    return shown !== undefined && ts > shown.startMicros;
  }

  /**
   * A document committed again after it was left: Chromium restores a page from the back/forward
   * cache with its loader, and the service sends that restore as an ordinary page_navigation. The
   * visit is a navigation span of its own (ids of the loader and the visit's number, so a replay
   * gives the same), linked to the visit before; the requests the restored page makes go under it.
   * Any other event of a left document still points at its last visit's span, never reopens it.
   */
  function reopen(loader: string, ts: number): void {
    const previous = docRef(loader);
    closed.splice(closed.indexOf(loader), 1);
    closedSet.delete(loader);
    const visit = (visits.get(loader) ?? 0) + 1;
    visits.set(loader, visit);
    docRefs.delete(loader);
    const doc = touchDoc(loader, undefined, ts);
    if (doc === undefined) return;
    doc.visit = visit;
    doc.link = previous;
  }

  /**
   * Closes a document that was left, with the documents of the frames in it: the stream never says
   * that an iframe went with its page (Chromium's Page.frameDetached is not forwarded), so an
   * iframe's span would otherwise stay open until the session ends. An iframe linked to another
   * document of that frame is not this one's.
   */
  function closeLeft(left: DocState): void {
    closeDoc(left, 'navigated_away');
    if (left.frameId === undefined) return;
    for (const child of [...docs.values()])
      if (child.parentFrameId === left.frameId && (child.link === undefined || child.link.spanId === left.spanId))
        if (docs.has(child.loaderId)) closeLeft(child);
  }

  /** The open document of `loader` (opened on first sight), or undefined once it was closed. */
  function touchDoc(loader: string, frame: string | undefined, ts: number): DocState | undefined {
    if (closedSet.has(loader)) return undefined;
    let doc = docs.get(loader);
    if (doc === undefined) {
      if (docs.size >= MAX_OPEN_DOCS) {
        let oldest: DocState | undefined;
        for (const d of docs.values()) if (oldest === undefined || d.lastMicros < oldest.lastMicros) oldest = d;
        closeDoc(oldest!, 'evicted');
      }
      doc = {
        ...docRef(loader),
        loaderId: loader,
        navigated: false,
        startMicros: ts,
        lastMicros: ts,
        sameDocument: 0,
        cls: emptyCls(),
        clsLastMicros: 0,
        errors: 0,
        events: [],
        droppedEvents: 0,
      };
      docs.set(loader, doc);
    }
    docJson.delete(doc);
    if (frame !== undefined) doc.frameId ??= frame;
    if (ts < doc.startMicros) doc.startMicros = ts;
    if (ts > doc.lastMicros) doc.lastMicros = ts;
    return doc;
  }

  function onNetwork(
    type: string,
    ts: number,
    data: Record<string, unknown>,
    loader: string | undefined,
    frame: string | undefined,
    attrs: Readonly<Record<string, AttributeValue>>,
  ): SpanRef | undefined {
    const requestId = str(data.request_id);
    const doc = loader === undefined ? undefined : touchDoc(loader, frame, ts);
    if (requestId === undefined) return doc ?? (loader === undefined ? undefined : docRef(loader));
    // Chrome's navigation request has the loader's id as its request id: that request is the page.
    const url = attrs['url.full'];
    const isPage = type === 'network_request' && requestId === loader && data.resource_type === 'Document';
    if (isPage && doc !== undefined && doc.url === undefined && typeof url === 'string') doc.url = url;
    return requests.observe(type, ts, data, requestId, loader, attrs) ?? doc;
  }

  function onPage(
    type: string,
    ts: number,
    data: Record<string, unknown>,
    doc: DocState,
    record: BridgeLogRecord | null,
  ): void {
    const attrs = record?.attributes ?? NO_ATTRS;
    switch (type) {
      case 'page_navigation': {
        const url = attrs['url.full'];
        if (doc.navigated) {
          doc.sameDocument++;
          addEvent(doc, {
            name: 'browser.navigation.same_document',
            tsMicros: ts,
            attributes: typeof url === 'string' ? { 'url.full': url } : {},
          });
          return;
        }
        doc.navigated = true;
        if (typeof url === 'string') doc.url = url;
        doc.targetId ??= str(data.target_id);
        const parent = str(data.parent_frame_id);
        if (parent !== undefined) {
          doc.parentFrameId = parent;
          const parentLoader = frames.get(parent);
          if (parentLoader !== undefined) doc.link = docRef(parentLoader);
        }
        if (doc.frameId !== undefined) {
          const previous = frames.get(doc.frameId);
          const prevDoc = previous === undefined ? undefined : docs.get(previous);
          if (prevDoc !== undefined && prevDoc !== doc) closeLeft(prevDoc);
          frames.set(doc.frameId, doc.loaderId);
        }
        return;
      }
      default:
        addPageEvent(doc, type, ts, attrs, record);
    }
  }

  function onCrash(data: Record<string, unknown>): SpanRef | undefined {
    const target = str(data.target_id);
    let ref: SpanRef | undefined;
    for (const doc of [...docs.values()]) {
      if (target === undefined || doc.targetId !== target) continue;
      if (doc.parentFrameId === undefined) ref = { traceId: doc.traceId, spanId: doc.spanId };
      closeDoc(doc, 'page_crashed');
    }
    return ref;
  }

  function dispatch(envelope: Envelope, record: BridgeLogRecord | null): SpanRef | undefined {
    const ev = envelope.event;
    const data = ev.data ?? {};
    const attrs = record?.attributes ?? NO_ATTRS;
    if (ev.type === 'api_call' || ev.type === 'platform_api_call') {
      const span = apiCallSpan(sessionId, ev.ts, data, attrs);
      out.push(span);
      return { traceId: span.traceId, spanId: span.spanId };
    }
    if (ev.type === 'page_crashed') return onCrash(data);
    const frame = str(data.frame_id);
    const loader = str(data.loader_id) ?? (frame === undefined ? undefined : frames.get(frame));
    if (ev.category === 'network' || ev.type.startsWith('network_') || ev.type === 'proxy_error') {
      if (ev.type === 'network_idle') return loader === undefined ? undefined : docOrRef(loader, frame, ev.ts);
      return onNetwork(ev.type, ev.ts, data, loader, frame, attrs);
    }
    if (loader === undefined) return undefined;
    if (ev.type === 'page_navigation' && closedSet.has(loader) && restores(loader, frame, ev.ts)) reopen(loader, ev.ts);
    const doc = touchDoc(loader, frame, ev.ts);
    if (doc === undefined) return docRef(loader);
    onPage(ev.type, ev.ts, data, doc, record);
    // Page events carry the page's own URL in their context: the name of a page whose navigation
    // was not seen (the session's first page, or one loaded before the bridge started reading).
    if (doc.url === undefined && typeof attrs['url.full'] === 'string') doc.url = attrs['url.full'];
    return { traceId: doc.traceId, spanId: doc.spanId };
  }

  function docOrRef(loader: string, frame: string | undefined, ts: number): SpanRef {
    const doc = touchDoc(loader, frame, ts);
    return doc === undefined ? docRef(loader) : { traceId: doc.traceId, spanId: doc.spanId };
  }

  /** The live state, shared: copy or serialize it before anything else runs. */
  const state = (): SpanBuilderState => ({
    v: 1,
    docs: [...docs.values()],
    frames: [...frames.entries()],
    requests: [...requests.open.values()],
    closed,
    closedRequests: [...requests.closed.entries()],
    ...(visits.size === 0 ? {} : { visits: [...visits.entries()] }),
    ...(requests.closedVisits.size === 0 ? {} : { closedVisits: [...requests.closedVisits.entries()] }),
  });

  return {
    observe(envelope, record) {
      out = [];
      const found = dispatch(envelope, record);
      const ref = found === undefined ? undefined : { traceId: found.traceId, spanId: found.spanId };
      return { ref, finished: out.length === 0 ? (EMPTY as BridgeSpan[]) : out };
    },
    end(reason = 'session_end') {
      out = [];
      requests.end(reason);
      for (const doc of [...docs.values()]) closeDoc(doc, reason);
      return out;
    },
    snapshot() {
      return structuredClone(state());
    },
    snapshotJson() {
      return openStateJson(
        docs.values(),
        docJson,
        frames,
        requests.open.values(),
        closed,
        requests.closed,
        visits,
        requests.closedVisits,
      );
    },
  };
}
