// The span builder on scripted event sequences (docs/traces.md): one trace per navigation, a CLIENT
// span per request hop, records pointing at their span, and what closes a span.
import { describe, expect, it } from 'vitest';
import {
  MAX_OPEN_DOCS,
  MAX_OPEN_REQUESTS,
  createSpanBuilder,
  type SpanBuilder,
} from '../../../src/traces/span-builder.js';
import { spanIdOf, traceIdOf } from '../../../src/traces/span-ids.js';
import type { BridgeSpan, SpanRef } from '../../../src/vocabulary/span.js';
import { PAGE_LOAD, SESSION, T0, ctx, doc, envelopes, mapped, nav, req, type Step } from './script.js';

interface Run {
  spans: BridgeSpan[];
  refs: Array<SpanRef | undefined>;
  builder: SpanBuilder;
}

function run(steps: readonly Step[], end = true): Run {
  const builder = createSpanBuilder(SESSION);
  const spans: BridgeSpan[] = [];
  const refs: Array<SpanRef | undefined> = [];
  for (const env of envelopes(steps)) {
    const o = builder.observe(env, mapped(env));
    refs.push(o.ref);
    spans.push(...o.finished);
  }
  if (end) spans.push(...builder.end());
  return { spans, refs, builder };
}

const byName = (spans: BridgeSpan[], name: string): BridgeSpan[] => spans.filter((s) => s.name === name);
const only = (spans: BridgeSpan[], pred: (s: BridgeSpan) => boolean): BridgeSpan => {
  const found = spans.filter(pred);
  expect(found).toHaveLength(1);
  return found[0]!;
};
const navOf = (loader: string): SpanRef => ({
  traceId: traceIdOf('navigation', [SESSION, loader]),
  spanId: spanIdOf('navigation', [SESSION, loader]),
});

describe('a page load', () => {
  const { spans, refs } = run(PAGE_LOAD);
  const root = only(spans, (s) => s.parentSpanId === undefined);

  it('is one trace: a navigation root named after the page without its query, requests as its children', () => {
    expect(root).toMatchObject({ ...navOf('L1'), name: 'https://shop.example.com/cart', kind: 1 });
    expect(root.startMicros).toBe(T0);
    expect(root.endMicros).toBe(T0 + 400_000);
    expect(root.attributes['url.full']).toBe('https://shop.example.com/cart?token=REDACTED');
    const children = spans.filter((s) => s !== root);
    expect(children).toHaveLength(3);
    for (const c of children) expect(c).toMatchObject({ traceId: root.traceId, parentSpanId: root.spanId, kind: 3 });
  });

  it('follows the HTTP client span conventions, status ERROR from 400', () => {
    const image = only(spans, (s) => s.attributes['url.full'] === 'https://shop.example.com/logo.png');
    expect(image).toMatchObject({ name: 'GET', status: { code: 2 } });
    expect(image.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.response.status_code': 404,
      'error.type': '404',
      'server.address': 'shop.example.com',
    });
    const script = only(spans, (s) => s.attributes['url.full'] === 'https://shop.example.com/app.js');
    expect(script.status.code).toBe(0);
    expect(script.endMicros - script.startMicros).toBe(60_000);
  });

  it('carries the console error as an exception event, interactions and shifts as events', () => {
    const names = root.events.map((e) => e.name);
    expect(names).toContain('exception');
    expect(names).toContain('browser.interaction_click');
    expect(names.filter((n) => n === 'browser.page.layout_shift')).toHaveLength(3);
    const ex = root.events.find((e) => e.name === 'exception')!;
    expect(ex.attributes).toMatchObject({ 'exception.type': 'TypeError', 'exception.message': 'x is undefined' });
  });

  it('reports LCP and CLS (the session window, without shifts after input) as browser.web_vital events and attributes', () => {
    const vitals = root.events.filter((e) => e.name === 'browser.web_vital');
    expect(vitals.map((v) => v.attributes['browser.web_vital.name'])).toEqual(['lcp', 'cls']);
    expect(vitals[0]!.attributes).toMatchObject({ 'browser.web_vital.value': 380, 'browser.web_vital.rating': 'good' });
    expect(vitals[1]!.attributes['browser.web_vital.value']).toBeCloseTo(0.09);
    expect(root.attributes['browser.web_vital.cls.value']).toBeCloseTo(0.09);
    expect(root.attributes['browser.web_vital.lcp.value']).toBe(380);
  });

  it('points every record of the page at its span: requests at theirs, page events at the navigation', () => {
    const doc0 = only(spans, (s) => s.attributes['browser.network.resource_type'] === 'Document');
    expect(refs[0]).toEqual({ traceId: doc0.traceId, spanId: doc0.spanId });
    expect(refs[1]).toEqual(refs[0]);
    for (const i of [2, 7, 8, 9, 10, 11]) expect(refs[i]).toEqual(navOf('L1'));
  });

  it('marks a page still open at session end', () => {
    expect(root.attributes['browser.span.end_reason']).toBe('session_end');
    expect(root.attributes['browser.span.incomplete']).toBeUndefined();
  });
});

