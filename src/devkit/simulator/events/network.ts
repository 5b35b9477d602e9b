// network_request, network_response, network_loading_failed, network_idle (docs/service-api.md
// "Event types and categories"). Headers and URLs carry credentials on purpose: the bridge must mask them.
import type { GenResult, GenState, PendingRequest } from './context.js';
import {
  INLINE_IMAGES,
  LONG_BODY,
  SECRET_URLS,
  SITES,
  cdpSource,
  isWebPage,
  monitorSource,
  nextRequestId,
  pageContext,
  pageOrigin,
} from './context.js';

const JSON_BODY = '{"items":[{"id":1,"name":"Käse"}],"next":null}';
const HTML_BODY = '<!doctype html><html><body><h1>Bienvenue 🎉</h1></body></html>';

/**
 * What a page requests, each with the methods, the resource type and the response type a browser
 * gives such a request together: an image is fetched by GET as an Image, a GraphQL query is POSTed
 * by script. Drawn apart, a trace of the demo showed `POST …/video.mp4` answered as text/css. A
 * `path` is on the page's origin; a `url` is one of the SECRET_URLS (user-info, signatures, tokens:
 * the bridge's redaction must mask them), a quarter of the requests.
 */
interface RequestKind {
  path?: string;
  url?: string;
  /** A `blob:` URL the page made (URL.createObjectURL) and fetches: `blob:<origin>/<uuid>`. */
  blob?: true;
  methods: readonly string[];
  resourceType: string;
  mime: string;
  body?: string;
}

const PAGE_REQUESTS: readonly RequestKind[] = [
  {
    path: '/api/items?page=2',
    methods: ['GET', 'GET', 'PUT'],
    resourceType: 'Fetch',
    mime: 'application/json',
    body: JSON_BODY,
  },
  { path: '/api/items?page=2', methods: ['OPTIONS'], resourceType: 'Preflight', mime: 'text/plain' },
  {
    path: '/graphql',
    methods: ['POST', 'POST', 'GET'],
    resourceType: 'XHR',
    mime: 'application/json',
    body: JSON_BODY,
  },
  { path: '/static/app.js', methods: ['GET'], resourceType: 'Script', mime: 'text/javascript', body: 'export{};' },
  { path: '/static/app.css', methods: ['GET'], resourceType: 'Stylesheet', mime: 'text/css', body: 'body{margin:0}' },
  { path: '/img/logo.svg', methods: ['GET'], resourceType: 'Image', mime: 'image/svg+xml' },
  { path: '/fonts/inter.woff2', methods: ['GET'], resourceType: 'Font', mime: 'font/woff2' },
  { path: '/favicon.ico', methods: ['GET'], resourceType: 'Other', mime: 'image/x-icon' },
  { path: '/', methods: ['GET'], resourceType: 'Document', mime: 'text/html', body: HTML_BODY },
  { path: '/events', methods: ['GET'], resourceType: 'EventSource', mime: 'text/event-stream' },
  { blob: true, methods: ['GET'], resourceType: 'Fetch', mime: 'application/json', body: JSON_BODY },
  ...inlineImages(),
];

/**
 * Images inlined as data: URLs. An error page or a blank tab has no origin to fetch from: what it
 * requests is these (Chromium's error page loads its icons so).
 */
function inlineImages(): RequestKind[] {
  return INLINE_IMAGES.map((url) => ({
    url,
    methods: ['GET'],
    resourceType: 'Image',
    mime: url.slice('data:'.length, url.search(/[;,]/)),
  }));
}
const OFF_WEB_REQUESTS: readonly RequestKind[] = inlineImages();

const SECRET_REQUESTS: readonly RequestKind[] = [
  { url: SECRET_URLS[0]!, methods: ['GET'], resourceType: 'Fetch', mime: 'text/csv' },
  { url: SECRET_URLS[1]!, methods: ['GET'], resourceType: 'Image', mime: 'image/png' },
  { url: SECRET_URLS[2]!, methods: ['GET'], resourceType: 'Media', mime: 'video/mp4' },
  { url: SECRET_URLS[3]!, methods: ['POST', 'GET'], resourceType: 'Fetch', mime: 'application/json', body: JSON_BODY },
];
const INITIATORS = ['script', 'parser', 'preload', 'other'];
const STATUSES: ReadonlyArray<[number, string]> = [
  [200, 'OK'],
  [200, 'OK'],
  [200, 'OK'],
  [201, 'Created'],
  [204, 'No Content'],
  [301, 'Moved Permanently'],
  [304, 'Not Modified'],
  [401, 'Unauthorized'],
  [404, 'Not Found'],
  [429, 'Too Many Requests'],
  [500, 'Internal Server Error'],
  [503, 'Service Unavailable'],
];
const ERRORS = [
  'net::ERR_CONNECTION_RESET',
  'net::ERR_NAME_NOT_RESOLVED',
  'net::ERR_ABORTED',
  'net::ERR_TIMED_OUT',
  'net::ERR_CERT_DATE_INVALID',
];

