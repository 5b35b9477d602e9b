// The spans of a real Chromium session (docs/traces.md), not of scripted events: headless Chromium,
// attached as the service attaches (browser-wide auto-attach), visits a loopback server: a 302 → 301
// → 200 redirect chain into a page with a script, an image, a fetch answered 404, a fetch to a closed
// port, a fetch the server never answers, an iframe with its own requests, a pushState and a hash
// change, a console.error and an uncaught exception; then a second page in the same tab opens a new tab whose fetch the server never
// answers, and the session ends. What CDP reports is turned into the service's events
// (service-events.ts, with the event context the service stamps), mapped with the default options
// and fed to the span builder; the spans must keep what docs/traces.md promises, carry no secret
// of a query string, and survive the OTLP encoding and the receiver's decoding.
// Skipped where no Chromium is installed (CHROMIUM_PATH, or chromium / chromium-browser on PATH).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTracesRequest } from '../../../src/devkit/receiver/decode-traces.js';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';
import type { BridgeSpan, SpanRef } from '../../../src/vocabulary/span.js';
import { createSpanEncoder } from '../../../src/wire/encode-span.js';
import { createRequestBuilder, joinBody } from '../../../src/wire/otlp-request.js';
import { chromiumUnderTest, findChromium, startChromium, type ChromiumHandle } from '../devkit/chromium.js';
import {
  browserWaits,
  enableAsService,
  openTabAsService,
  pageContext,
  serviceTarget,
  targetEvents,
  type ServiceTarget,
} from '../devkit/service-targets.js';
import { sessionSpans, type TimedServiceEvent } from '../devkit/service-spans.js';

const chromium = findChromium();
const WAIT_MS = 20_000;
const SESSION = 's-chromium-spans';

const page1 = (refusedPort: number): string => `<!doctype html><title>one</title>
<script src="/app.js?token=SECRET-JS"></script><img src="/logo.png?token=SECRET-IMG">
<iframe src="/frame?token=SECRET-FRAME"></iframe><script>
(async () => {
  // Never answered: cancelled when the tab goes to the next page.
  fetch('/slow?token=SECRET-SLOW').catch(() => undefined);
  await (await fetch('/missing?token=SECRET-404')).text();
  await fetch('http://127.0.0.1:${refusedPort}/refused?token=SECRET-REFUSED').catch(() => undefined);
  history.pushState({}, '', '/page1/pushed?token=SECRET-PUSH');
  location.hash = 'section';
  console.error('cart failed to render');
  setTimeout(() => { throw new TypeError('uncaught in page one'); }, 0);
  setTimeout(() => console.log('page1 done'), 0);
})();
</script>`;
const FRAME = `<!doctype html><title>frame</title><img src="/pixel.png?token=SECRET-PIXEL"><script>
fetch('/frame-data?token=SECRET-FD').then((r) => r.text()).then(() => console.log('frame done'));
</script>`;
const PAGE2 = `<!doctype html><title>two</title><script>
window.open('/tab?token=SECRET-TAB');
console.log('page2 done');
</script>`;
const TAB = `<!doctype html><title>tab</title><script>fetch('/hold?token=SECRET-HOLD');</script>`;

/** One event as the service would send it, with the wall time it arrived at. */
type Timed = TimedServiceEvent;

interface Target extends ServiceTarget {
  /** The tab that opened this one (window.open). */
  openerId?: string;
  /** The URL of each load the tab fired. */
  loads: string[];
}

const nowMicros = (): number => Math.round((performance.timeOrigin + performance.now()) * 1000);

