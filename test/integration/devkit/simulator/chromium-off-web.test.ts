// The simulator's URLs that are no web page, against a real Chromium: images a page inlines as
// data: URLs, a blob: URL it fetches, an iframe without src, and the error page a failed navigation
// leaves. Headless Chromium loads a page from a loopback server that holds the simulator's inline
// images and an empty iframe, fetches a blob it made, then navigates to a name that does not
// resolve; what CDP reports (in the fields the service copies into network_request,
// network_response and page_navigation) must be the simulator's form. Skipped where no Chromium is
// installed (CHROMIUM_PATH, or chromium / chromium-browser on PATH). Re-run with
// `npx vitest run test/integration/devkit/simulator/chromium-off-web.test.ts`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLANK_URL, ERROR_PAGE_URL, INLINE_IMAGES } from '../../../../src/devkit/simulator/events/context.js';
import { EventFactory } from '../../../../src/devkit/simulator/events/event-factory.js';
import { createRng } from '../../../../src/devkit/simulator/events/rng.js';
import { CAPTURE_ALL } from '../../../../src/devkit/simulator/pools.js';
import { defaultMappingOptions } from '../../../../src/config/mapping-section.js';
import { createMapper } from '../../../../src/mapping/mapper.js';
import type { Envelope } from '../../../../src/upstream/envelope.js';
import { chromiumVersion, findChromium, openBlankPage, startChromium, type ChromiumHandle } from '../chromium.js';

const chromium = findChromium();

/** A host the browser cannot resolve (a host-resolver rule answers NXDOMAIN for it). */
const NOWHERE = 'http://nowhere.example/checkout?step=2';

const PAGE_HTML = `<!doctype html><meta charset="utf-8"><body>
${INLINE_IMAGES.map((src) => `<img src="${src}">`).join('\n')}
<iframe></iframe>
<script>
window.addEventListener('load', () => {
  const blob = URL.createObjectURL(new Blob(['{}'], { type: 'application/json' }));
  fetch(blob).finally(() => setTimeout(() => { location.href = ${JSON.stringify(NOWHERE)}; }, 100));
});
</script></body>`;

interface Seen {
  pageUrl?: string;
  /** Requests of the page, by type, with their document URL. */
  requests: Array<{ type: string; url: string; documentURL: string }>;
  responses: Array<{ url: string; status: number; mimeType: string }>;
  subframeUrls: string[];
  /** The Document request's failure for NOWHERE, and the main frame's url afterwards. */
  failedNavigation?: string;
  errorPageUrl?: string;
}

const WAIT_MS = 40_000;

const against =
  chromium === undefined
    ? 'Chromium (none found: CHROMIUM_PATH, chromium, chromium-browser; skipped)'
    : chromiumVersion(chromium);

