// Per-session generation state and the helpers every category generator shares. The state makes
// consecutive events of one session hang together the way a real browser's do: a response answers
// an earlier request id, a cdp_disconnect closes the connection a cdp_connect opened, interactions
// happen on the page last navigated to.
import type { EventSource } from '../../../upstream/envelope.js';
import type { Rng } from './rng.js';

/** What a category generator returns; the factory adds ts, type and category. */
export interface GenResult {
  data?: Record<string, unknown>;
  source: EventSource;
  truncated?: boolean;
  /** Overrides the catalogue category (some service versions send monitor events as `system`). */
  category?: string;
}

export interface PageState {
  url: string;
  frameId: string;
  loaderId: string;
  targetId: string;
  cdpSessionId: string;
  /** The target's navigation epoch: counts its top-level navigations (the context's nav_seq). */
  navSeq: number;
  /**
   * The origin of the last web page the tab showed: a blank tab's or an error page's scripts and
   * stack frames come from the page that opened or failed into it.
   */
  origin: string;
}

/** A request sent: what its response or failure repeats (CDP gives them the same request id and URL). */
export interface PendingRequest {
  id: string;
  url: string;
  method: string;
  resourceType: string;
  /** The response's MIME type and a body for text types. */
  mime: string;
  body: string | undefined;
}

export interface GenState {
  readonly rng: Rng;
  readonly sessionId: string;
  page: PageState;
  /** Requests sent and not yet answered: network_response / network_loading_failed answer them. */
  pendingRequests: PendingRequest[];
  requestCounter: number;
  commandId: number;
  /** Open remote-debugging proxy connection (cdp_connect … cdp_disconnect). */
  connection?: { id: string; openedAt: number; messages: number; excluded: number };
  liveView?: { id: string; openedAt: number };
  /** Counts cdp_command events skipped because the pool excludes their method. */
  excludedCommands: number;
  scrollY: number;
  /** Browser monotonic clock, seconds since process start (cdp_timestamp; not Unix time). */
  cdpClock: number;
}

/**
 * A URL as the browser reports it in the fields the service copies: a frame's url
 * (Page.frameNavigated, the event context's url), a request's url and documentURL
 * (Network.requestWillBeSent), a call frame's url. That is the WHATWG URL serialisation, which
 * `new URL().href` follows too (the host lower-cased and in punycode, the default port dropped, the
 * path and query percent-encoded), without the fragment: CDP gives that apart (`urlFragment`), so it
 * never reaches these fields. `location.href`, Page.navigatedWithinDocument and a target's url keep
 * it. Checked against Chromium by test/integration/devkit/simulator/chromium-urls.test.ts, which
 * also shows the one difference not handled here: Chromium writes a `|` in a path as %7C where the
 * standard keeps it, so the paths below hold none.
 */
export function browserUrl(typed: string): string {
  const url = new URL(typed);
  url.hash = '';
  return url.href;
}

/** The pages sessions visit, written as a person types them (browserUrl gives what CDP reports). */
export const TYPED_SITES: readonly string[] = [
  'https://shop.example.com/cart',
  'https://news.example.org/article/42?ref=home',
  'https://app.example.io/dashboard#/reports',
  'https://例え.jp/検索?q=テスト',
  'https://www.example.de/größe/übersicht',
  'http://localhost:3000/login',
];

/**
 * Each page in the two forms Chromium reports: `url` as a frame or a request gives it, `href` as
 * `location.href` and a tab opened on the page (Target.attachedToTarget, page_tab_opened) give it,
 * the fragment kept and percent-encoded. Non-ASCII text stays where a page puts it (console
 * messages, bodies), never in these.
 */
export const SITE_FORMS: ReadonlyArray<{ readonly url: string; readonly href: string }> = TYPED_SITES.map((typed) => ({
  url: browserUrl(typed),
  href: new URL(typed).href,
}));

/** The pages as events carry them (a frame's url, a request's url and documentURL). */
export const SITES: readonly string[] = SITE_FORMS.map((s) => s.url);

