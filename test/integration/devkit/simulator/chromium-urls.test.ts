// The simulator's URLs against a real Chromium. The service copies URLs from CDP events (a frame's
// url into page_navigation and the event context, a request's url and documentURL into
// network_request and network_response, a call frame's url into stack traces, console arguments as
// the page logged them); the simulator writes its pages as a person types them and turns them into
// that form with `browserUrl` (events/context.ts). Here headless Chromium loads a page typed with
// an internationalised upper-case host, the scheme's default port, a non-ASCII path and query with
// spaces and a fragment; the page logs a message holding such a URL, fetches the simulator's own
// pages and more typed URLs, moves to another fragment and pushes a history entry; then a tab is
// opened on one of the simulator's pages. What CDP reports must equal what the simulator makes of
// the same typed URL.
//
// Every host name reaches the loopback server through a host-resolver rule (with its port, so a
// default port works too). https URLs are fetched only to read the request's url: the server
// speaks plain HTTP, so their TLS handshake fails after CDP reported the request. Skipped where no
// Chromium is installed (CHROMIUM_PATH, or chromium / chromium-browser on PATH). Re-run with
// `npx vitest run test/integration/devkit/simulator/chromium-urls.test.ts`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SITES,
  SITE_FORMS,
  TYPED_SITES,
  browserUrl,
  originOf,
} from '../../../../src/devkit/simulator/events/context.js';
import { VALUELESS_ARGS } from '../../../../src/devkit/simulator/events/console.js';
import { chromiumVersion, findChromium, openBlankPage, startChromium, type ChromiumHandle } from '../chromium.js';

const chromium = findChromium();

/** The page: IDN host and scheme in upper case, the default port, non-ASCII path and query, spaces, a fragment. */
const PAGE = 'HTTP://例え.JP:80/検索?q=größe ✓#Teil ü';
/** Logged by the page: the service copies console arguments as the page gave them. */
const MESSAGE = `opened ${PAGE} for Größe ✓`;
/** The fragment the page moves to afterwards, then the history entry it pushes (Page.navigatedWithinDocument). */
const HASH = 'ünï cødé';
const PUSHED = '/weiter?x=ä b';
/** Fetched by the page: the simulator's pages, and more typed URLs (a bare origin, the https default port). */
const FETCHED = [...TYPED_SITES, 'http://Bücher.DE/Straße/ä b.json?q=größe ✓&x=1#teil 2', 'HTTPS://BÜCHER.de:443'];

/** Where Chromium and the URL standard part: a `|` in a path (so the simulator's paths hold none). */
const PIPE = 'http://pipe.example/a|b?q=a|b';

const PAGE_HTML = `<!doctype html><meta charset="utf-8"><body><script>
console.log(${JSON.stringify(MESSAGE)}, location.href, { a: 1 }, undefined, 42);
Promise.allSettled(${JSON.stringify([...FETCHED, PIPE])}.map((u) => fetch(u, { mode: 'no-cors' }))).then(() => {
  location.hash = ${JSON.stringify(HASH)};
  history.pushState(null, '', ${JSON.stringify(PUSHED)});
});
</script></body>`;

/** What Chromium reported, field by field, in the events the service maps from. */
interface Seen {
  documentRequest?: { url: string; urlFragment?: string; documentURL: string; requestId: string };
  documentResponseUrl?: string;
  frameUrl?: string;
  /** Page.frameNavigated of the main frame (about:blank apart): one, for the page. */
  frameNavigations: number;
  frameOrigin?: string;
  /** The console message's arguments as CDP's RemoteObjects give them (type, and value if any). */
  consoleArgs?: Array<{ type: string; value?: unknown }>;
  consoleCallFrameUrl?: string;
  /** Fetch requests' url and documentURL, in the order they were sent. */
  fetches: Array<{ url: string; documentURL: string }>;
  /** Page.navigatedWithinDocument's url, one for the fragment move and one for the pushed entry. */
  withinDocument: string[];
  /** Target.attachedToTarget's url by target id (auto-attach on the browser's connection). */
  attached: Map<string, string>;
}

/** How long the page's events may take on a loaded machine (they take well under a second on a quiet one). */
const WAIT_MS = 40_000;

