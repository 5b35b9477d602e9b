// The event catalogue (docs/service-api.md "Event types and categories"): every type, its fixed category,
// its generator and its weight in a realistic mix (network and cdp_command traffic dominate, crashes
// and monitor failures are rare).
import { captchaChallengeResult, captchaSolveResult, captchaSolveStarted } from './captcha.js';
import { CDP_METHODS, cdpCommand } from './cdp-command.js';
import { cdpConnect, cdpDisconnect, liveViewConnect, liveViewDisconnect } from './connection.js';
import { consoleError, consoleLog } from './console.js';
import type { GenResult, GenState } from './context.js';
import { apiCall } from './control.js';
import { interactionClick, interactionKey, interactionScrollSettled } from './interaction.js';
import {
  monitorDisconnected,
  monitorInitFailed,
  monitorReconnectFailed,
  monitorReconnected,
  monitorScreenshot,
} from './monitor.js';
import { networkIdle, networkLoadingFailed, networkRequest, networkResponse } from './network.js';
import { pageCrashed, pageDomContentLoaded, pageLayoutSettled, pageLayoutShift, pageLcp, pageLoad } from './page.js';
import {
  pageNavigation,
  pageNavigationSettled,
  pageTabOpened,
  platformApiCall,
  proxyError,
  serviceCrashed,
  systemOomKill,
} from './unlisted.js';

export interface CatalogueEntry {
  category: string;
  weight: number;
  generate: (g: GenState) => GenResult;
}

const entry = (category: string, weight: number, generate: (g: GenState) => GenResult): CatalogueEntry => ({
  category,
  weight,
  generate,
});

/** Types of the written table (the rows marked "written" in docs/service-api.md). */
const LISTED: Record<string, CatalogueEntry> = {
  console_log: entry('console', 8, consoleLog),
  console_error: entry('console', 3, consoleError),
  network_request: entry('network', 14, networkRequest),
  network_response: entry('network', 14, networkResponse),
  network_loading_failed: entry('network', 1.5, networkLoadingFailed),
  network_idle: entry('network', 2, networkIdle),
  page_dom_content_loaded: entry('page', 1.5, pageDomContentLoaded),
  page_load: entry('page', 1.5, pageLoad),
  page_layout_shift: entry('page', 2, pageLayoutShift),
  page_lcp: entry('page', 1, pageLcp),
  page_layout_settled: entry('page', 1, pageLayoutSettled),
  page_crashed: entry('page', 0.1, pageCrashed),
  interaction_click: entry('interaction', 3, interactionClick),
  interaction_key: entry('interaction', 3, interactionKey),
  interaction_scroll_settled: entry('interaction', 2, interactionScrollSettled),
  // Weight 0: never drawn at random; the factory emits one after a page load or an uncaught
  // exception, at most one per 2 s, as the service does. Requested by type, it comes on demand.
  monitor_screenshot: entry('screenshot', 0, monitorScreenshot),
  monitor_disconnected: entry('monitor', 0.1, monitorDisconnected),
  monitor_reconnected: entry('monitor', 0.1, monitorReconnected),
  monitor_reconnect_failed: entry('monitor', 0.05, monitorReconnectFailed),
  monitor_init_failed: entry('monitor', 0.05, monitorInitFailed),
  api_call: entry('control', 3, apiCall),
  // The method is chosen by the factory; this generator is used by emitEvent-style fallbacks only.
  cdp_command: entry('control', 20, (g) => cdpCommand(g, g.rng.pick(CDP_METHODS))),
  cdp_connect: entry('connection', 0.4, cdpConnect),
  cdp_disconnect: entry('connection', 0.4, cdpDisconnect),
  live_view_connect: entry('connection', 0.3, liveViewConnect),
  live_view_disconnect: entry('connection', 0.3, liveViewDisconnect),
  captcha_solve_result: entry('captcha', 0.5, captchaSolveResult),
};

/** Types the written specification names without category or data; categories as the real service assigns them. */
const UNLISTED: Record<string, CatalogueEntry> = {
  page_navigation: entry('page', 1.5, pageNavigation),
  page_navigation_settled: entry('page', 1, pageNavigationSettled),
  page_tab_opened: entry('page', 0.3, pageTabOpened),
  platform_api_call: entry('platform', 0.8, platformApiCall),
  proxy_error: entry('network', 0.2, proxyError),
  service_crashed: entry('system', 0.05, serviceCrashed),
  system_oom_kill: entry('system', 0.05, systemOomKill),
};

/** Types the service sends that the written specification does not name at all. */
const BEYOND_SPEC: Record<string, CatalogueEntry> = {
  captcha_solve_started: entry('captcha', 0.5, captchaSolveStarted),
  captcha_challenge_result: entry('captcha', 0.3, captchaChallengeResult),
};

export const CATALOGUE: Readonly<Record<string, CatalogueEntry>> = { ...LISTED, ...UNLISTED, ...BEYOND_SPEC };
export const LISTED_TYPES: readonly string[] = Object.keys(LISTED);
export const UNLISTED_TYPES: readonly string[] = Object.keys(UNLISTED);
export const BEYOND_SPEC_TYPES: readonly string[] = Object.keys(BEYOND_SPEC);
/** Every type the simulator generates. */
export const EVENT_TYPES: readonly string[] = Object.keys(CATALOGUE);
export { CDP_METHODS };

/** The catalogue category of a type; unknown (future) types default to `system`. */
export function categoryOf(type: string): string {
  return CATALOGUE[type]?.category ?? 'system';
}