/** A new request of the page: its id, URL, method and resource type drawn together. */
function newRequest(g: GenState): PendingRequest {
  const { rng } = g;
  const kind = !isWebPage(g.page.url)
    ? rng.pick(OFF_WEB_REQUESTS)
    : rng.chance(0.25)
      ? rng.pick(SECRET_REQUESTS)
      : rng.pick(PAGE_REQUESTS);
  return {
    id: nextRequestId(g),
    url: kind.url ?? (kind.blob ? `blob:${pageOrigin(g)}/${uuid(g)}` : pageOrigin(g) + kind.path!),
    method: rng.pick(kind.methods),
    resourceType: kind.resourceType,
    mime: kind.mime,
    body: kind.body,
  };
}

/** A random UUID (version 4), as URL.createObjectURL names a blob. */
export function uuid(g: GenState): string {
  const h = g.rng.hex(32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
}

/** Takes an outstanding request (oldest first), or one sent before the monitor attached when none is. */
function takeRequest(g: GenState): PendingRequest {
  return g.pendingRequests.shift() ?? newRequest(g);
}

function requestHeaders(g: GenState): Record<string, string> {
  const { rng } = g;
  const h: Record<string, string> = {
    accept: 'application/json, text/plain, */*',
    'user-agent':
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  };
  if (rng.chance(0.6)) h.authorization = `Bearer eyJhbGciOiJSUzI1NiJ9.${rng.hex(40)}.${rng.hex(24)}`;
  if (rng.chance(0.6)) h.cookie = `session_id=${rng.hex(32)}; csrftoken=${rng.hex(16)}; theme=dark`;
  if (rng.chance(0.3)) h['x-api-key'] = `sk_live_${rng.hex(24)}`;
  if (rng.chance(0.1)) h['proxy-authorization'] = `Basic ${Buffer.from('proxyuser:hunter2').toString('base64')}`;
  return h;
}

export function networkRequest(g: GenState): GenResult {
  const { rng } = g;
  const request = newRequest(g);
  g.pendingRequests.push(request);
  if (g.pendingRequests.length > 64) g.pendingRequests.shift();
  const method = request.method;
  const isRedirect = rng.chance(0.08);
  const data: Record<string, unknown> = {
    ...pageContext(g),
    url: request.url,
    document_url: g.page.url,
    headers: requestHeaders(g),
    initiator_type: rng.pick(INITIATORS),
    is_redirect: isRedirect,
    method,
    request_id: request.id,
    resource_type: request.resourceType,
  };
  if (isRedirect) data.redirect_url = rng.pick(SITES);
  let truncated: true | undefined;
  if (method === 'POST' || method === 'PUT') {
    if (rng.chance(0.05)) {
      data.post_data = LONG_BODY;
      truncated = true;
    } else {
      data.post_data = rng.pick([
        '{"email":"alice@example.com","password":"correct horse battery staple"}',
        'grant_type=client_credentials&client_secret=s3cr3t',
        '{"query":"{ viewer { login } }"}',
      ]);
    }
  }
  return { data, source: cdpSource(g, 'Network.requestWillBeSent'), ...(truncated ? { truncated } : {}) };
}

export function networkResponse(g: GenState): GenResult {
  const { rng } = g;
  const [status, statusText] = rng.pick(STATUSES);
  const request = takeRequest(g);
  const { mime } = request;
  // No body for a response that has none (204, 304) nor for a preflight's.
  const body = status === 204 || status === 304 ? undefined : request.body;
  const headers: Record<string, string> = { 'content-type': mime, 'cache-control': 'no-store', server: 'nginx' };
  if (rng.chance(0.4)) headers['set-cookie'] = `session_id=${rng.hex(32)}; Path=/; HttpOnly; Secure; SameSite=Lax`;
  if (status === 301) headers.location = rng.pick(SITES);
  const data: Record<string, unknown> = {
    ...pageContext(g),
    url: request.url,
    headers,
    method: request.method,
    mime_type: mime,
    request_id: request.id,
    resource_type: request.resourceType,
    status,
    status_text: statusText,
  };
  let truncated: true | undefined;
  // Bodies only for text MIME types; a few are over the 8192-byte cap.
  if (body !== undefined) {
    if (rng.chance(0.04)) {
      data.body = LONG_BODY;
      truncated = true;
    } else data.body = body;
  }
  return { data, source: cdpSource(g, 'Network.loadingFinished'), ...(truncated ? { truncated } : {}) };
}

export function networkLoadingFailed(g: GenState): GenResult {
  const { rng } = g;
  const request = takeRequest(g);
  const canceled = rng.chance(0.3);
  const data: Record<string, unknown> = {
    canceled,
    error_text: canceled ? 'net::ERR_ABORTED' : rng.pick(ERRORS),
    request_id: request.id,
  };
  // In flight before the monitor attached: url, frame_id, loader_id and resource_type are absent.
  if (rng.chance(0.75)) Object.assign(data, pageContext(g), { url: request.url, resource_type: request.resourceType });
  return { data, source: cdpSource(g, 'Network.loadingFailed') };
}

export function networkIdle(g: GenState): GenResult {
  return { data: pageContext(g), source: monitorSource(g, 'network_idle') };
}
