// Promotions for URLs and HTTP (semantic conventions: url.*, server.*, http.*, error.type).
import { ATTR } from './attributes.js';
import type { AttributeValue } from '../vocabulary/log-record.js';
import { addUrlAttributes } from './redact-url.js';

type Attrs = Record<string, AttributeValue>;
type Data = Record<string, unknown>;

/** HTTP methods the semantic conventions know; anything else is `_OTHER` plus the original. */
const KNOWN_METHODS = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']);

export function promoteUrl(data: Data, attrs: Attrs): void {
  const url = data.url;
  if (typeof url === 'string' && url !== '') addUrlAttributes(attrs, url);
}

export function promoteMethod(data: Data, attrs: Attrs): void {
  const method = data.method;
  if (typeof method !== 'string' || method === '') return;
  if (KNOWN_METHODS.has(method)) attrs[ATTR.httpMethod] = method;
  else {
    attrs[ATTR.httpMethod] = '_OTHER';
    attrs[ATTR.httpMethodOriginal] = method;
  }
}

/**
 * http.response.status_code only for a status an HTTP response can carry (100–599). Chromium
 * reports 0 for a response it never had (an opaque or blocked one): as a status code it would
 * group with real ones in every dashboard; the body keeps the value as the service sent it.
 */
export function promoteStatus(data: Data, attrs: Attrs): void {
  const status = data.status;
  if (isHttpStatus(status)) attrs[ATTR.httpStatus] = status;
}

function isHttpStatus(status: unknown): status is number {
  return typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599;
}

function promoteString(data: Data, member: string, attrs: Attrs, name: string): void {
  const v = data[member];
  if (typeof v === 'string' && v !== '') attrs[name] = v;
}

/** network_request: the request URL, method, request id and resource type. */
export function promoteNetworkRequest(data: Data, attrs: Attrs): void {
  promoteUrl(data, attrs);
  promoteMethod(data, attrs);
  promoteString(data, 'request_id', attrs, ATTR.networkRequestId);
  promoteString(data, 'resource_type', attrs, ATTR.networkResourceType);
}

/** network_response: as the request, plus the status code. */
export function promoteNetworkResponse(data: Data, attrs: Attrs): void {
  promoteNetworkRequest(data, attrs);
  promoteStatus(data, attrs);
}

/** network_loading_failed: error_text (e.g. net::ERR_NAME_NOT_RESOLVED) is the error class. */
export function promoteLoadingFailed(data: Data, attrs: Attrs): void {
  promoteNetworkRequest(data, attrs);
  promoteString(data, 'error_text', attrs, ATTR.errorType);
}

/** api_call: the in-VM API's status and handler name. */
export function promoteApiCall(data: Data, attrs: Attrs): void {
  promoteStatus(data, attrs);
  promoteString(data, 'operation_id', attrs, ATTR.apiOperationId);
}

/** cdp_command: the protocol method; url_scheme (Page.navigate, Target.createTarget) is url.scheme. */
export function promoteCdpCommand(data: Data, attrs: Attrs): void {
  promoteString(data, 'method', attrs, ATTR.cdpMethod);
  const scheme = data.url_scheme;
  if (typeof scheme === 'string' && scheme !== '') attrs[ATTR.urlScheme] = scheme.toLowerCase();
}

/** cdp_disconnect: why the proxy connection closed. */
export function promoteCdpDisconnect(data: Data, attrs: Attrs): void {
  promoteString(data, 'reason', attrs, ATTR.connectionReason);
}

/** captcha_solve_result: type, outcome, solver error code, and the site as server.address. */
export function promoteCaptcha(data: Data, attrs: Attrs): void {
  promoteString(data, 'captcha_type', attrs, ATTR.captchaType);
  promoteString(data, 'status', attrs, ATTR.captchaStatus);
  promoteString(data, 'error_code', attrs, ATTR.errorType);
  promoteString(data, 'website_host', attrs, ATTR.serverAddress);
}

/** monitor_disconnected, monitor_reconnect_failed: the reason enum. */
export function promoteMonitorReason(data: Data, attrs: Attrs): void {
  promoteString(data, 'reason', attrs, ATTR.monitorReason);
}

/** Types whose shape is not shown: url, method and an HTTP-range status when present. */
export function promoteGeneric(data: Data, attrs: Attrs): void {
  promoteUrl(data, attrs);
  promoteMethod(data, attrs);
  promoteStatus(data, attrs);
}