describe('scripted sequences', () => {
  it('a redirect chain: one CLIENT span per hop, resend_count counting them', () => {
    const { spans } = run([
      ['network_request', 0, doc('L1', 'http://shop.example.com/')],
      ['network_request', 50, { ...doc('L1', 'https://shop.example.com/'), is_redirect: true }],
      ['network_request', 90, { ...doc('L1', 'https://shop.example.com/home'), is_redirect: true }],
      ['network_response', 150, { ...doc('L1', 'https://shop.example.com/home'), status: 200 }],
      ['page_navigation', 160, nav('L1', 'https://shop.example.com/home')],
      ['page_load', 300, { frame_id: 'F1', loader_id: 'L1' }],
    ]);
    const hops = byName(spans, 'GET').sort((a, b) => a.startMicros - b.startMicros);
    expect(hops.map((h) => h.attributes['http.request.resend_count'])).toEqual([undefined, 1, 2]);
    expect(new Set(hops.map((h) => h.spanId)).size).toBe(3);
    expect(hops.map((h) => h.endMicros - T0)).toEqual([50_000, 90_000, 150_000]);
    expect(only(spans, (s) => s.kind === 1).name).toBe('https://shop.example.com/home');
  });

  it('the same request seen again without is_redirect (another CDP session of its target) stays one span', () => {
    const { spans, refs } = run([
      ['network_request', 0, doc('L1', 'https://a.example/')],
      ['page_navigation', 10, nav('L1', 'https://a.example/')],
      ['network_request', 20, req('L1', '7.1', 'https://a.example/app.js')],
      ['network_request', 25, req('L1', '7.1', 'https://a.example/app.js')],
      ['network_request', 26, { ...req('L1', '7.1', 'https://a.example/app.js'), is_redirect: false }],
      ['network_response', 80, { ...req('L1', '7.1', 'https://a.example/app.js'), status: 200 }],
    ]);
    const script = only(spans, (s) => s.kind === 3 && s.attributes['url.full'] === 'https://a.example/app.js');
    expect(script.attributes['http.request.resend_count']).toBeUndefined();
    expect(script.attributes['http.response.status_code']).toBe(200);
    expect(script.endMicros - script.startMicros).toBe(60_000);
    expect(refs.slice(2).map((r) => r?.spanId)).toEqual([script.spanId, script.spanId, script.spanId, script.spanId]);
  });

  it('copies of a redirect from another CDP session of the target (attached twice) count each hop once', () => {
    const hop = (url: string, session: string, redirect: boolean) => ({
      ...req('L1', '7.2', url),
      session_id: session,
      ...(redirect ? { is_redirect: true } : {}),
    });
    const { spans } = run([
      ['network_request', 0, doc('L1', 'https://a.example/')],
      ['page_navigation', 10, nav('L1', 'https://a.example/')],
      ['network_request', 20, hop('http://a.example/go', 'S1', false)],
      ['network_request', 21, hop('http://a.example/go', 'S2', false)],
      ['network_request', 30, hop('https://a.example/went', 'S1', true)],
      ['network_request', 31, hop('https://a.example/went', 'S2', true)],
      ['network_response', 60, { ...hop('https://a.example/went', 'S1', false), status: 200 }],
    ]);
    const hops = spans
      .filter((s) => s.kind === 3 && s.attributes['browser.network.request.id'] === '7.2')
      .sort((a, b) => a.startMicros - b.startMicros);
    expect(hops.map((h) => h.attributes['http.request.resend_count'])).toEqual([undefined, 1]);
    expect(hops.map((h) => h.endMicros - T0)).toEqual([30_000, 60_000]);
  });

  it('a request finishing after the next navigation stays in its own page’s trace', () => {
    const { spans } = run([
      ['network_request', 0, doc('L1', 'https://a.example/')],
      ['page_navigation', 10, nav('L1', 'https://a.example/')],
      ['network_request', 20, req('L1', '7.1', 'https://a.example/slow')],
      ['network_request', 30, doc('L2', 'https://b.example/')],
      ['page_navigation', 40, nav('L2', 'https://b.example/')],
      ['network_response', 900, { ...req('L1', '7.1', 'https://a.example/slow'), status: 200 }],
    ]);
    const first = only(spans, (s) => s.spanId === navOf('L1').spanId);
    expect(first.attributes).toMatchObject({
      'browser.span.end_reason': 'navigated_away',
      'browser.span.incomplete': true,
    });
    const slow = only(spans, (s) => s.attributes['url.full'] === 'https://a.example/slow');
    expect(slow).toMatchObject({ traceId: navOf('L1').traceId, parentSpanId: navOf('L1').spanId });
    expect(slow.endMicros).toBe(T0 + 900_000);
    // The first page was emitted once: its late events do not reopen it.
    expect(spans.filter((s) => s.spanId === navOf('L1').spanId)).toHaveLength(1);
  });

  it('a failed request is an ERROR with error.type; a cancelled one is marked but not an error', () => {
    const { spans } = run([
      ['network_request', 0, req('L1', '1.1', 'https://gone.example/x')],
      [
        'network_loading_failed',
        5,
        { ...req('L1', '1.1', 'https://gone.example/x'), error_text: 'net::ERR_NAME_NOT_RESOLVED' },
      ],
      ['network_request', 6, req('L1', '1.2', 'https://a.example/y')],
      [
        'network_loading_failed',
        7,
        { ...req('L1', '1.2', 'https://a.example/y'), error_text: 'net::ERR_ABORTED', canceled: true },
      ],
    ]);
    const failed = only(spans, (s) => s.attributes['url.full'] === 'https://gone.example/x');
    expect(failed.status).toEqual({ code: 2, message: 'net::ERR_NAME_NOT_RESOLVED' });
    expect(failed.attributes['error.type']).toBe('net::ERR_NAME_NOT_RESOLVED');
    const cancelled = only(spans, (s) => s.attributes['url.full'] === 'https://a.example/y');
    expect(cancelled.status.code).toBe(0);
    expect(cancelled.attributes).toMatchObject({ 'error.type': 'net::ERR_ABORTED', 'browser.network.canceled': true });
  });

  it("a response with Chromium's status 0 (none received) has no status code and is no error", () => {
    const { spans } = run([
      ['network_request', 0, req('L1', '1.1', 'https://opaque.example/x')],
      ['network_response', 5, { ...req('L1', '1.1', 'https://opaque.example/x'), status: 0 }],
      ['api_call', 9, { request_id: 'r-0', operation_id: 'Navigate', status: 0, duration_ms: 1 }],
    ]);
    for (const span of spans) {
      expect(span.attributes).not.toHaveProperty('http.response.status_code');
      expect(span.status.code).toBe(0);
    }
    only(spans, (s) => s.attributes['url.full'] === 'https://opaque.example/x');
    only(spans, (s) => s.name === 'Navigate');
  });

  it('an iframe is its own trace, linked to the page that embeds it', () => {
    const { spans } = run([
      ['network_request', 0, doc('L1', 'https://a.example/')],
      ['page_navigation', 10, nav('L1', 'https://a.example/')],
      ['network_request', 20, doc('LF', 'https://ads.example/frame', 'F2')],
      ['page_navigation', 30, nav('LF', 'https://ads.example/frame', 'F2', { parent_frame_id: 'F1' })],
      ['page_load', 50, { frame_id: 'F2', loader_id: 'LF' }],
      ['page_load', 60, { frame_id: 'F1', loader_id: 'L1' }],
    ]);
    const frame = only(spans, (s) => s.spanId === navOf('LF').spanId);
    expect(frame.traceId).not.toBe(navOf('L1').traceId);
    expect(frame.attributes).toMatchObject({ 'browser.frame.kind': 'iframe', 'browser.frame.parent_id': 'F1' });
    expect(frame.links).toEqual([{ ...navOf('L1'), attributes: {} }]);
    const frameDoc = only(spans, (s) => s.attributes['url.full'] === 'https://ads.example/frame' && s.kind === 3);
    expect(frameDoc.parentSpanId).toBe(frame.spanId);
  });

  it("an iframe ends with the page it is in, without a load of its own (Chromium reports the top frame's only)", () => {
    const { spans } = run(
      [
        ['network_request', 0, doc('L1', 'https://a.example/')],
        ['page_navigation', 10, nav('L1', 'https://a.example/')],
        ['network_request', 20, doc('LF', 'https://ads.example/frame', 'F2')],
        ['page_navigation', 30, nav('LF', 'https://ads.example/frame', 'F2', { parent_frame_id: 'F1' })],
        // An iframe in the iframe, and its request.
        ['page_navigation', 40, nav('LG', 'https://ads.example/inner', 'F3', { parent_frame_id: 'F2' })],
        ['network_request', 45, req('LG', '4.1', 'https://ads.example/pixel', { frame_id: 'F3' })],
        ['network_response', 48, { ...req('LG', '4.1', 'https://ads.example/pixel', { frame_id: 'F3' }), status: 200 }],
        ['page_load', 60, { frame_id: 'F1', loader_id: 'L1' }],
        ['network_request', 100, doc('L2', 'https://a.example/next')],
        ['page_navigation', 110, nav('L2', 'https://a.example/next')],
        // The next page's own iframe stays open.
        ['page_navigation', 120, nav('LH', 'https://ads.example/other', 'F4', { parent_frame_id: 'F1' })],
      ],
      false,
    );
    for (const loader of ['LF', 'LG']) {
      const frame = only(spans, (s) => s.spanId === navOf(loader).spanId);
      expect(frame.attributes['browser.span.end_reason'], loader).toBe('navigated_away');
      expect(frame.attributes['browser.span.incomplete'], loader).toBeUndefined();
    }
    expect(only(spans, (s) => s.spanId === navOf('LG').spanId).endMicros).toBe(T0 + 48_000);
    expect(spans.map((s) => s.spanId)).not.toContain(navOf('LH').spanId);
    expect(spans.map((s) => s.spanId)).not.toContain(navOf('L2').spanId);
  });

  it('a session ending mid-navigation flushes the open request and the page with a marker', () => {
    const { spans } = run([
      ['network_request', 0, doc('L1', 'https://a.example/')],
      ['page_navigation', 10, nav('L1', 'https://a.example/')],
      ['network_request', 20, req('L1', '3.3', 'https://a.example/pending')],
    ]);
    const pending = only(spans, (s) => s.attributes['url.full'] === 'https://a.example/pending');
    expect(pending.attributes).toMatchObject({
      'browser.span.incomplete': true,
      'browser.span.end_reason': 'session_end',
    });
    const page = only(spans, (s) => s.kind === 1);
    expect(page.attributes).toMatchObject({
      'browser.span.incomplete': true,
      'browser.span.end_reason': 'session_end',
    });
  });

  it('a request whose events arrive before its navigation’s still knows its parent from loader_id', () => {
    const { spans } = run([
      ['network_request', 0, req('L9', '5.5', 'https://a.example/early')],
      ['network_response', 5, { ...req('L9', '5.5', 'https://a.example/early'), status: 200 }],
      ['page_navigation', 10, nav('L9', 'https://a.example/')],
    ]);
    const early = only(spans, (s) => s.kind === 3);
    expect(early).toMatchObject({ traceId: navOf('L9').traceId, parentSpanId: navOf('L9').spanId });
  });

  it('a same-document navigation is an event of the page, not a new trace', () => {
    const { spans } = run([
      ['page_navigation', 0, nav('L1', 'https://app.example/#/a')],
      ['page_navigation', 10, nav('L1', 'https://app.example/#/b')],
    ]);
    const page = only(spans, (s) => s.kind === 1);
    expect(page.attributes['browser.navigation.same_document_count']).toBe(1);
    expect(page.events.map((e) => e.name)).toEqual(['browser.navigation.same_document']);
  });

  it('an api_call is a span of its own, began duration_ms before the event', () => {
    const { spans, refs } = run([
      ['api_call', 100, { request_id: 'r-1', operation_id: 'Navigate', status: 500, duration_ms: 40 }],
    ]);
    const call = only(spans, () => true);
    expect(call).toMatchObject({
      name: 'Navigate',
      startMicros: T0 + 60_000,
      endMicros: T0 + 100_000,
      status: { code: 2 },
    });
    expect(refs[0]).toEqual({ traceId: call.traceId, spanId: call.spanId });
  });

  it.each([
    ['older than the epoch', 1e15],
    ['beyond a double once in nanoseconds', 1e300],
  ])('an api_call whose duration_ms is %s starts at the epoch, never at a negative time', (_, duration_ms) => {
    const { spans } = run([['api_call', 100, { request_id: 'r-1', operation_id: 'Navigate', duration_ms }]]);
    expect(only(spans, () => true)).toMatchObject({ startMicros: 0, endMicros: T0 + 100_000 });
  });

  it('a renderer crash ends the target’s pages with status ERROR', () => {
    const { spans } = run(
      [
        ['page_navigation', 0, nav('L1', 'https://a.example/')],
        ['page_crashed', 10, { target_id: 'T1', target_type: 'page', url: 'https://a.example/' }],
      ],
      false,
    );
    expect(only(spans, () => true)).toMatchObject({
      status: { code: 2 },
      attributes: { 'browser.span.end_reason': 'page_crashed' },
    });
  });

  it('session-level events belong to no span', () => {
    const { refs } = run([['monitor_disconnected', 0, { reason: 'x' }]]);
    expect(refs).toEqual([undefined]);
  });
});

