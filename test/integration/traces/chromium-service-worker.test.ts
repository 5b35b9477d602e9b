// The spans of a page whose fetches a service worker answers, against a real Chromium: the worker
// passes one fetch on to the network (its own request, in its own target) and answers another
// itself, without the network. Chromium reports the page's request in the page's target (its
// response marked fromServiceWorker) and the worker's request in the worker's target, without a
// loader. What CDP reports is turned into the service's events (service-events.ts, each target's
// type stamped as the service stamps it), mapped with the default options and fed to the span
// builder. docs/traces.md promises: the page's requests stay in the page's trace whoever answered
// them, and a request without a loader (the worker's) is the root of a trace of its own.
// Skipped where no Chromium is installed (CHROMIUM_PATH, or chromium / chromium-browser on PATH).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';
import type { BridgeSpan, SpanRef } from '../../../src/vocabulary/span.js';
import { chromiumUnderTest, findChromium, startChromium, type ChromiumHandle } from '../devkit/chromium.js';
import { browserWaits, followAsService, openTabAsService, targetEvents } from '../devkit/service-targets.js';
import { sessionSpans, type TimedServiceEvent } from '../devkit/service-spans.js';

const chromium = findChromium();
const WAIT_MS = 20_000;
const SESSION = 's-chromium-sw';

// The worker answers /made-up itself and passes every other fetch of the page on to the network.
const SW_JS = `self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  if (url.pathname === '/made-up') e.respondWith(new Response('{"from":"worker"}', { headers: { 'content-type': 'application/json' } }));
  else if (url.pathname === '/api') e.respondWith(fetch(e.request));
});`;

const PAGE = `<!doctype html><title>sw</title><script>
(async () => {
  await navigator.serviceWorker.register('/sw.js');
  await navigator.serviceWorker.ready;
  if (!navigator.serviceWorker.controller)
    await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
  await (await fetch('/api?token=SECRET-API')).text();
  await (await fetch('/made-up?token=SECRET-MADE')).text();
  console.log('sw done');
})().catch((e) => console.log('sw failed ' + e));
</script>`;

/** One event as the service would send it, with the wall time it arrived at and its target's type. */
interface Timed extends TimedServiceEvent {
  targetType: string;
}

const nowMicros = (): number => Math.round((performance.timeOrigin + performance.now()) * 1000);

