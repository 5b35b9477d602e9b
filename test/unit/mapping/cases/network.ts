// Mapping cases, network_*: requests, responses, failures and idle, and the proxy's proxy_error.
import { type MappingCase, INFO, WARN, ERROR, PAGE, PAGE_ATTRS, ctx, NULL_BLOB, c } from './kit.js';

export const NETWORK_CASES: MappingCase[] = [
  c('network_request', 'GET with secrets', {
    category: 'network',
    data: {
      ...ctx,
      url: 'https://u:p@api.example/v1/items?X-Amz-Signature=abc&page=2',
      method: 'GET',
      request_id: 'R1',
      resource_type: 'Fetch',
      document_url: PAGE,
      headers: { Authorization: 'Bearer s3cr3t', Accept: 'application/json' },
    },
    severity: INFO,
    attributes: {
      'url.full': 'https://REDACTED:REDACTED@api.example/v1/items?X-Amz-Signature=REDACTED&page=2',
      'url.scheme': 'https',
      'server.address': 'api.example',
      'http.request.method': 'GET',
      'browser.network.request.id': 'R1',
      'browser.network.resource_type': 'Fetch',
    },
  }),
  c('network_request', 'non-standard method on a port', {
    category: 'network',
    data: { url: 'http://127.0.0.1:9000/', method: 'PROPFIND' },
    severity: INFO,
    attributes: { 'http.request.method': '_OTHER', 'http.request.method_original': 'PROPFIND', 'server.port': 9000 },
  }),
  c('network_request', "a data: document's request for its blob:null/ worker script", {
    category: 'network',
    data: { url: NULL_BLOB, document_url: NULL_BLOB, method: 'GET', resource_type: 'Script' },
    severity: INFO,
    attributes: { 'url.full': NULL_BLOB, 'url.scheme': 'blob', 'http.request.method': 'GET' },
    absent: ['server.address', 'server.port'],
  }),
  // Chromium's status for a response it never had (opaque, blocked): no HTTP status code.
  c('network_response', 'status 0 is no status code', {
    category: 'network',
    data: { url: 'https://api.example/x', method: 'GET', status: 0, request_id: 'R0' },
    severity: INFO,
    attributes: { 'http.request.method': 'GET', 'browser.network.request.id': 'R0' },
    absent: ['http.response.status_code'],
  }),
  ...[200, 304, 404, 503].map((status) =>
    c('network_response', `status ${status}`, {
      category: 'network',
      data: {
        url: 'https://api.example:444/x',
        method: 'POST',
        status,
        status_text: 'x',
        request_id: 'R2',
        resource_type: 'XHR',
        headers: { 'set-cookie': 'sid=1' },
      },
      severity: status >= 500 ? ERROR : status >= 400 ? WARN : INFO,
      attributes: {
        'http.response.status_code': status,
        'http.request.method': 'POST',
        'url.full': 'https://api.example:444/x',
        'url.scheme': 'https',
        'server.address': 'api.example',
        'server.port': 444,
        'browser.network.request.id': 'R2',
        'browser.network.resource_type': 'XHR',
      },
    }),
  ),
  c('network_response', 'unusual method', {
    category: 'network',
    data: { method: 'purge', status: 200 },
    severity: INFO,
    attributes: { 'http.request.method': '_OTHER', 'http.request.method_original': 'purge' },
  }),
  c('network_loading_failed', 'failed', {
    category: 'network',
    data: {
      ...ctx,
      canceled: false,
      error_text: 'net::ERR_NAME_NOT_RESOLVED',
      request_id: 'R3',
      resource_type: 'Script',
    },
    severity: ERROR,
    attributes: {
      ...PAGE_ATTRS,
      'error.type': 'net::ERR_NAME_NOT_RESOLVED',
      'browser.network.request.id': 'R3',
      'browser.network.resource_type': 'Script',
    },
  }),
  c('network_loading_failed', 'canceled', {
    category: 'network',
    data: { canceled: true, error_text: 'net::ERR_ABORTED' },
    severity: INFO,
  }),
  c('network_loading_failed', 'in flight before attach', {
    category: 'network',
    data: { canceled: false, error_text: 'x', request_id: 'R4' },
    severity: ERROR,
  }),
  c('network_idle', 'context only', { category: 'network', data: { ...ctx }, severity: INFO, attributes: PAGE_ATTRS }),
  ...(
    [
      ['Document', ERROR],
      ['Script', WARN],
      [undefined, WARN],
    ] as const
  ).map(([resourceType, severity]) =>
    c('proxy_error', `resource ${resourceType ?? 'unknown'}`, {
      category: 'network',
      data: {
        ...ctx,
        url: PAGE,
        code: 'destination_blocked',
        request_id: 'R7',
        status: 502,
        method: 'GET',
        ...(resourceType === undefined ? {} : { resource_type: resourceType }),
      },
      severity,
      attributes: {
        ...PAGE_ATTRS,
        'error.type': 'destination_blocked',
        'http.response.status_code': 502,
        'http.request.method': 'GET',
        'browser.network.request.id': 'R7',
        ...(resourceType === undefined ? {} : { 'browser.network.resource_type': resourceType }),
      },
    }),
  ),
  // The codes the proxy sends (kernel-images openapi BrowserProxyErrorEventData); an image that
  // does not know one sends `unknown` with the header value in raw_code, which becomes the class.
  ...(
    [
      ['provider_rejected', undefined, 'provider_rejected'],
      ['origin_tls_timeout', undefined, 'origin_tls_timeout'],
      ['restricted_route_unavailable', undefined, 'restricted_route_unavailable'],
      ['unknown', 'mitm_tls_rejected', 'mitm_tls_rejected'],
      ['unknown', undefined, 'unknown'],
      ['unknown', '', 'unknown'],
    ] as const
  ).map(([code, rawCode, errorType]) =>
    c('proxy_error', `code ${code}${rawCode === undefined ? '' : ` raw_code '${rawCode}'`}`, {
      category: 'network',
      data: {
        ...ctx,
        url: PAGE,
        code,
        ...(rawCode === undefined ? {} : { raw_code: rawCode }),
        request_id: 'R8',
        status: 502,
      },
      severity: WARN,
      attributes: {
        ...PAGE_ATTRS,
        'error.type': errorType,
        'http.response.status_code': 502,
        'browser.network.request.id': 'R8',
      },
    }),
  ),
];
