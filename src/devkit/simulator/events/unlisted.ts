// Event types the written specification names without showing their category or data (the rows
// marked "service" in docs/service-api.md "Event types and categories"), generated with the shapes and categories the real
// service gives them (kernel/kernel-images cdpmonitor handlers and the Node SDK's
// BrowserTelemetryEvent union; docs/mapping.md "Event types").
import type { GenResult, GenState } from './context.js';
import {
  BLANK_URL,
  DATA_DOCUMENTS,
  ERROR_PAGE_URL,
  SECRET_URLS,
  SITES,
  SITE_FORMS,
  cdpSource,
  isWebPage,
  newPage,
  originOf,
  pageContext,
} from './context.js';

/** page_navigation (Page.frameNavigated): nav context inline, without nav_seq (it resets the epoch). */
export function pageNavigation(g: GenState): GenResult {
  const { rng } = g;
  const subframe = rng.chance(0.2);
  // An iframe without src is about:blank; a main frame whose navigation failed shows Chromium's
  // error page (the request's network_loading_failed names the URL that failed). An agent opens
  // a document it wrote now and then: a data: URL.
  const url = subframe
    ? rng.chance(0.3)
      ? BLANK_URL
      : rng.pick(SITES)
    : rng.chance(0.03)
      ? ERROR_PAGE_URL
      : rng.chance(0.01)
        ? rng.pick(DATA_DOCUMENTS)
        : rng.chance(0.15)
          ? rng.pick(SECRET_URLS)
          : rng.pick(SITES);
  const data: Record<string, unknown> = {
    session_id: g.page.cdpSessionId,
    target_id: g.page.targetId,
    target_type: 'page',
    url,
    frame_id: subframe ? rng.hex(32).toUpperCase() : g.page.frameId,
    loader_id: rng.hex(32).toUpperCase(),
  };
  if (subframe) data.parent_frame_id = g.page.frameId;
  else {
    const origin = isWebPage(url) ? originOf(url) : g.page.origin;
    g.page = { ...g.page, url, origin, loaderId: data.loader_id as string, navSeq: g.page.navSeq + 1 };
    g.scrollY = 0;
  }
  return { data, source: cdpSource(g, 'Page.frameNavigated') };
}

/** page_navigation_settled: computed once DOMContentLoaded and layout-settled both held; context only. */
export function pageNavigationSettled(g: GenState): GenResult {
  return { data: pageContext(g), source: cdpSource(g, 'page_navigation_settled') };
}

/** page_tab_opened (Target.attachedToTarget for a page): before a session exists, so no nav context. */
export function pageTabOpened(g: GenState): GenResult {
  const { rng } = g;
  const opener = g.page.targetId;
  // An agent opens most tabs on a page, some on nothing (a blank tab it navigates afterwards).
  const site = rng.chance(0.2) ? { url: BLANK_URL, href: BLANK_URL } : rng.pick(SITE_FORMS);
  g.page = newPage(rng, site.url, g.page.origin);
  return {
    data: {
      target_id: g.page.targetId,
      target_type: 'page',
      // A tab opened on a URL reports it with its fragment; its frame, once navigated, without.
      url: site.href,
      opener_id: rng.chance(0.7) ? opener : '',
      title: rng.pick(['', 'New Tab', 'Checkout – Shop', 'ログイン']),
    },
    source: {
      kind: 'cdp',
      event: 'Target.attachedToTarget',
      metadata: { cdp_session_id: g.page.cdpSessionId, target_id: g.page.targetId, target_type: 'page' },
    },
  };
}

/** platform_api_call (category platform): an in-VM API call that manages the VM, named by its handler. */
export function platformApiCall(g: GenState): GenResult {
  const { rng } = g;
  return {
    data: {
      request_id: `req_${rng.hex(20)}`,
      operation_id: rng.pick([
        'StartRecording',
        'StopRecording',
        'DownloadRecording',
        'ProcessSpawn',
        'ProcessStatus',
        'UploadFile',
        'ListFiles',
        'PatchTelemetry',
      ]),
      status: rng.pick([200, 200, 200, 201, 404, 409, 500]),
      duration_ms: rng.float(1, 1500, 3),
    },
    source: { kind: 'kernel_api', event: 'platform_api_call' },
  };
}