describe.skipIf(chromium === undefined)(`a service worker's fetches against ${chromiumUnderTest(chromium)}`, () => {
  let server: Server;
  let browser: ChromiumHandle | undefined;
  let base = '';
  const events: Timed[] = [];
  /** What the browser reported of each request, for the assertions on what it is made of. */
  const fromServiceWorker = new Set<string>();
  let records: BridgeLogRecord[] = [];
  let refs: Array<{ event: Timed; ref: SpanRef | undefined }> = [];
  let spans: BridgeSpan[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      else if (path === '/sw.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(SW_JS);
      else if (path === '/api') res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    browser = startChromium(chromium!);
    const { failed } = browser;
    const cdp = await browser.connect();
    const { until, wake } = browserWaits(failed, WAIT_MS);
    const { targets, enabled } = followAsService(cdp, (t, method, p) => {
      for (const ev of targetEvents(t, method, p)) events.push({ ...ev, ts: nowMicros(), targetType: t.type });
      if (method === 'Network.responseReceived') {
        const response = p.response as { url: string; fromServiceWorker?: boolean };
        if (response.fromServiceWorker === true) fromServiceWorker.add(response.url);
      }
      wake();
    });
    const targetId = await openTabAsService(cdp, failed, until, enabled);
    const [tabSession] = [...targets.entries()].find(([, t]) => t.targetId === targetId)!;
    await Promise.race([failed, cdp.send('Page.navigate', { url: `${base}/` }, tabSession)]);
    const logged = (text: string): boolean =>
      events.some((e) => e.type === 'console_log' && String(e.data.text).startsWith(text));
    await until('the page done and its requests ended', () => {
      if (logged('sw failed')) return true;
      // Chromium's own pages (browser_ui targets: the omnibox popup) load resources of their own
      // meanwhile; only the page's and the worker's requests are waited for.
      const open = [...targets.values()]
        .filter((t) => t.type === 'page' || t.type === 'service_worker')
        .flatMap((t) => [...t.requests.keys()].filter((id) => !t.ended.has(id)));
      return logged('sw done') && open.length === 0;
    });
    const failure = events.find((e) => e.type === 'console_log' && String(e.data.text).startsWith('sw failed'));
    if (failure !== undefined) throw new Error(`the page says: ${String(failure.data.text)}`);

    ({ records, refs, spans } = sessionSpans(SESSION, events));
  }, WAIT_MS + 15_000);

  afterAll(async () => {
    await browser?.stop();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const client = (): BridgeSpan[] => spans.filter((s) => s.kind === 3);
  const urlOf = (s: BridgeSpan): string => String(s.attributes['url.full'] ?? '');
  const requestsOf = (targetType: string, path: string): Timed[] =>
    events.filter(
      (e) => e.type === 'network_request' && e.targetType === targetType && String(e.data.url).includes(path),
    );

  it('the browser reported the page asking, the worker fetching once and answering twice', () => {
    expect(requestsOf('page', '/api?')).toHaveLength(1);
    expect(requestsOf('page', '/made-up?')).toHaveLength(1);
    // The worker's own request, without a loader: only the one it passed on reached the network.
    const own = requestsOf('service_worker', '/api?');
    expect(own).toHaveLength(1);
    expect(own[0]!.data.loader_id ?? '').toBe('');
    expect(requestsOf('service_worker', '/made-up')).toHaveLength(0);
    expect([...fromServiceWorker].some((u) => u.includes('/made-up?'))).toBe(true);
    expect([...fromServiceWorker].some((u) => u.includes('/api?'))).toBe(true);
  });

  it("keeps the page's requests under its navigation, in its trace, whoever answered them", () => {
    const pages = spans.filter((s) => s.kind === 1 && s.name === `${base}/`);
    expect(pages).toHaveLength(1);
    const page = pages[0]!;
    for (const path of ['/api?', '/made-up?']) {
      const own = requestsOf('page', path)[0]!;
      const span = client().filter((s) => s.attributes['browser.network.request.id'] === own.data.request_id);
      expect(span, path).toHaveLength(1);
      expect(span[0]!.traceId, path).toBe(page.traceId);
      expect(span[0]!.parentSpanId, path).toBe(page.spanId);
      expect(span[0]!.attributes['http.response.status_code'], path).toBe(200);
    }
  });

  it("makes the worker's own request the root of a trace of its own", () => {
    const own = requestsOf('service_worker', '/api?')[0]!;
    const span = client().filter(
      (s) => s.attributes['browser.network.request.id'] === own.data.request_id && urlOf(s) !== '',
    );
    const page = spans.find((s) => s.kind === 1)!;
    // Request ids are the browser's, one space for every target: the page's and the worker's differ.
    expect(own.data.request_id).not.toBe(requestsOf('page', '/api?')[0]!.data.request_id);
    expect(span).toHaveLength(1);
    expect(span[0]!.parentSpanId).toBeUndefined();
    expect(span[0]!.traceId).not.toBe(page.traceId);
    expect(span[0]!.attributes['http.response.status_code']).toBe(200);
  });

  it('points every record at a span that exists, and ends no span before it starts', () => {
    const ids = new Set(spans.map((s) => s.spanId));
    for (const { event, ref } of refs) if (ref !== undefined) expect(ids.has(ref.spanId), event.type).toBe(true);
    for (const r of records) if (r.spanId !== undefined) expect(ids.has(r.spanId)).toBe(true);
    for (const s of spans) expect(s.endMicros, s.name).toBeGreaterThanOrEqual(s.startMicros);
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
  });

  it("keeps what Chromium's own pages load out of the page's trace", () => {
    // Browser-wide auto-attach, as the service attaches, also reaches Chromium's own pages where the
    // browser shows them as targets (Chromium 150 headless: the omnibox popup, a browser_ui target
    // loading about a hundred chrome:// resources). Their requests are in traces of their own.
    const page = spans.find((s) => s.kind === 1 && s.name === `${base}/`)!;
    const own = spans.filter((x) => urlOf(x).startsWith('chrome:') || x.name.startsWith('chrome:'));
    // Where the browser showed such a page, its requests made spans: the check below is not empty.
    if (events.some((e) => e.targetType === 'browser_ui' && e.type === 'network_request'))
      expect(own.length).toBeGreaterThan(0);
    for (const s of own) expect(s.traceId, s.name).not.toBe(page.traceId);
  });

  it('carries no secret a query string held', () => {
    const text = JSON.stringify([spans, records]);
    expect(text).not.toMatch(/SECRET-/);
  });
});
