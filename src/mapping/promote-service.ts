// Promotions for the event types the service sends beyond the written table (docs/service-api.md) (captcha tasks and
// challenges, proxy errors, VM health), with the shapes its source shows (kernel/kernel-images
// server/lib/events and cdpmonitor; the Node SDK's BrowserTelemetryEvent union).
import { ATTR } from './attributes.js';
import type { AttributeValue } from '../vocabulary/log-record.js';
import { promoteCaptcha, promoteNetworkRequest, promoteStatus } from './promote-http.js';

type Attrs = Record<string, AttributeValue>;
type Data = Record<string, unknown>;

function promoteString(data: Data, member: string, attrs: Attrs, name: string): void {
  const v = data[member];
  if (typeof v === 'string' && v !== '') attrs[name] = v;
}

function promoteInt(data: Data, member: string, attrs: Attrs, name: string): void {
  const v = data[member];
  if (typeof v === 'number' && Number.isSafeInteger(v)) attrs[name] = v;
}

/** captcha_solve_started, captcha_challenge_result: as captcha_solve_result, plus the challenge they belong to. */
export function promoteCaptchaChallenge(data: Data, attrs: Attrs): void {
  promoteCaptcha(data, attrs);
  promoteString(data, 'challenge_id', attrs, ATTR.captchaChallengeId);
}

/**
 * proxy_error: a branded 502 page of the egress proxy. `code` (destination_blocked,
 * origin_tls_timeout, …) is the error class, so it is error.type; the request's URL, method, id and
 * resource type as for network events. An image that does not know the proxy's code sends
 * `unknown` and the sanitized header value in `raw_code`: that value is what a newer image sends as
 * `code`, so it is the class, and a backend groups old and new images' errors together.
 */
export function promoteProxyError(data: Data, attrs: Attrs): void {
  promoteNetworkRequest(data, attrs);
  promoteStatus(data, attrs);
  const raw = data.raw_code;
  if (data.code === 'unknown' && typeof raw === 'string' && raw !== '') attrs[ATTR.errorType] = raw;
  else promoteString(data, 'code', attrs, ATTR.errorType);
}

/** platform_api_call: as api_call (status, operation). */
export function promotePlatformApiCall(data: Data, attrs: Attrs): void {
  promoteStatus(data, attrs);
  promoteString(data, 'operation_id', attrs, ATTR.apiOperationId);
}

/** service_crashed: which managed service, in which phase (startup, running, gave_up), its pid. */
export function promoteServiceCrashed(data: Data, attrs: Attrs): void {
  promoteString(data, 'service_name', attrs, ATTR.serviceName);
  promoteString(data, 'phase', attrs, ATTR.serviceCrashPhase);
  promoteInt(data, 'pid', attrs, ATTR.servicePid);
}

/** system_oom_kill: the killed process, its resident size, and why the kernel killed it. */
export function promoteOomKill(data: Data, attrs: Attrs): void {
  promoteString(data, 'process_name', attrs, ATTR.oomProcessName);
  promoteInt(data, 'pid', attrs, ATTR.oomPid);
  promoteInt(data, 'rss_kb', attrs, ATTR.oomRssKb);
  promoteString(data, 'constraint', attrs, ATTR.oomConstraint);
}

/** page_navigation, page_tab_opened, page_navigation_settled: the page URL. */