const missing = (s: Seen): string[] =>
  [
    s.documentRequest === undefined && 'the document request',
    s.documentResponseUrl === undefined && 'its response',
    s.frameUrl === undefined && 'Page.frameNavigated',
    s.consoleArgs === undefined && 'the console message',
    s.fetches.length < FETCHED.length + 1 && `fetches (${s.fetches.length} of ${FETCHED.length + 1})`,
    s.withinDocument.length < 2 && `Page.navigatedWithinDocument (${s.withinDocument.length} of 2)`,
  ].filter((m): m is string => m !== false);

const against =
  chromium === undefined
    ? 'Chromium (none found: CHROMIUM_PATH, chromium, chromium-browser; skipped)'
    : chromiumVersion(chromium);

describe.skipIf(chromium === undefined)(`the simulator's URLs against ${against}`, () => {
  let server: Server;
  let browser: ChromiumHandle | undefined;
  const seen: Seen = { fetches: [], attached: new Map(), frameNavigations: 0, withinDocument: [] };
  let targetUrl: string;
  let tabSite: number;
  let tabTargetId: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      // A navigation asks for HTML first (no Sec-Fetch headers over plain http); a fetch, for anything.
      if (req.headers.accept?.startsWith('text/html') === true)
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE_HTML);
      else res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    browser = startChromium(chromium!, [
      // Every host, whatever its port, reaches the server.
      `--host-resolver-rules=MAP * 127.0.0.1:${port}`,
      // Else the http navigation is tried as https first and falls back: two more requests.
      '--disable-features=HttpsUpgrades',
    ]);
    const { failed } = browser;
    const cdp = await browser.connect();
    const { targetId, sessionId } = await openBlankPage(browser, cdp);

    const done = new Promise<void>((resolve, reject) => {
      // Generous on a loaded machine, and it ends with what was missing rather than the test's limit.
      const bound = setTimeout(
        () => reject(new Error(`still missing after ${WAIT_MS / 1000} s: ${missing(seen).join(', ')}`)),
        WAIT_MS,
      );
      void failed.catch((err: Error) => {
        clearTimeout(bound);
        reject(new Error(`${err.message} (missing: ${missing(seen).join(', ')})`));
      });
      cdp.on(({ method, params: p, sessionId: from }) => {
        if (method === 'Target.attachedToTarget') {
          const info = p.targetInfo as { targetId: string; url: string };
          seen.attached.set(info.targetId, info.url);
        }
        if (from !== sessionId) return;
        if (method === 'Network.requestWillBeSent') {
          const request = p.request as { url: string; urlFragment?: string };
          const entry = { url: request.url, documentURL: p.documentURL as string };
          if (p.type === 'Document' && seen.documentRequest === undefined)
            seen.documentRequest = { ...entry, urlFragment: request.urlFragment, requestId: p.requestId as string };
          else if (p.type === 'Fetch') seen.fetches.push(entry);
        } else if (method === 'Network.responseReceived') {
          if (p.requestId === seen.documentRequest?.requestId)
            seen.documentResponseUrl = (p.response as { url: string }).url;
        } else if (method === 'Page.frameNavigated') {
          const frame = p.frame as { url: string; securityOrigin: string; parentId?: string };
          if (frame.parentId === undefined && frame.url !== 'about:blank') {
            seen.frameUrl = frame.url;
            seen.frameNavigations++;
            seen.frameOrigin = frame.securityOrigin;
          }
        } else if (method === 'Runtime.consoleAPICalled') {
          seen.consoleArgs = (p.args as Array<{ type: string; value?: unknown }>).map(({ type, value }) => ({
            type,
            ...(value === undefined ? {} : { value }),
          }));
          const stack = p.stackTrace as { callFrames: Array<{ url: string }> } | undefined;
          seen.consoleCallFrameUrl = stack?.callFrames[0]?.url;
        } else if (method === 'Page.navigatedWithinDocument') {
          seen.withinDocument.push(p.url as string);
        }
        if (missing(seen).length === 0) {
          clearTimeout(bound);
          resolve();
        }
      });
    });
    for (const domain of ['Network', 'Page', 'Runtime'])
      await Promise.race([failed, cdp.send(`${domain}.enable`, {}, sessionId)]);
    await Promise.race([failed, cdp.send('Page.navigate', { url: PAGE }, sessionId)]);
    await done;
    // A tab opened on one of the simulator's pages, as an agent opens one (page_tab_opened).
    await Promise.race([
      failed,
      cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }),
    ]);
    tabSite = TYPED_SITES.findIndex((typed) => typed.includes('#'));
    const tab = (await Promise.race([failed, cdp.send('Target.createTarget', { url: TYPED_SITES[tabSite] })])) as {
      targetId: string;
    };
    tabTargetId = tab.targetId;
    // Its attach event may come after createTarget's answer: a few round trips more (bounded).
    for (let i = 0; i < 400 && !seen.attached.has(tabTargetId); i++)
      await Promise.race([failed, cdp.send('Browser.getVersion')]);
    targetUrl = (
      (await Promise.race([failed, cdp.send('Target.getTargetInfo', { targetId })])) as {
        targetInfo: { url: string };
      }
    ).targetInfo.url;
  }, WAIT_MS + 20_000);

  afterAll(async () => {
    await browser?.stop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("a frame's url, the document's request and response, and a call frame's url: the simulator's form", () => {
    const expected = browserUrl(PAGE);
    expect(expected).toBe('http://xn--r8jz45g.jp/%E6%A4%9C%E7%B4%A2?q=gr%C3%B6%C3%9Fe%20%E2%9C%93');
    expect(seen.frameUrl).toBe(expected);
    expect(seen.documentRequest).toMatchObject({ url: expected, documentURL: expected });
    expect(seen.documentResponseUrl).toBe(expected);
    expect(seen.consoleCallFrameUrl).toBe(expected);
    // The fragment travels apart, percent-encoded; the service copies none of these fields.
    expect(seen.documentRequest?.urlFragment).toBe('#Teil%20%C3%BC');
    expect(seen.frameOrigin).toBe(originOf(expected));
  });

  it("fetched URLs, the simulator's pages among them: each request's url is the simulator's form", () => {
    const reported = seen.fetches.map((f) => f.url).filter((u) => !u.startsWith('http://pipe.example/'));
    expect(reported.sort()).toEqual(FETCHED.map(browserUrl).sort());
    expect(reported).toEqual(expect.arrayContaining([...SITES]));
    for (const f of seen.fetches) expect(f.documentURL).toBe(browserUrl(PAGE));
  });

  it('a `|` in a path: Chromium writes %7C where the standard (and browserUrl) keeps it; in a query both keep it', () => {
    expect(seen.fetches.map((f) => f.url)).toContain('http://pipe.example/a%7Cb?q=a|b');
    expect(browserUrl(PIPE)).toBe('http://pipe.example/a|b?q=a|b');
  });

  it('the console keeps what the page logged; location.href and a fragment move keep the fragment', () => {
    const href = new URL(PAGE).href;
    expect(seen.consoleArgs?.slice(0, 2).map((a) => a.value)).toEqual([MESSAGE, href]);
    expect(href).toBe(`${browserUrl(PAGE)}#Teil%20%C3%BC`);
    expect(seen.withinDocument[0]).toBe(new URL(`#${HASH}`, PAGE).href);
  });

  it("console arguments without a value (an object, undefined) are what the simulator's args hold: their type", () => {
    // The service writes a string's value, a number's JSON, and the type where CDP sends no value.
    expect(seen.consoleArgs?.slice(2)).toEqual([
      { type: 'object' },
      { type: 'undefined' },
      { type: 'number', value: 42 },
    ]);
    // (A Symbol, the list's third, is checked by test/integration/devkit/chromium-session-shapes.test.ts.)
    expect(seen.consoleArgs?.slice(2, 4).map((a) => a.type)).toEqual(VALUELESS_ARGS.slice(0, 2));
  });

  it('a same-document navigation is no Page.frameNavigated: the service, which maps that, sends no page_navigation', () => {
    // The fragment move and the pushed entry came as Page.navigatedWithinDocument only.
    expect(seen.frameNavigations).toBe(1);
    const pushed = new URL(PUSHED, PAGE).href;
    expect(seen.withinDocument[1]).toBe(pushed);
    expect(browserUrl(pushed)).toBe(pushed);
    expect(targetUrl).toBe(pushed);
  });

  it("a tab opened on one of the simulator's pages reports the page's href, the fragment kept", () => {
    expect(SITE_FORMS[tabSite]!.href).toContain('#');
    expect(seen.attached.get(tabTargetId), 'Target.attachedToTarget of the tab').toBe(SITE_FORMS[tabSite]!.href);
  });
});