/**
 * Where Chromium puts a main frame whose navigation failed (a name that does not resolve, a refused
 * connection): Page.frameNavigated names this URL, and the URL that failed only as
 * `unreachableUrl`, which the service does not copy. The error page then loads its own images as
 * data: URLs.
 */
export const ERROR_PAGE_URL = 'chrome-error://chromewebdata/';
/** An empty frame: an iframe without src, a tab opened on nothing. */
export const BLANK_URL = 'about:blank';

/**
 * Images a page inlines: Chromium reports such a request (and its response) with the whole data:
 * URL, as the page wrote it. A 1×1 PNG in base64 and an SVG percent-encoded, as pages embed them.
 */
export const INLINE_IMAGES: readonly string[] = [
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'data:image/svg+xml,%3Csvg%20xmlns=%22http://www.w3.org/2000/svg%22%20viewBox=%220%200%2016%2016%22%3E%3Ccircle%20cx=%228%22%20cy=%228%22%20r=%228%22/%3E%3C/svg%3E',
];

/**
 * Documents an agent opens as data: URLs (Page.navigate to a page it wrote): Chromium reports the
 * whole URL as the frame's url, every request's document URL and so the event context, and reports
 * the frames of their scripts with the url "" (test/integration/devkit/chromium-session-shapes.test.ts
 * navigates to these). One percent-encoded as typed (no space, `?` or `#`, which Chromium would
 * encode), one base64 of a few KiB, as a generated report is.
 */
export const DATA_DOCUMENTS: readonly string[] = [
  "data:text/html,<title>Report</title><h1>Report</h1><script>console.log('report')</script>",
  'data:text/html;base64,' +
    Buffer.from(
      `<title>Export</title><script>console.log('export')</script><table>${'<tr><td>row</td><td>42</td></tr>'.repeat(80)}</table>`,
    ).toString('base64'),
];

/** Whether a page has an origin of its own to fetch from (not an error page, not about:blank). */
export function isWebPage(url: string): boolean {
  return url.startsWith('https://') || url.startsWith('http://');
}

/** URLs that carry user-info or signatures, so the bridge's redaction has something to do. */
export const SECRET_URLS: readonly string[] = [
  'https://alice:s3cr3t-p%40ss@api.example.com/private/report.csv',
  'https://bucket.s3.amazonaws.com/img/cat.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=6e2f0b9c1d8a7e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f',
  'https://cdn.example.net/video.mp4?token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSJ9.sig&sig=Zm9vYmFy&expires=1767225600',
  'https://hooks.example.com/callback?access_token=ya29.a0Af_secret&api_key=sk_live_51Hxyz&state=ok',
];

export const UNICODE_TEXTS: readonly string[] = [
  'Hello, world',
  'Привет, мир 👋',
  '注文が確定しました 🚀',
  'Größe: 42 € — «ok»',
  'مرحبا بالعالم',
  'emoji 🧪🔥 and combining é',
  'tab\tand\nnewline "quoted" \\ backslash',
];

export const SELECTORS: readonly string[] = [
  'html > body > div#app > main > button.primary',
  'form#login > input[name="email"]',
  'nav > ul > li:nth-child(3) > a',
  'div.modal > div.footer > button[type="submit"]',
  'textarea#comment',
];

const CAP_BYTES = 8192;
const TRUNC_SUFFIX = '...[truncated]';

/**
 * Capture rule 4: a string over 8192 bytes is cut on a character boundary and ends in
 * `...[truncated]`; the result (suffix included) stays within the cap.
 */
export function capString(s: string): { value: string; truncated: boolean } {
  if (Buffer.byteLength(s) <= CAP_BYTES) return { value: s, truncated: false };
  const buf = Buffer.from(s);
  let end = CAP_BYTES - TRUNC_SUFFIX.length;
  // Back off over UTF-8 continuation bytes (10xxxxxx) so no code point is split.
  while (end > 0 && ((buf[end] as number) & 0xc0) === 0x80) end--;
  return { value: buf.subarray(0, end).toString('utf8') + TRUNC_SUFFIX, truncated: true };
}