describe('a page that never finishes what it opens', () => {
  // 20,000 requests without a response and 1,000 pages (each in its own frame, so none is left)
  // without a load: the open state stays at its bounds, and each span cut is said to be cut.
  const steps: Step[] = [];
  for (let i = 0; i < 1000; i++) steps.push(['page_navigation', i, nav(`L${i}`, 'https://a.example/', `F${i}`)]);
  for (let i = 0; i < 20_000; i++) steps.push(['network_request', 1000, req('L999', `r${i}`, 'https://a.example/x')]);
  const { spans, builder } = run(steps, false);

  it('keeps the open documents and requests at their bounds', () => {
    const state = builder.snapshot();
    expect(state.docs).toHaveLength(MAX_OPEN_DOCS);
    expect(state.requests).toHaveLength(MAX_OPEN_REQUESTS);
    expect(builder.snapshotJson().length).toBeLessThan(2_000_000);
  });

  it('emits every evicted span once, marked evicted', () => {
    const pages = spans.filter((s) => s.kind === 1);
    const requests = spans.filter((s) => s.kind === 3);
    expect(pages).toHaveLength(1000 - MAX_OPEN_DOCS);
    expect(requests).toHaveLength(20_000 - MAX_OPEN_REQUESTS);
    expect(new Set(requests.map((s) => s.spanId)).size).toBe(requests.length);
    for (const s of [...pages, ...requests]) expect(s.attributes['browser.span.end_reason']).toBe('evicted');
  });
});