describe.skipIf(chromium === undefined)(`spans of a real session against ${chromiumUnderTest(chromium)}`, () => {
  let server: Server;
  let browser: ChromiumHandle | undefined;
  let base = '';
  const held: ServerResponse[] = [];
  const events: Timed[] = [];
  const targets = new Map<string, Target>();
  let startedMicros = 0;
  let records: BridgeLogRecord[] = [];
  let refs: Array<{ event: Timed; ref: SpanRef | undefined }> = [];
  let spans: BridgeSpan[] = [];

  beforeAll(
    async () => {
      startedMicros = nowMicros();
      // A port nothing listens on: the fetch to it fails with a connection refused.
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const refusedPort = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const html = (res: ServerResponse, body: string): void =>
        void res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      let wake: () => void = () => undefined;
      let holding = false;
      server = createServer((req, res) => {
        req.resume();
        const path = (req.url ?? '/').split('?')[0];
        if (path === '/hold') holding = true;
        if (path === '/r1') res.writeHead(302, { location: '/r2?token=SECRET-R2' }).end();
        else if (path === '/r2') res.writeHead(301, { location: '/page1?token=SECRET-P1' }).end();
        else if (path === '/page1') html(res, page1(refusedPort));
        else if (path === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end('window.app = 1;');
        else if (path === '/logo.png' || path === '/pixel.png')
          res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(8));
        else if (path === '/missing') res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
        else if (path === '/frame') html(res, FRAME);
        else if (path === '/frame-data') res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        else if (path === '/page2') html(res, PAGE2);
        else if (path === '/tab') html(res, TAB);
        else if (path === '/hold') {
          // Answered never: the request is still open when the session ends.
          held.push(res);
          wake();
        } else if (path === '/slow') {
          held.push(res);
          wake();
        } else res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

      browser = startChromium(chromium!, ['--disable-popup-blocking']);
      const { failed } = browser;
      const cdp = await browser.connect();
      const ready = new Map<string, Promise<unknown>>();
      const waits = browserWaits(failed, WAIT_MS);
      wake = waits.wake;
      const { until } = waits;
      cdp.on(({ method, params: p, sessionId }) => {
        if (method === 'Target.attachedToTarget') {
          const { sessionId: child, targetInfo } = p as {
            sessionId: string;
            targetInfo: { targetId: string; type: string; url: string; openerId?: string };
          };
          if (targetInfo.type !== 'page') {
            void cdp.send('Runtime.runIfWaitingForDebugger', {}, child).catch(() => undefined);
            return;
          }
          const t: Target = {
            ...serviceTarget(targetInfo.targetId, 'page'),
            ...(targetInfo.openerId === undefined ? {} : { openerId: targetInfo.openerId }),
            loads: [],
          };
          targets.set(child, t);
          if (targetInfo.openerId !== undefined)
            events.push({
              type: 'page_tab_opened',
              category: 'page',
              data: {
                target_id: targetInfo.targetId,
                target_type: 'page',
                url: targetInfo.url,
                opener_id: targetInfo.openerId,
              },
              ts: nowMicros(),
            });
          ready.set(targetInfo.targetId, enableAsService(cdp, child, 'page'));
          return;
        }
        const t = sessionId === undefined ? undefined : targets.get(sessionId);
        if (t === undefined) return;
        for (const ev of targetEvents(t, method, p)) events.push({ ...ev, ts: nowMicros() });
        if (method === 'Page.loadEventFired') t.loads.push(String(pageContext(t).url));
        wake();
      });
      const logged = (text: string): boolean => events.some((e) => e.type === 'console_log' && e.data.text === text);

      const targetId = await openTabAsService(cdp, failed, until, ready);
      const tab = [...targets.entries()].find(([, t]) => t.targetId === targetId)!;
      const [tabSession, first] = tab;

      await Promise.race([failed, cdp.send('Page.navigate', { url: `${base}/r1?token=SECRET-R1` }, tabSession)]);
      await until('the first page done, loaded and quiet', () => {
        const open = [...first.requests.entries()].filter(
          ([id, r]) => !first.ended.has(id) && !String(r.url).includes('/slow'),
        );
        return (
          logged('page1 done') &&
          logged('frame done') &&
          first.loads.some((u) => u.includes('/page1')) &&
          events.some((e) => e.type === 'console_error' && e.data.line !== undefined) &&
          open.length === 0
        );
      });
      await Promise.race([failed, cdp.send('Page.navigate', { url: `${base}/page2` }, tabSession)]);
      await until('the new tab fetching what is held', () => {
        // Auto-attach also attached the tab the browser started with: the new one is the opened one.
        const opened = [...targets.values()].find((t) => t.openerId === targetId);
        return (
          logged('page2 done') &&
          first.loads.some((u) => u.includes('/page2')) &&
          holding &&
          opened !== undefined &&
          opened.loads.length === 1 &&
          [...opened.requests.entries()].every(([id, r]) => opened.ended.has(id) === !String(r.url).includes('/hold'))
        );
      });

      ({ records, refs, spans } = sessionSpans(SESSION, events));
    },
    2 * WAIT_MS + 15_000,
  );

  afterAll(async () => {
    await browser?.stop();
    for (const res of held) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const byId = (): Map<string, BridgeSpan> => new Map(spans.map((s) => [s.spanId, s]));
  const client = (): BridgeSpan[] => spans.filter((s) => s.kind === 3);
  const urlOf = (s: BridgeSpan): string => String(s.attributes['url.full'] ?? '');
  const navigation = (path: string): BridgeSpan => {
    const found = spans.filter((s) => s.kind === 1 && s.name === `${base}${path}`);
    expect(
      found.map((s) => s.name),
      path,
    ).toHaveLength(1);
    return found[0]!;
  };

  it('the browser reported what the spans are made of', () => {
    const requests = events.filter((e) => e.type === 'network_request');
    // The redirect chain: three hops under one request id, the document's loader id.
    const chain = requests.filter((e) => /\/(r1|r2|page1)\?/.test(String(e.data.url)));
    expect(chain.map((e) => e.data.request_id)).toEqual(Array(3).fill(chain[0]!.data.loader_id));
    expect(chain.map((e) => e.data.is_redirect ?? false)).toEqual([false, true, true]);
    expect(
      events.some((e) => e.type === 'network_loading_failed' && e.data.error_text === 'net::ERR_CONNECTION_REFUSED'),
    ).toBe(true);
    expect(events.some((e) => e.type === 'network_response' && e.data.status === 404)).toBe(true);
    expect(events.some((e) => e.type === 'page_navigation' && e.data.parent_frame_id !== '')).toBe(true);
    expect(events.filter((e) => e.type === 'page_tab_opened')).toHaveLength(1);
    expect(new Set(events.map((e) => e.data.target_id)).size).toBe(2);
  });

  it('names every span once, and every record points at a span that exists', () => {
    const ids = spans.map((s) => s.spanId);
    expect(new Set(ids).size).toBe(ids.length);
    const known = byId();
    for (const { event, ref } of refs) {
      if (ref === undefined) continue;
      const span = known.get(ref.spanId);
      expect(span, `${event.type} ${String(event.data.url)}`).toBeDefined();
      expect(span!.traceId).toBe(ref.traceId);
    }
    // Every event of a page or a request belongs to a span.
    for (const { event, ref } of refs)
      if (event.type.startsWith('network_') || event.type === 'console_error' || event.type === 'page_load')
        expect(ref, `${event.type} ${String(event.data.url)}`).toBeDefined();
  });

  it('puts each request under its own document, in its trace', () => {
    const known = byId();
    for (const s of client()) {
      const parent = known.get(s.parentSpanId ?? '');
      expect(parent, `${urlOf(s)}`).toBeDefined();
      expect(parent!.kind).toBe(1);
      expect(parent!.traceId).toBe(s.traceId);
    }
    const one = navigation('/page1');
    for (const path of ['/app.js', '/logo.png', '/missing', '/refused'])
      expect(
        client()
          .filter((s) => urlOf(s).includes(path))
          .map((s) => s.parentSpanId),
        path,
      ).toEqual([one.spanId]);
  });

  it('makes each redirect hop its own span, in order, the last with the final status', () => {
    const hops = client()
      .filter((s) => /\/(r1|r2|page1)\?/.test(urlOf(s)))
      .sort(
        (a, b) =>
          Number(a.attributes['http.request.resend_count'] ?? 0) -
          Number(b.attributes['http.request.resend_count'] ?? 0),
      );
    expect(hops.map((s) => new URL(urlOf(s)).pathname)).toEqual(['/r1', '/r2', '/page1']);
    expect(hops.map((s) => s.attributes['http.request.resend_count'])).toEqual([undefined, 1, 2]);
    expect(hops.map((s) => s.attributes['http.response.status_code'])).toEqual([undefined, undefined, 200]);
    for (let i = 1; i < hops.length; i++) expect(hops[i]!.startMicros).toBeGreaterThanOrEqual(hops[i - 1]!.endMicros);
    expect(new Set(hops.map((s) => s.parentSpanId))).toEqual(new Set([navigation('/page1').spanId]));
  });

  it('keeps a load still open when its page is left open in that page until the session ends', () => {
    const [slow] = client().filter((s) => urlOf(s).includes('/slow'));
    // Chromium cancels the loads of a document it replaces without a Network.loadingFailed: the
    // builder keeps them open, as it would a request that outlives its page (docs/traces.md).
    const id = slow!.attributes['browser.network.request.id'];
    expect(events.filter((e) => e.data.request_id === id).map((e) => e.type)).toEqual(['network_request']);
    expect(slow!.parentSpanId).toBe(navigation('/page1').spanId);
    expect(slow!.status).toEqual({ code: 0 });
    expect(slow!.attributes).toMatchObject({
      'browser.span.end_reason': 'session_end',
      'browser.span.incomplete': true,
    });
  });

  it('marks a 404 and a failed fetch as errors', () => {
    const [missing] = client().filter((s) => urlOf(s).includes('/missing'));
    expect(missing!.status.code).toBe(2);
    expect(missing!.attributes['error.type']).toBe('404');
    expect(missing!.attributes['http.response.status_code']).toBe(404);
    const [refused] = client().filter((s) => urlOf(s).includes('/refused'));
    expect(refused!.status).toEqual({ code: 2, message: 'net::ERR_CONNECTION_REFUSED' });
    expect(refused!.attributes['error.type']).toBe('net::ERR_CONNECTION_REFUSED');
    for (const path of ['/app.js', '/logo.png', '/frame-data', '/pixel.png'])
      expect(client().find((s) => urlOf(s).includes(path))?.status, path).toEqual({ code: 0 });
  });

  it("links the iframe's document to its page's, its requests under it", () => {
    const one = navigation('/page1');
    const frame = navigation('/frame');
    expect(frame.attributes['browser.frame.kind']).toBe('iframe');
    expect(frame.links.map((l) => [l.traceId, l.spanId])).toEqual([[one.traceId, one.spanId]]);
    expect(frame.traceId).not.toBe(one.traceId);
    for (const path of ['/frame-data', '/pixel.png'])
      expect(
        client()
          .filter((s) => urlOf(s).includes(path))
          .map((s) => s.parentSpanId),
        path,
      ).toEqual([frame.spanId]);
    // Its page was left: the iframe went with it.
    expect(frame.attributes['browser.span.end_reason']).toBe('navigated_away');
    // Chromium's load event (Page.loadEventFired) is the top frame's only: an iframe's never comes,
    // and its page's load, which waits for it, is seen instead.
    expect(events.filter((e) => e.type === 'page_load').map((e) => e.data.frame_id)).not.toContain(
      frame.attributes['browser.frame.id'],
    );
    expect(frame.attributes['browser.span.incomplete']).toBeUndefined();
    expect(frame.endMicros).toBeLessThanOrEqual(navigation('/page2').startMicros);
  });

  it('keeps the same-document navigations in the page, and ends the page when it is left', () => {
    const one = navigation('/page1');
    expect(spans.filter((s) => s.name.includes('pushed'))).toEqual([]);
    expect(one.attributes['browser.span.end_reason']).toBe('navigated_away');
    expect(one.attributes['browser.span.incomplete']).toBeUndefined();
    // The console error and the exception came after the pushState and the hash change.
    const exceptions = one.events.filter((e) => e.name === 'exception');
    // Chromium's text of an uncaught exception is the bare label, the whole message (docs/mapping.md).
    expect(exceptions.map((e) => [e.attributes['exception.type'], e.attributes['exception.message']])).toEqual([
      ['console.error', 'cart failed to render'],
      [undefined, 'Uncaught'],
    ]);
    expect(exceptions[1]!.attributes['exception.stacktrace']).toMatch(/^Uncaught\n {4}at /);
    expect(one.attributes['browser.console.error_count']).toBe(2);
    expect(one.events.map((e) => e.name)).toContain('browser.page.load');
    const two = navigation('/page2');
    expect(two.traceId).not.toBe(one.traceId);
    expect(two.attributes['browser.span.end_reason']).toBe('session_end');
    expect(two.attributes['browser.span.incomplete']).toBeUndefined();
  });

  it('gives the new tab a trace of its own and flushes its held request at the session end', () => {
    const tab = navigation('/tab');
    expect(tab.attributes['browser.frame.kind']).toBe('top');
    expect(tab.attributes['browser.target.id']).not.toBe(navigation('/page2').attributes['browser.target.id']);
    expect(tab.attributes['browser.span.end_reason']).toBe('session_end');
    expect(tab.attributes['browser.span.incomplete']).toBeUndefined();
    expect(client().find((s) => urlOf(s).includes('/tab'))?.attributes['http.response.status_code']).toBe(200);
    const hold = client().filter((s) => urlOf(s).includes('/hold'));
    expect(hold).toHaveLength(1);
    expect(hold[0]!.parentSpanId).toBe(tab.spanId);
    expect(hold[0]!.attributes['browser.span.incomplete']).toBe(true);
    expect(hold[0]!.attributes['browser.span.end_reason']).toBe('session_end');
  });

  it('has no span ending before it starts, nor one outside the session', () => {
    const last = Math.max(...events.map((e) => e.ts));
    for (const s of spans) {
      expect(s.endMicros, s.name).toBeGreaterThanOrEqual(s.startMicros);
      expect(s.startMicros, s.name).toBeGreaterThanOrEqual(startedMicros);
      expect(s.endMicros, s.name).toBeLessThanOrEqual(last);
      for (const e of s.events) expect(e.tsMicros, `${s.name} ${e.name}`).toBeGreaterThanOrEqual(s.startMicros);
    }
  });

  it('carries no secret a query string held', () => {
    expect(JSON.stringify(events)).toContain('SECRET-HOLD');
    expect(JSON.stringify(spans).match(/SECRET-[A-Z0-9]+/g) ?? []).toEqual([]);
    expect(JSON.stringify(records).match(/SECRET-[A-Z0-9]+/g) ?? []).toEqual([]);
  });

  it('round-trips through the OTLP encoding and the receiver', () => {
    const encode = createSpanEncoder();
    const rs = { resource: { 'service.name': 'bridge' }, scope: { name: 't', version: '1' } };
    for (const [protocol, format] of [
      ['http/protobuf', 'protobuf'],
      ['http/json', 'json'],
    ] as const) {
      const body = joinBody(createRequestBuilder(protocol, rs, 'traces').build(spans.map((s) => encode(s))));
      const got = decodeTracesRequest(body, format);
      expect(
        got.map((s) => ({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId,
          name: s.name,
          kind: s.kind,
          start: s.startTimeUnixNano,
          end: s.endTimeUnixNano,
          attributes: s.attributes,
          events: s.events.map((e) => ({ name: e.name, ts: e.timeUnixNano, attributes: e.attributes })),
          links: s.links.map((l) => [l.traceId, l.spanId]),
          status: s.status,
        })),
        protocol,
      ).toEqual(
        spans.map((s) => ({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId,
          name: s.name,
          kind: s.kind,
          start: BigInt(s.startMicros) * 1000n,
          end: BigInt(s.endMicros) * 1000n,
          attributes: s.attributes,
          events: s.events.map((e) => ({ name: e.name, ts: BigInt(e.tsMicros) * 1000n, attributes: e.attributes })),
          links: s.links.map((l) => [l.traceId, l.spanId]),
          status: { code: s.status.code, message: s.status.message ?? '' },
        })),
      );
    }
  });
});