/** The codes of the service's BrowserProxyErrorEventData, in its order; `unknown` is handled apart. */
export const PROXY_CODES: readonly string[] = [
  'destination_blocked',
  'provider_blacklisted',
  'provider_unreachable',
  'provider_rejected',
  'origin_tls_timeout',
  'proxy_unavailable',
  'restricted_route_unavailable',
  'upstream_timeout',
  'upstream_dns_failure',
  'upstream_connect_failed',
];

/** Header values the proxy may send that an older image does not know: reported as `unknown`. */
const UNKNOWN_PROXY_CODES: readonly string[] = ['origin_response_incomplete', 'destination_route_unavailable'];

/** proxy_error (category network): the egress proxy served its branded 502 page with X-Kernel-Proxy-Error. */
export function proxyError(g: GenState): GenResult {
  const { rng } = g;
  const data: Record<string, unknown> = {
    ...pageContext(g),
    url: rng.chance(0.3) ? rng.pick(SECRET_URLS) : g.page.url,
    code: rng.pick(PROXY_CODES),
    request_id: `${g.requestCounter}.${rng.int(1, 40)}`,
    status: 502,
  };
  // A code this image does not recognize: `unknown`, with the sanitized header value in raw_code.
  if (rng.chance(0.05)) {
    data.code = 'unknown';
    data.raw_code = rng.pick(UNKNOWN_PROXY_CODES);
  }
  // Method and resource type "when known"; most branded errors are blocked subresources.
  if (rng.chance(0.9)) data.method = rng.pick(['GET', 'GET', 'POST']);
  if (rng.chance(0.9)) data.resource_type = rng.pick(['Document', 'Script', 'Image', 'Fetch', 'XHR', 'Stylesheet']);
  return { data, source: cdpSource(g, 'Network.responseReceived') };
}

/** service_crashed (category system): a supervised service exited unexpectedly, or restarts were given up. */
export function serviceCrashed(g: GenState): GenResult {
  const { rng } = g;
  const phase = rng.pick(['startup', 'running', 'running', 'gave_up']);
  const data: Record<string, unknown> = {
    service_name: rng.pick(['chromium', 'kernel-images-api', 'mutter', 'neko', 'xvfb']),
    phase,
  };
  // pid is absent when the process manager gave up.
  if (phase !== 'gave_up') data.pid = rng.int(100, 65000);
  return { data, source: { kind: 'local_process', event: 'supervisor' } };
}

/** system_oom_kill (category system): parsed from the kernel's OOM report; comms are at most 15 characters. */
export function systemOomKill(g: GenState): GenResult {
  const { rng } = g;
  const victim = {
    name: rng.pick(['chrome', 'chrome', 'node', 'ffmpeg']),
    pid: rng.int(100, 65000),
    rss_kb: rng.int(400_000, 3_800_000),
  };
  const others = Array.from({ length: rng.int(0, 4) }, () => ({
    name: rng.pick(['chrome', 'Xvfb', 'kernel-images-a', 'mutter']),
    pid: rng.int(100, 65000),
    rss_kb: rng.int(10_000, 400_000),
  }));
  const total = rng.pick([2, 4, 8]) * 1024 * 1024;
  const data: Record<string, unknown> = {
    pid: victim.pid,
    process_name: victim.name,
    rss_kb: victim.rss_kb,
    constraint: rng.pick(['memcg', 'memcg', 'none']),
    mem_free_kb: rng.int(20_000, 90_000),
    mem_total_kb: total,
    top_tasks: [victim, ...others].sort((a, b) => b.rss_kb - a.rss_kb).slice(0, 5),
    trigger_pid: rng.chance(0.6) ? victim.pid : rng.int(100, 65000),
    trigger_process_name: rng.pick([victim.name, 'chrome']),
  };
  return { data, source: { kind: 'local_process', event: 'oom_kill' } };
}