/** `blob:<origin>/<uuid>`, as URL.createObjectURL names a blob. */
const BLOB_URL = /^blob:(https?:\/\/[^/]+)\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe.skipIf(chromium === undefined)(`the simulator's off-web URLs against ${against}`, () => {
  let server: Server;
  let browser: ChromiumHandle | undefined;
  const seen: Seen = { requests: [], responses: [], subframeUrls: [] };

  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE_HTML));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    seen.pageUrl = `http://page.example:${port}/`;
    browser = startChromium(chromium!, [
      `--host-resolver-rules=MAP nowhere.example ~NOTFOUND, MAP * 127.0.0.1:${port}`,
      '--disable-features=HttpsUpgrades',
    ]);
    const { failed } = browser;
    const cdp = await browser.connect();
    const { sessionId } = await openBlankPage(browser, cdp);
    const done = new Promise<void>((resolve, reject) => {
      const bound = setTimeout(
        () => reject(new Error(`incomplete after ${WAIT_MS / 1000} s: ${JSON.stringify(seen)}`)),
        WAIT_MS,
      );
      void failed.catch((err: Error) => {
        clearTimeout(bound);
        reject(err);
      });
      const documentIds = new Map<string, string>();
      cdp.on(({ method, params: p, sessionId: from }) => {
        if (from !== sessionId) return;
        if (method === 'Network.requestWillBeSent') {
          const url = (p.request as { url: string }).url;
          seen.requests.push({ type: p.type as string, url, documentURL: p.documentURL as string });
          if (p.type === 'Document') documentIds.set(p.requestId as string, url);
        } else if (method === 'Network.responseReceived') {
          const r = p.response as { url: string; status: number; mimeType: string };
          seen.responses.push({ url: r.url, status: r.status, mimeType: r.mimeType });
        } else if (method === 'Network.loadingFailed') {
          if (documentIds.get(p.requestId as string) === NOWHERE) seen.failedNavigation ??= p.errorText as string;
        } else if (method === 'Page.frameNavigated') {
          const frame = p.frame as { url: string; parentId?: string };
          if (frame.parentId !== undefined) seen.subframeUrls.push(frame.url);
          else if (seen.failedNavigation !== undefined) seen.errorPageUrl ??= frame.url;
        }
        // Done once the error page loaded its own images.
        if (seen.errorPageUrl !== undefined && seen.requests.some((r) => r.documentURL === seen.errorPageUrl)) {
          clearTimeout(bound);
          resolve();
        }
      });
    });
    for (const domain of ['Network', 'Page']) await Promise.race([failed, cdp.send(`${domain}.enable`, {}, sessionId)]);
    await Promise.race([failed, cdp.send('Page.navigate', { url: seen.pageUrl }, sessionId)]);
    await done;
  }, WAIT_MS + 20_000);

  afterAll(async () => {
    await browser?.stop();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });

  /**
   * A simulated session's network_request, page_navigation and page_tab_opened events, drawn from
   * the whole mix (a draw restricted to these types goes round-robin: a navigation would always be
   * followed by a tab, never by a request on the page it led to).
   */
  const simulated = (() => {
    const f = new EventFactory(createRng(7), 'off-web', CAPTURE_ALL, 'catalogue');
    const kept = new Set(['network_request', 'page_navigation', 'page_tab_opened']);
    return Array.from({ length: 60_000 }, () => f.next()!)
      .filter((e) => kept.has(e.type))
      .map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));
  })();

  it('an inlined image is requested and answered under its whole data: URL: the simulator inlines the same', () => {
    const images = seen.requests.filter((r) => r.type === 'Image' && r.documentURL === seen.pageUrl).map((r) => r.url);
    expect(images.sort()).toEqual([...INLINE_IMAGES].sort());
    for (const url of INLINE_IMAGES)
      expect(seen.responses).toContainEqual({ url, status: 200, mimeType: url.slice(5, url.search(/[;,]/)) });
    const drawn = new Set(simulated.filter((e) => e.type === 'network_request').map((e) => e.data.url as string));
    for (const url of INLINE_IMAGES) expect(drawn).toContain(url);
  });

  it("a fetched blob: the page's origin and a v4 UUID, as the simulator names one", () => {
    const blob = seen.requests.find((r) => r.url.startsWith('blob:'));
    expect(blob?.url).toMatch(BLOB_URL);
    expect(BLOB_URL.exec(blob!.url)![1]).toBe(new URL(seen.pageUrl!).origin);
    const drawn = simulated.map((e) => e.data.url as string).filter((u) => u.startsWith('blob:'));
    expect(drawn.length).toBeGreaterThan(0);
    for (const url of drawn) expect(url).toMatch(BLOB_URL);
  });

  it('an iframe without src navigates to about:blank: a simulated subframe may too', () => {
    expect(seen.subframeUrls).toContain(BLANK_URL);
    const subframes = simulated.filter((e) => e.type === 'page_navigation' && e.data.parent_frame_id !== undefined);
    expect(subframes.map((e) => e.data.url)).toContain(BLANK_URL);
  });

  it("a navigation that fails leaves the main frame on Chromium's error page, whose requests are data: URLs", () => {
    expect(seen.failedNavigation).toBe('net::ERR_NAME_NOT_RESOLVED');
    expect(seen.errorPageUrl).toBe(ERROR_PAGE_URL);
    const fromErrorPage = seen.requests.filter((r) => r.documentURL === ERROR_PAGE_URL);
    expect(fromErrorPage.length).toBeGreaterThan(0);
    for (const r of fromErrorPage) expect(r.url).toMatch(/^data:/);
    // The simulator: after a main frame's navigation to the error page, requests are data: URLs.
    let onErrorPage = false;
    let checked = 0;
    for (const e of simulated) {
      if (e.type === 'page_navigation' && e.data.parent_frame_id === undefined)
        onErrorPage = e.data.url === ERROR_PAGE_URL;
      else if (e.type === 'page_tab_opened') onErrorPage = false;
      else if (e.type === 'network_request' && onErrorPage) {
        expect(e.data.url).toMatch(/^data:/);
        expect(e.data.document_url).toBe(ERROR_PAGE_URL);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('mapped as the service sends them: the error page and a blob are no server, a data: URL keeps only its scheme', () => {
    const mapper = createMapper(defaultMappingOptions);
    const ctx = { sessionId: 'off-web', attributes: {}, epoch: 0 };
    const map = (type: string, data: Record<string, unknown>): Record<string, unknown> => {
      const envelope: Envelope = { seq: 1, event: { ts: 1, type, category: 'page', source: { kind: 'cdp' }, data } };
      return mapper.map(envelope, ctx, 1)!.attributes;
    };
    // page_navigation as the service's Page.frameNavigated handler writes it.
    expect(
      map('page_navigation', { url: seen.errorPageUrl, frame_id: 'F', parent_frame_id: '', loader_id: 'L' }),
    ).toMatchObject({
      'url.full': ERROR_PAGE_URL,
      'url.scheme': 'chrome-error',
    });
    expect(map('page_navigation', { url: seen.errorPageUrl })).not.toHaveProperty('server.address');
    const blob = seen.requests.find((r) => r.url.startsWith('blob:'))!;
    expect(map('network_request', { url: blob.url, method: 'GET', request_id: '1' })).not.toHaveProperty(
      'server.address',
    );
    const image = seen.requests.find((r) => r.url.startsWith('data:'))!;
    const attrs = map('network_request', {
      url: image.url,
      method: 'GET',
      request_id: '2',
      document_url: image.documentURL,
    });
    expect(attrs['url.scheme']).toBe('data');
    expect(attrs).not.toHaveProperty('url.full');
  });
});