describe('events of a finished request seen again', () => {
  const PAGE: Step[] = [
    ['network_request', 0, doc('L1', 'https://a.example/')],
    ['network_response', 10, { ...doc('L1', 'https://a.example/'), status: 200 }],
    ['page_navigation', 20, nav('L1', 'https://a.example/')],
  ];
  const script = (id: string, url: string) => req('L1', id, url);
  /** The CLIENT spans of the scripts (the page's own document request is one too). */
  const scripts = (spans: BridgeSpan[]) =>
    spans.filter((s) => s.kind === 3 && String(s.attributes['url.full']).endsWith('.js'));

  it('a response before its request: one span, marked start_unknown, nothing left open; both records point at it', () => {
    const { spans, refs } = run([
      ...PAGE,
      ['network_response', 40, { ...script('9.1', 'https://a.example/app.js'), status: 200 }],
      ['network_request', 30, script('9.1', 'https://a.example/app.js')],
    ]);
    const clients = scripts(spans);
    expect(clients).toHaveLength(1);
    expect(clients[0]!.attributes['browser.span.start_unknown']).toBe(true);
    expect(clients[0]!.attributes['browser.span.end_reason']).toBeUndefined();
    expect(refs[3]).toEqual(refs[4]);
    expect(refs[4]!.spanId).toBe(clients[0]!.spanId);
  });

  it('a request and its response sent again (a new epoch): no second span under the same id', () => {
    const once: Step[] = [
      ['network_request', 50, script('9.2', 'https://a.example/b.js')],
      ['network_response', 60, { ...script('9.2', 'https://a.example/b.js'), status: 200 }],
    ];
    const { spans } = run([...PAGE, ...once, ...once]);
    const ids = spans.map((s) => s.spanId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(scripts(spans)).toHaveLength(1);
  });

  it('is remembered across a snapshot, as a restarted bridge continues', () => {
    const first = run(
      [
        ...PAGE,
        ['network_request', 50, script('9.3', 'https://a.example/c.js')],
        ['network_response', 60, { ...script('9.3', 'https://a.example/c.js'), status: 200 }],
      ],
      false,
    );
    const restored = createSpanBuilder(SESSION, JSON.parse(first.builder.snapshotJson()) as never);
    const [again] = envelopes([['network_request', 50, script('9.3', 'https://a.example/c.js')]]);
    expect(restored.observe(again!, mapped(again!)).finished).toEqual([]);
    expect(scripts(restored.end())).toEqual([]);
    expect(first.builder.snapshot()).toEqual(JSON.parse(first.builder.snapshotJson()));
  });
});

describe('a page restored from the back/forward cache (its loader committed again)', () => {
  const STEPS: Step[] = [
    ['network_request', 0, doc('L1', 'https://a.example/')],
    ['network_response', 10, { ...doc('L1', 'https://a.example/'), status: 200 }],
    ['page_navigation', 20, nav('L1', 'https://a.example/')],
    ['page_load', 40, { frame_id: 'F1', loader_id: 'L1' }],
    ['network_request', 100, doc('L2', 'https://b.example/')],
    ['page_navigation', 120, nav('L2', 'https://b.example/')],
    // Back: Chromium restores the first page from its cache, with its loader; no document request.
    ['page_navigation', 200, nav('L1', 'https://a.example/')],
    ['network_request', 250, req('L1', '8.1', 'https://a.example/after-restore.js')],
    ['network_response', 300, { ...req('L1', '8.1', 'https://a.example/after-restore.js'), status: 200 }],
    ['console_log', 310, { ...ctx('L1'), level: 'log', text: 'restored' }],
  ];
  const visitOf = (loader: string, visit: number): SpanRef => ({
    traceId: traceIdOf('navigation', [SESSION, loader, `visit:${visit}`]),
    spanId: spanIdOf('navigation', [SESSION, loader, `visit:${visit}`]),
  });

  it('is a navigation span of its own, linked to the first visit, with what the restored page did under it', () => {
    const { spans, refs } = run(STEPS);
    const pages = byName(spans, 'https://a.example/').filter((s) => s.kind === 1);
    expect(pages.map((s) => s.spanId)).toEqual([navOf('L1').spanId, visitOf('L1', 1).spanId]);
    const [first, restored] = pages as [BridgeSpan, BridgeSpan];
    expect(first.attributes['browser.span.end_reason']).toBe('navigated_away');
    expect(first.attributes['browser.navigation.restored_visit']).toBeUndefined();
    expect(restored).toMatchObject(visitOf('L1', 1));
    expect(restored.attributes['browser.navigation.restored_visit']).toBe(1);
    // It loaded in its first visit: a restore fires no load event and is not incomplete.
    expect(restored.attributes['browser.span.incomplete']).toBeUndefined();
    expect(restored.links.map((l) => l.spanId)).toEqual([first.spanId]);
    expect(restored.startMicros - T0).toBe(200_000);
    const left = only(spans, (s) => s.kind === 1 && s.name === 'https://b.example/');
    expect(left.attributes['browser.span.end_reason']).toBe('navigated_away');
    const after = only(spans, (s) => s.attributes['url.full'] === 'https://a.example/after-restore.js');
    expect(after).toMatchObject({ traceId: restored.traceId, parentSpanId: restored.spanId });
    expect(refs.slice(6).map((r) => r?.spanId)).toEqual([restored.spanId, after.spanId, after.spanId, restored.spanId]);
  });

  it('keeps its ids across a snapshot taken before or after the restore, as a restarted bridge continues', () => {
    const whole = run(STEPS).spans;
    for (const cut of [5, 6, 7, 8]) {
      const first = run(STEPS.slice(0, cut), false);
      expect(first.builder.snapshot(), `cut ${cut}`).toEqual(JSON.parse(first.builder.snapshotJson()));
      const restored = createSpanBuilder(SESSION, JSON.parse(first.builder.snapshotJson()) as never);
      const spans = [...first.spans];
      for (const env of envelopes(STEPS).slice(cut)) spans.push(...restored.observe(env, mapped(env)).finished);
      spans.push(...restored.end());
      expect(spans, `cut ${cut}`).toEqual(whole);
    }
  });

  it('a navigation the service sends again (its original time, before the page that followed) reopens nothing', () => {
    const { spans, refs } = run([...STEPS.slice(0, 6), ['page_navigation', 20, nav('L1', 'https://a.example/')]]);
    expect(refs[6]).toEqual(navOf('L1'));
    expect(spans.filter((s) => s.kind === 1 && s.name === 'https://a.example/')).toHaveLength(1);
    const b = only(spans, (s) => s.kind === 1 && s.name === 'https://b.example/');
    expect(b.attributes['browser.span.end_reason']).toBe('session_end');
  });

  it('a finished request of the first visit seen again after the restore stays in the first visit’s trace', () => {
    const script = req('L1', '9.1', 'https://a.example/app.js');
    const { spans, refs } = run([
      ...STEPS.slice(0, 3),
      ['network_request', 30, script],
      ['network_response', 35, { ...script, status: 200 }],
      ...STEPS.slice(3, 7),
      ['network_response', 210, { ...script, status: 200 }],
    ]);
    const app = only(spans, (s) => s.attributes['url.full'] === 'https://a.example/app.js');
    expect(app.traceId).toBe(navOf('L1').traceId);
    expect(refs.at(-1)).toEqual({ traceId: app.traceId, spanId: app.spanId });
  });

  it('an event of the left page other than its navigation still points at the first visit and reopens nothing', () => {
    const { spans, refs } = run([
      ...STEPS.slice(0, 6),
      ['console_log', 150, { ...ctx('L1'), level: 'log', text: 'late' }],
    ]);
    expect(refs[6]).toEqual(navOf('L1'));
    expect(spans.filter((s) => s.kind === 1 && s.name === 'https://a.example/')).toHaveLength(1);
  });
});
