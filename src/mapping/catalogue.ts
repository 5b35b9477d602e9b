// The event catalogue as the mapper's lookup table: the written table (docs/service-api.md "Event
// types and categories", rows marked "written"), then the types the service sends beyond it, with the categories and shapes its own
// source shows (kernel/kernel-images server/lib/events, cdpmonitor; the Node SDK's
// BrowserTelemetryEvent union). Per type: the category, the severity rule and the promotions.
// docs/mapping.md is the same table in prose; test/unit/mapping holds them equal.
import type { AttributeValue } from '../vocabulary/log-record.js';
import { promoteConsoleError, promoteConsoleLog } from './promote-console.js';
import {
  promoteApiCall,
  promoteCdpCommand,
  promoteCdpDisconnect,
  promoteGeneric,
  promoteLoadingFailed,
  promoteMonitorReason,
  promoteNetworkRequest,
  promoteNetworkResponse,
  promoteUrl,
} from './promote-http.js';
import { promoteLayoutShift, promoteLcp } from './promote-page.js';
import {
  promoteCaptchaChallenge,
  promoteOomKill,
  promotePlatformApiCall,
  promoteProxyError,
  promoteServiceCrashed,
} from './promote-service.js';
import { consoleLevelSeverity, genericSeverity, httpStatusSeverity } from './severity.js';
import { SEVERITY } from './severity-levels.js';
import { EVENT_CATEGORY } from '../vocabulary/event-types.js';

type Data = Record<string, unknown>;
type Attrs = Record<string, AttributeValue>;

export interface CatalogueEntry {
  type: string;
  /** The category docs/service-api.md lists for the type; undefined for unknown types. */
  category: string | undefined;
  /** The record's event name, `browser.<type>`: made once, not per event (UNKNOWN_TYPE's is not the event's). */
  eventName: string;
  /** Severity number from the (redacted) body; `{}` when the event has no data. */
  severity(type: string, data: Data): number;
  /** Adds promoted attributes read from the (redacted) body. */
  promote(data: Data, attrs: Attrs): void;
}

const fixed = (n: number) => (): number => n;
const none = (): void => {};

/** network_loading_failed: a cancelled load is routine (navigation away, aborted fetch); a failed one is not. */
const loadingFailedSeverity = (_t: string, d: Data): number => (d.canceled === true ? SEVERITY.INFO : SEVERITY.ERROR);

/**
 * cdp_disconnect: `upstream_error` means the browser side failed under the client (WARN); so does
 * any telemetry_dropped above 0 (commands went unrecorded). Other reasons are ordinary closes.
 */
const cdpDisconnectSeverity = (_t: string, d: Data): number =>
  d.reason === 'upstream_error' || (typeof d.telemetry_dropped === 'number' && d.telemetry_dropped > 0)
    ? SEVERITY.WARN
    : SEVERITY.INFO;

/** captcha_solve_result: failure ERROR, timeout WARN, success/abandoned (and unknown outcomes) INFO. */
const CAPTCHA_SEVERITY: ReadonlyMap<unknown, number> = new Map([
  ['success', SEVERITY.INFO],
  ['failure', SEVERITY.ERROR],
  ['timeout', SEVERITY.WARN],
  ['abandoned', SEVERITY.INFO],
]);
const captchaSeverity = (_t: string, d: Data): number => CAPTCHA_SEVERITY.get(d.status) ?? SEVERITY.INFO;

/** captcha_challenge_result: the visible challenge's outcome; solved INFO, failure ERROR, timeout WARN, abandoned INFO. */
const CHALLENGE_SEVERITY: ReadonlyMap<unknown, number> = new Map([
  ['solved', SEVERITY.INFO],
  ['failure', SEVERITY.ERROR],
  ['timeout', SEVERITY.WARN],
  ['abandoned', SEVERITY.INFO],
]);
const challengeSeverity = (_t: string, d: Data): number => CHALLENGE_SEVERITY.get(d.status) ?? SEVERITY.INFO;

/**
 * proxy_error: ERROR when the page itself (resource_type Document) could not be loaded through the
 * proxy, WARN for a blocked subresource — the line the service's own OTLP export draws.
 */
const proxyErrorSeverity = (_t: string, d: Data): number =>
  d.resource_type === 'Document' ? SEVERITY.ERROR : SEVERITY.WARN;

