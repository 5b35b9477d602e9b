// network_request, network_response, network_loading_failed, network_idle (docs/service-api.md
// "Event types and categories"). Headers and URLs carry credentials on purpose: the bridge must mask them.
import type { GenResult, GenState } from './context.js';
import {
  LONG_BODY,
  SECRET_URLS,
  SITES,
  cdpSource,
  monitorSource,
  nextRequestId,
  pageContext,
  pageOrigin,
  takeRequestId,
} from './context.js';

const RESOURCE_TYPES = [
  'Document',
  'Fetch',
  'XHR',
  'Script',
  'Stylesheet',
  'Image',
  'Font',
  'Media',
  'EventSource',
  'WebSocket',
  'Manifest',
  'Prefetch',
  'Other',
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
const MIME: ReadonlyArray<[string, string | undefined]> = [
  ['application/json', '{"items":[{"id":1,"name":"Käse"}],"next":null}'],
  ['text/html', '<!doctype html><html><body><h1>Bienvenue 🎉</h1></body></html>'],
  ['text/css', 'body{margin:0}'],
  ['image/png', undefined],
  ['font/woff2', undefined],
];
const ERRORS = [
  'net::ERR_CONNECTION_RESET',
  'net::ERR_NAME_NOT_RESOLVED',
  'net::ERR_ABORTED',
  'net::ERR_TIMED_OUT',
  'net::ERR_CERT_DATE_INVALID',
];

function requestUrl(g: GenState): string {
  const { rng } = g;
  if (rng.chance(0.25)) return rng.pick(SECRET_URLS);
  return pageOrigin(g) + rng.pick(['/api/items?page=2', '/static/app.js', '/img/logo.svg', '/graphql', '/favicon.ico']);
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
  const requestId = nextRequestId(g);
  g.pendingRequests.push(requestId);
  if (g.pendingRequests.length > 64) g.pendingRequests.shift();
  const method = rng.pick(['GET', 'GET', 'GET', 'POST', 'PUT', 'OPTIONS']);
  const isRedirect = rng.chance(0.08);
  const data: Record<string, unknown> = {
    ...pageContext(g),
    url: requestUrl(g),
    document_url: g.page.url,
    headers: requestHeaders(g),
    initiator_type: rng.pick(INITIATORS),
    is_redirect: isRedirect,
    method,
    request_id: requestId,
    resource_type: rng.pick(RESOURCE_TYPES),
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
  const [mime, body] = rng.pick(MIME);
  const headers: Record<string, string> = { 'content-type': mime, 'cache-control': 'no-store', server: 'nginx' };
  if (rng.chance(0.4)) headers['set-cookie'] = `session_id=${rng.hex(32)}; Path=/; HttpOnly; Secure; SameSite=Lax`;
  if (status === 301) headers.location = rng.pick(SITES);
  const data: Record<string, unknown> = {
    ...pageContext(g),
    url: requestUrl(g),
    headers,
    method: rng.pick(['GET', 'GET', 'POST']),
    mime_type: mime,
    request_id: takeRequestId(g),
    resource_type: rng.pick(RESOURCE_TYPES),
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
  const requestId = takeRequestId(g);
  const canceled = rng.chance(0.3);
  const data: Record<string, unknown> = {
    canceled,
    error_text: canceled ? 'net::ERR_ABORTED' : rng.pick(ERRORS),
    request_id: requestId,
  };
  // In flight before the monitor attached: url, frame_id, loader_id and resource_type are absent.
  if (rng.chance(0.75))
    Object.assign(data, pageContext(g), { url: requestUrl(g), resource_type: rng.pick(RESOURCE_TYPES) });
  return { data, source: cdpSource(g, 'Network.loadingFailed') };
}

export function networkIdle(g: GenState): GenResult {
  return { data: pageContext(g), source: monitorSource(g, 'network_idle') };
}
