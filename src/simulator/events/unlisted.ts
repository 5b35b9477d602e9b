// Event types the spec names without showing their category or data (spec: "Event types whose
// category and data members ... : not shown"). The categories and members below are this
// simulator's plausible guesses; the bridge must pass such events through with data intact.
import type { GenResult, GenState } from './context.js';
import { SECRET_URLS, SITES, cdpSource, newPage, pageContext } from './context.js';

export function pageNavigation(g: GenState): GenResult {
  const { rng } = g;
  const previous = g.page.url;
  g.page = { ...g.page, url: rng.chance(0.15) ? rng.pick(SECRET_URLS) : rng.pick(SITES), loaderId: rng.hex(32).toUpperCase() };
  g.scrollY = 0;
  return {
    data: { ...pageContext(g), previous_url: previous, transition_type: rng.pick(['link', 'typed', 'form_submit', 'reload']) },
    source: cdpSource(g, 'Page.frameNavigated'),
  };
}

export function pageNavigationSettled(g: GenState): GenResult {
  return { data: { ...pageContext(g), duration_ms: g.rng.int(80, 6000) }, source: { kind: 'monitor', event: 'navigation_settled' } };
}

export function pageTabOpened(g: GenState): GenResult {
  const opener = g.page.targetId;
  g.page = newPage(g.rng, g.rng.pick(SITES));
  return {
    data: { ...pageContext(g), target_id: g.page.targetId, opener_target_id: opener },
    source: cdpSource(g, 'Target.targetCreated'),
  };
}

export function platformApiCall(g: GenState): GenResult {
  const { rng } = g;
  return {
    data: {
      request_id: `req_${rng.hex(20)}`,
      operation_id: rng.pick(['upload_file', 'spawn_process', 'get_replay', 'set_viewport', 'list_files']),
      status: rng.pick([200, 200, 201, 404, 500]),
      duration_ms: rng.float(1, 1500, 3),
    },
    source: { kind: 'api', event: 'platform' },
  };
}

export function proxyError(g: GenState): GenResult {
  const { rng } = g;
  return {
    data: {
      proxy_id: `proxy_${rng.hex(10)}`,
      url: rng.pick(SECRET_URLS),
      proxy_url: 'http://user:pa55w0rd@proxy.example.net:8080',
      error: rng.pick(['ECONNREFUSED', 'ETIMEDOUT', 'proxy authentication required']),
      status: rng.pick([407, 502, 504]),
    },
    source: { kind: 'proxy', event: 'error' },
  };
}

export function serviceCrashed(g: GenState): GenResult {
  const { rng } = g;
  return {
    data: {
      service: rng.pick(['chromium', 'kernel-api', 'neko', 'xvfb']),
      exit_code: rng.pick([1, 134, 139]),
      signal: rng.pick(['SIGSEGV', 'SIGABRT', '']),
      restart_count: rng.int(1, 5),
    },
    source: { kind: 'vm', event: 'supervisor' },
  };
}

export function systemOomKill(g: GenState): GenResult {
  const { rng } = g;
  const limit = rng.pick([2, 4, 8]) * 1024 ** 3;
  return {
    data: { process: rng.pick(['chrome', 'chrome --type=renderer', 'node']), pid: rng.int(100, 65000), rss_bytes: limit - rng.int(0, 1e6), memory_limit_bytes: limit },
    source: { kind: 'vm', event: 'kernel' },
  };
}