/** A type's rule; its category is the vocabulary's (undefined for the catch-all). */
const entry = (
  type: string,
  severity: CatalogueEntry['severity'],
  promote: CatalogueEntry['promote'],
): CatalogueEntry => ({
  type,
  category: EVENT_CATEGORY.get(type),
  eventName: `browser.${type}`,
  severity,
  promote,
});

const INFO = fixed(SEVERITY.INFO);

/** Every type of the written table, in its order. */
export const CATALOGUE: readonly CatalogueEntry[] = [
  entry('console_log', (_t, d) => consoleLevelSeverity(d.level), promoteConsoleLog),
  // console.error calls and uncaught exceptions alike; the latter are told apart by exception.*.
  entry('console_error', fixed(SEVERITY.ERROR), promoteConsoleError),
  entry('network_request', INFO, promoteNetworkRequest),
  entry('network_response', (_t, d) => httpStatusSeverity(d.status), promoteNetworkResponse),
  entry('network_loading_failed', loadingFailedSeverity, promoteLoadingFailed),
  entry('network_idle', INFO, promoteUrl),
  entry('page_dom_content_loaded', INFO, promoteUrl),
  entry('page_load', INFO, promoteUrl),
  entry('page_layout_shift', INFO, promoteLayoutShift),
  entry('page_lcp', INFO, promoteLcp),
  entry('page_layout_settled', INFO, promoteUrl),
  entry('page_crashed', fixed(SEVERITY.ERROR), promoteUrl),
  entry('interaction_click', INFO, promoteUrl),
  entry('interaction_key', INFO, promoteUrl),
  entry('interaction_scroll_settled', INFO, promoteUrl),
  entry('monitor_screenshot', INFO, none),
  entry('monitor_disconnected', fixed(SEVERITY.WARN), promoteMonitorReason),
  entry('monitor_reconnected', INFO, none),
  entry('monitor_reconnect_failed', fixed(SEVERITY.ERROR), promoteMonitorReason),
  entry('monitor_init_failed', fixed(SEVERITY.ERROR), none),
  entry('api_call', (_t, d) => httpStatusSeverity(d.status), promoteApiCall),
  entry('cdp_command', INFO, promoteCdpCommand),
  entry('cdp_connect', INFO, none),
  entry('cdp_disconnect', cdpDisconnectSeverity, promoteCdpDisconnect),
  entry('live_view_connect', INFO, none),
  entry('live_view_disconnect', INFO, none),
  entry('captcha_solve_result', captchaSeverity, promoteCaptchaChallenge),
];

/** Types the written specification names without category or data (their shapes are in SERVICE_TYPES). */
export const NAMED_WITHOUT_DETAIL: readonly string[] = [
  'page_navigation',
  'page_navigation_settled',
  'page_tab_opened',
  'platform_api_call',
  'proxy_error',
  'service_crashed',
  'system_oom_kill',
];

/**
 * Types beyond the written table, as the service sends them: the seven it names without detail and
 * the captcha task/challenge events it does not name at all.
 */
export const SERVICE_TYPES: readonly CatalogueEntry[] = [
  entry('page_navigation', INFO, promoteUrl),
  entry('page_navigation_settled', INFO, promoteUrl),
  entry('page_tab_opened', INFO, promoteUrl),
  // VM management the platform does on the session's behalf (profile saves, replays, recordings).
  entry('platform_api_call', (_t, d) => httpStatusSeverity(d.status), promotePlatformApiCall),
  entry('proxy_error', proxyErrorSeverity, promoteProxyError),
  // A managed service (chromium, the in-VM API, …) died; gave_up means it stays down.
  entry('service_crashed', fixed(SEVERITY.ERROR), promoteServiceCrashed),
  entry('system_oom_kill', fixed(SEVERITY.ERROR), promoteOomKill),
  entry('captcha_solve_started', INFO, promoteCaptchaChallenge),
  entry('captcha_challenge_result', challengeSeverity, promoteCaptchaChallenge),
];

/** The rule for any type not in the tables, including future ones: data passes through intact. */
export const UNKNOWN_TYPE: CatalogueEntry = entry('*', genericSeverity, promoteGeneric);

export const CATALOGUE_BY_TYPE: ReadonlyMap<string, CatalogueEntry> = new Map(
  [...CATALOGUE, ...SERVICE_TYPES].map((e) => [e.type, e] as const),
);