/** Built once: generating 8 KiB strings per event would dominate the benchmark. */
export const LONG_BODY = capString(
  '<!doctype html><html><body>' + '<p>Lorem ipsum dolor sit amet, ünïcødé ✓ 数据</p>'.repeat(400),
).value;
export const LONG_TEXT = capString('Uncaught payload dump: ' + 'Ошибка данных 🐛 '.repeat(900)).value;

/** A new tab on `url`; `opener`, the origin it was opened from when `url` is no web page. */
export function newPage(rng: Rng, url: string, opener?: string): PageState {
  return {
    url,
    origin: isWebPage(url) ? originOf(url) : (opener ?? originOf(SITES[0]!)),
    frameId: rng.hex(32).toUpperCase(),
    loaderId: rng.hex(32).toUpperCase(),
    targetId: rng.hex(32).toUpperCase(),
    cdpSessionId: rng.hex(32).toUpperCase(),
    navSeq: 1,
  };
}

export function initialState(rng: Rng, sessionId: string): GenState {
  return {
    rng,
    sessionId,
    page: newPage(rng, rng.pick(SITES)),
    pendingRequests: [],
    requestCounter: 1000,
    commandId: 1,
    excludedCommands: 0,
    scrollY: 0,
    cdpClock: rng.float(50, 5000, 6),
  };
}

/**
 * BrowserEventContext, as the service's browser monitor stamps it on every CDP-sourced event: the
 * page (url, frame_id, loader_id), the target and its CDP session, and the navigation epoch.
 */
export function pageContext(g: GenState): Record<string, unknown> {
  const { page } = g;
  return {
    url: page.url,
    frame_id: page.frameId,
    loader_id: page.loaderId,
    nav_seq: page.navSeq,
    session_id: page.cdpSessionId,
    target_id: page.targetId,
    target_type: 'page',
  };
}

/** A source for an event derived from a browser-protocol event; the metadata varies on purpose. */
export function cdpSource(g: GenState, event: string): EventSource {
  const { rng, page } = g;
  const metadata: Record<string, unknown> = { cdp_session_id: page.cdpSessionId, target_id: page.targetId };
  if (rng.chance(0.3)) metadata.frame_id = page.frameId;
  if (rng.chance(0.1)) delete metadata.cdp_session_id;
  return { kind: 'cdp', event, metadata };
}

/** A source for an event the monitor computes itself (no single protocol event behind it). */
export function monitorSource(g: GenState, event: string): EventSource {
  return g.rng.chance(0.5)
    ? { kind: 'monitor', event, metadata: { target_id: g.page.targetId } }
    : { kind: 'monitor', event };
}

/**
 * Sets the y coordinate. The live service sends `y`; the written specification has a member literally
 * named `true` (a YAML `y:` key read as boolean; docs/service-api.md "Event types and categories"). Both appear so the bridge handles both.
 */
export function setY(g: GenState, target: Record<string, unknown>, y: number): void {
  if (g.rng.chance(0.85)) target.y = y;
  else target['true'] = y;
}

export function nextRequestId(g: GenState): string {
  g.requestCounter++;
  return `${g.requestCounter}.${g.rng.int(1, 40)}`;
}

const origins = new Map<string, string>();

/** A web page's origin; cached because the page URLs come from small fixed lists. */
export function originOf(url: string): string {
  let o = origins.get(url);
  if (o === undefined) {
    o = new URL(url).origin;
    if (origins.size < 1000) origins.set(url, o);
  }
  return o;
}

/** Origin of the current page, or of the last web page of its tab (see PageState.origin). */
export function pageOrigin(g: GenState): string {
  return g.page.origin;
}

export function clip128(s: string): string {
  return s.length > 128 ? s.slice(0, 128) : s;
}
