// Table-driven mapping cases: at least one per row of docs/mapping.md (event types and the
// unknown-type rule `*`; every cdp_command method is cdp-cases.ts). docs-agreement.test.ts checks
// the rows and these cases cover each other; mapping-table.test.ts runs them.
import type { AttributeValue, JsonValue } from '../../../src/vocabulary/log-record.js';
import type { MappingOptions } from '../../../src/config/mapping-section.js';
import { SEVERITY } from '../../../src/mapping/severity-levels.js';

export interface MappingCase {
  name: string;
  /** The docs/mapping.md row this case pins: a type, `*`, or a cdp_command method. */
  row: string;
  type: string;
  category: string;
  data?: Record<string, unknown>;
  options?: (o: MappingOptions) => MappingOptions;
  severity: number;
  /** Promoted attributes expected (subset check; docs-agreement checks the full set). */
  attributes?: Record<string, AttributeValue>;
  /** Expected body, when the case pins it. */
  body?: JsonValue;
  /** Attributes that must not be set. */
  absent?: string[];
}

const { TRACE, DEBUG, INFO, WARN, ERROR } = SEVERITY;
const PAGE = 'https://shop.example:8443/checkout?step=2';
const PAGE_ATTRS = { 'url.full': PAGE, 'url.scheme': 'https', 'server.address': 'shop.example', 'server.port': 8443 };
// The whole BrowserEventContext the service stamps on CDP-sourced events (Node SDK telemetry.ts):
// every member stays in the body, none becomes an attribute (docs/mapping.md says why).
const ctx = {
  url: PAGE,
  frame_id: 'F1',
  loader_id: 'L1',
  nav_seq: 3,
  target_id: 'T1',
  target_type: 'page',
  session_id: 'S1',
};
// CDP Runtime.StackTrace as the service passes it on: innermost frame first, zero-based positions.
const STACK = {
  callFrames: [
    { functionName: 'pay', scriptId: '7', url: 'https://shop.example/app.js', lineNumber: 9, columnNumber: 14 },
    { functionName: 'main', scriptId: '7', url: 'https://shop.example/app.js', lineNumber: 40, columnNumber: 2 },
  ],
};
const NULL_BLOB = 'blob:null/83f934c7-b316-4329-9ec9-83db4943886e';
const NULL_BLOB_STACK = {
  callFrames: [{ functionName: '', scriptId: '3', url: NULL_BLOB, lineNumber: 0, columnNumber: 8 }],
};
const LOC = {
  'code.function.name': 'pay',
  'code.file.path': 'https://shop.example/app.js',
  'code.line.number': 10,
  'code.column.number': 15,
};

const c = (
  row: string,
  name: string,
  rest: Omit<MappingCase, 'row' | 'name' | 'type'> & { type?: string },
): MappingCase => ({
  row,
  name,
  type: rest.type ?? row,
  ...rest,
});

export const TYPE_CASES: MappingCase[] = [
  c('console_log', 'log level with stack', {
    category: 'console',
    data: { ...ctx, level: 'log', text: 'hi', args: ['hi'], stack_trace: STACK },
    severity: INFO,
    attributes: { ...PAGE_ATTRS, 'browser.console.level': 'log', ...LOC },
  }),
  c('console_log', 'debug', { category: 'console', data: { level: 'debug', text: 'd' }, severity: DEBUG }),
  c('console_log', 'verbose', { category: 'console', data: { level: 'verbose' }, severity: DEBUG }),
  c('console_log', 'trace', { category: 'console', data: { level: 'trace' }, severity: TRACE }),
  c('console_log', 'warning', { category: 'console', data: { level: 'warning' }, severity: WARN }),
  c('console_log', 'assert', { category: 'console', data: { level: 'assert' }, severity: ERROR }),
  c('console_log', 'error routed here anyway', { category: 'console', data: { level: 'error' }, severity: ERROR }),
  c('console_log', 'table', { category: 'console', data: { level: 'table' }, severity: INFO }),
  c('console_log', 'no level', { category: 'console', data: { text: 'x' }, severity: INFO }),
  c('console_error', 'console.error call', {
    category: 'console',
    data: { ...ctx, level: 'error', text: 'bad', args: ['bad'], stack_trace: STACK },
    severity: ERROR,
    attributes: { ...PAGE_ATTRS, 'browser.console.level': 'error', ...LOC },
  }),
  c('console_error', 'uncaught exception', {
    category: 'console',
    data: {
      ...ctx,
      text: 'Uncaught TypeError: x is not a function',
      line: 9,
      column: 14,
      source_url: 'https://shop.example/app.js',
      stack_trace: STACK,
    },
    severity: ERROR,
    attributes: {
      'exception.type': 'TypeError',
      'exception.message': 'x is not a function',
      'exception.stacktrace':
        'Uncaught TypeError: x is not a function\n    at pay (https://shop.example/app.js:10:15)\n    at main (https://shop.example/app.js:41:3)',
      'code.function.name': 'pay',
      'code.file.path': 'https://shop.example/app.js',
      'code.line.number': 10,
      'code.column.number': 15,
    },
  }),
  c('console_error', 'uncaught exception at line 0, column 0 (zero-based: 1:1)', {
    category: 'console',
    data: { text: 'Uncaught Error: boom', line: 0, column: 0, source_url: 'https://shop.example/inline.js' },
    severity: ERROR,
    attributes: {
      'exception.type': 'Error',
      'exception.message': 'boom',
      'code.file.path': 'https://shop.example/inline.js',
      'code.line.number': 1,
      'code.column.number': 1,
    },
  }),
  c('console_error', 'uncaught exception that also carries a level', {
    category: 'console',
    data: {
      level: 'error',
      text: 'Uncaught (in promise) TypeError: x is not a function',
      line: 3,
      column: 7,
      source_url: 'https://shop.example/app.js',
    },
    severity: ERROR,
    attributes: {
      'exception.type': 'TypeError',
      'exception.message': 'x is not a function',
      'code.line.number': 4,
      'code.column.number': 8,
    },
  }),
  // What Chromium sends as exceptionDetails.text today: the label alone, the error's own type and
  // message being in exceptionDetails.exception, which the service does not copy
  // (test/integration/devkit/chromium-session-shapes.test.ts).
  ...['Uncaught', 'Uncaught (in promise)'].map((text) =>
    c('console_error', `uncaught exception whose text is Chromium's bare label "${text}"`, {
      category: 'console',
      data: { text, line: 0, column: 5, source_url: 'https://shop.example/app.js' },
      severity: ERROR,
      attributes: { 'exception.message': text },
      absent: ['exception.type'],
    }),
  ),
  c('console_error', 'console.error call without level (older or cut event) is no exception', {
    category: 'console',
    data: { text: 'TypeError: shown, not thrown', args: ['TypeError: shown, not thrown'], stack_trace: STACK },
    severity: ERROR,
    attributes: LOC,
    absent: ['exception.type', 'exception.message', 'exception.stacktrace'],
  }),
  // A dedicated worker of a data: document (opaque origin) runs from blob:null/<uuid>, as headless
  // Chromium reports it (test/integration/devkit/chromium-session-shapes.test.ts): the frame's URL is
  // the code's file, and "null" names no server.
  c('console_log', 'a blob:null/ worker of a data: document: its frame is the file, no server', {
    category: 'console',
    data: { level: 'log', text: 'w', args: ['w'], stack_trace: NULL_BLOB_STACK },
    severity: INFO,
    attributes: { 'code.file.path': NULL_BLOB, 'code.line.number': 1, 'code.column.number': 9 },
    absent: ['url.full', 'server.address', 'server.port'],
  }),
  c('console_error', 'uncaught exception in a blob:null/ worker', {
    category: 'console',
    data: { text: 'Uncaught (in promise)', line: 0, column: 33, source_url: NULL_BLOB, stack_trace: NULL_BLOB_STACK },
    severity: ERROR,
    attributes: {
      'exception.message': 'Uncaught (in promise)',
      'exception.stacktrace': `Uncaught (in promise)\n    at ${NULL_BLOB}:1:9`,
      'code.file.path': NULL_BLOB,
      'code.line.number': 1,
      'code.column.number': 34,
    },
    absent: ['server.address', 'server.port'],
  }),
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
  c('page_dom_content_loaded', 'with cdp_timestamp', {
    category: 'page',
    data: { ...ctx, cdp_timestamp: 1234.5 },
    severity: INFO,
    attributes: PAGE_ATTRS,
  }),
  c('page_load', 'with cdp_timestamp', {
    category: 'page',
    data: { ...ctx, cdp_timestamp: 1235.25 },
    severity: INFO,
    attributes: PAGE_ATTRS,
  }),
  c('page_layout_shift', 'shift', {
    category: 'page',
    data: {
      ...ctx,
      duration: 0,
      layout_shift_details: { had_recent_input: false, value: 0.1375 },
      source_frame_id: 'F1',
      time: 812.4,
    },
    severity: INFO,
    attributes: {
      ...PAGE_ATTRS,
      'browser.page.layout_shift.value': 0.1375,
      'browser.page.layout_shift.had_recent_input': false,
    },
  }),
  c('page_lcp', 'same-origin image', {
    category: 'page',
    data: {
      ...ctx,
      lcp_details: {
        element_id: 'hero',
        load_time: 900.5,
        node_id: 12,
        render_time: 1020.25,
        size: 48000,
        url: 'https://cdn.example/hero.png?token=t',
      },
      source_frame_id: 'F1',
      time: 1020.25,
    },
    severity: INFO,
    attributes: {
      ...PAGE_ATTRS,
      'browser.page.lcp.value': 1020.25,
      'browser.page.lcp.render_time': 1020.25,
      'browser.page.lcp.load_time': 900.5,
      'browser.page.lcp.size': 48000,
    },
  }),
  c('page_lcp', 'cross-origin image without timing header', {
    category: 'page',
    data: { lcp_details: { load_time: 700.5, render_time: 0, size: 10 }, time: 700.5 },
    severity: INFO,
    attributes: { 'browser.page.lcp.value': 700.5 },
  }),
  c('page_layout_settled', 'context only', {
    category: 'page',
    data: { ...ctx },
    severity: INFO,
    attributes: PAGE_ATTRS,
  }),
  c('page_crashed', 'renderer crash', {
    category: 'page',
    data: { target_id: 'T1', target_type: 'page', url: PAGE },
    severity: ERROR,
    attributes: PAGE_ATTRS,
  }),
  c('interaction_click', 'y sent as `true`', {
    category: 'interaction',
    data: { ...ctx, selector: 'button#pay', tag: 'BUTTON', text: 'Pay', x: 10, true: 20 },
    severity: INFO,
    attributes: PAGE_ATTRS,
    body: { ...ctx, selector: 'button#pay', tag: 'BUTTON', text: 'Pay', x: 10, y: 20 },
  }),
  c('interaction_click', 'y sent as `y`', {
    category: 'interaction',
    data: { x: 1, y: 2 },
    severity: INFO,
    body: { x: 1, y: 2 },
  }),
  c('interaction_key', 'named key', {
    category: 'interaction',
    data: { ...ctx, key: 'Enter', selector: 'input', tag: 'INPUT' },
    severity: INFO,
    attributes: PAGE_ATTRS,
    body: { ...ctx, key: 'Enter', selector: 'input', tag: 'INPUT' },
  }),
  c('interaction_key', 'typed character', {
    category: 'interaction',
    data: { key: 'p', selector: 'input#password', tag: 'INPUT' },
    severity: INFO,
    body: { key: 'REDACTED', selector: 'input#password', tag: 'INPUT' },
  }),
  c('interaction_scroll_settled', 'scroll', {
    category: 'interaction',
    data: { ...ctx, from_x: 0, from_y: 0, to_x: 0, to_y: 900, target_selector: 'html' },
    severity: INFO,
    attributes: PAGE_ATTRS,
  }),
  c('monitor_screenshot', 'inline', {
    category: 'screenshot',
    data: { png: 'iVBORw0KGgo=' },
    severity: INFO,
    attributes: { 'browser.screenshot.bytes': 8, 'browser.screenshot.disposition': 'inline' },
    body: { png: 'iVBORw0KGgo=' },
  }),
  c('monitor_screenshot', 'directory', {
    category: 'screenshot',
    data: { png: 'iVBORw0KGgo=' },
    options: (o) => ({ ...o, screenshots: { policy: 'directory', directory: '/unused' } }),
    severity: INFO,
    attributes: { 'browser.screenshot.disposition': 'file', 'browser.screenshot.path': '/fake/s-1/1.png' },
    body: {},
  }),
  c('monitor_disconnected', 'chrome restarted', {
    category: 'monitor',
    data: { reason: 'chrome_restarted' },
    severity: WARN,
    attributes: { 'browser.monitor.reason': 'chrome_restarted' },
  }),
  c('monitor_disconnected', 'sent under system', {
    category: 'system',
    data: { reason: 'chrome_restarted' },
    severity: WARN,
  }),
  c('monitor_reconnected', 'reconnected', {
    category: 'monitor',
    data: { reconnect_duration_ms: 1500 },
    severity: INFO,
  }),
  c('monitor_reconnect_failed', 'exhausted', {
    category: 'monitor',
    data: { reason: 'reconnect_exhausted' },
    severity: ERROR,
    attributes: { 'browser.monitor.reason': 'reconnect_exhausted' },
  }),
  c('monitor_init_failed', 'step', { category: 'monitor', data: { step: 'Network.enable' }, severity: ERROR }),
  ...[200, 422, 500].map((status) =>
    c('api_call', `status ${status}`, {
      category: 'control',
      data: {
        request_id: 'A1',
        operation_id: 'ExecutePlaywright',
        status,
        duration_ms: 12.5,
        code: 'await page.click("x")',
      },
      severity: status >= 500 ? ERROR : status >= 400 ? WARN : INFO,
      attributes: { 'http.response.status_code': status, 'browser.api_call.operation_id': 'ExecutePlaywright' },
    }),
  ),
  c('cdp_command', 'Page.navigate', {
    category: 'control',
    data: {
      method: 'Page.navigate',
      command_id: 4,
      connection_id: 'C1',
      session_id: 'S1',
      url_scheme: 'HTTPS',
      transition_type: 'other',
    },
    severity: INFO,
    attributes: { 'browser.cdp.method': 'Page.navigate', 'url.scheme': 'https' },
  }),
  c('cdp_connect', 'connect', { category: 'connection', data: { connection_id: 'C1' }, severity: INFO }),
  c('cdp_disconnect', 'client close', {
    category: 'connection',
    data: {
      connection_id: 'C1',
      duration_ms: 1000,
      message_count: 20,
      reason: 'client_close',
      telemetry_dropped: 0,
      telemetry_excluded: 3,
    },
    severity: INFO,
    attributes: { 'browser.connection.reason': 'client_close' },
  }),
  c('cdp_disconnect', 'upstream error', {
    category: 'connection',
    data: { duration_ms: 5, message_count: 1, reason: 'upstream_error' },
    severity: WARN,
  }),
  c('cdp_disconnect', 'telemetry dropped', {
    category: 'connection',
    data: { duration_ms: 5, message_count: 1, reason: 'client_close', telemetry_dropped: 2 },
    severity: WARN,
  }),
  c('cdp_disconnect', 'older image without telemetry_dropped', {
    category: 'connection',
    data: { duration_ms: 5, message_count: 1, reason: 'context_cancelled' },
    severity: INFO,
  }),
  c('live_view_connect', 'connect', { category: 'connection', data: { session_id: 'LV1' }, severity: INFO }),
  c('live_view_disconnect', 'disconnect', {
    category: 'connection',
    data: { session_id: 'LV1', duration_ms: 60000 },
    severity: INFO,
  }),
  ...(
    [
      ['success', INFO],
      ['failure', ERROR],
      ['timeout', WARN],
      ['abandoned', INFO],
    ] as const
  ).map(([status, severity]) =>
    c('captcha_solve_result', status, {
      category: 'captcha',
      data: {
        captcha_type: 'turnstile',
        status,
        duration_ms: 4200,
        error_code: 'ERROR_CAPTCHA_UNSOLVABLE',
        task_id: 'T9',
        challenge_id: 'ch_1',
        website_host: 'shop.example',
        website_path: '/login',
      },
      severity,
      attributes: {
        'browser.captcha.type': 'turnstile',
        'browser.captcha.status': status,
        'browser.captcha.challenge_id': 'ch_1',
        'error.type': 'ERROR_CAPTCHA_UNSOLVABLE',
        'server.address': 'shop.example',
      },
    }),
  ),
  // Beyond the written table: the shapes the service's source shows (docs/service-api.md "Event types and categories").
  c('page_navigation', 'top-level navigation', {
    category: 'page',
    data: { session_id: 'S1', target_id: 'T1', target_type: 'page', url: PAGE, frame_id: 'F1', loader_id: 'L2' },
    severity: INFO,
    attributes: PAGE_ATTRS,
  }),
  c('page_navigation_settled', 'context', {
    category: 'page',
    data: { ...ctx, nav_seq: 3 },
    severity: INFO,
    attributes: PAGE_ATTRS,
  }),
  c('page_tab_opened', 'new tab', {
    category: 'page',
    data: { target_id: 'T2', target_type: 'page', url: PAGE, opener_id: 'T1', title: 'Checkout' },
    severity: INFO,
    attributes: PAGE_ATTRS,
  }),
  ...[200, 404, 500].map((status) =>
    c('platform_api_call', `status ${status}`, {
      category: 'platform',
      data: { request_id: 'P1', operation_id: 'StartRecording', status, duration_ms: 3.25 },
      severity: status >= 500 ? ERROR : status >= 400 ? WARN : INFO,
      attributes: { 'http.response.status_code': status, 'browser.api_call.operation_id': 'StartRecording' },
    }),
  ),
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
  c('service_crashed', 'running process died', {
    category: 'system',
    data: { service_name: 'chromium', phase: 'running', pid: 4242 },
    severity: ERROR,
    attributes: {
      'browser.service.name': 'chromium',
      'browser.service.crash_phase': 'running',
      'browser.service.pid': 4242,
    },
  }),
  c('service_crashed', 'restarts given up (no pid)', {
    category: 'system',
    data: { service_name: 'kernel-images-api', phase: 'gave_up' },
    severity: ERROR,
    attributes: { 'browser.service.name': 'kernel-images-api', 'browser.service.crash_phase': 'gave_up' },
    absent: ['browser.service.pid'],
  }),
  c('system_oom_kill', 'renderer killed in a memory cgroup', {
    category: 'system',
    data: {
      pid: 3117,
      process_name: 'chrome',
      rss_kb: 1843200,
      constraint: 'memcg',
      mem_free_kb: 51200,
      mem_total_kb: 4194304,
      trigger_pid: 2001,
      trigger_process_name: 'chrome',
      top_tasks: [
        { name: 'chrome', pid: 3117, rss_kb: 1843200 },
        { name: 'Xvfb', pid: 88, rss_kb: 120000 },
      ],
    },
    severity: ERROR,
    attributes: {
      'browser.oom.process_name': 'chrome',
      'browser.oom.pid': 3117,
      'browser.oom.rss_kb': 1843200,
      'browser.oom.constraint': 'memcg',
    },
  }),
  c('captcha_solve_started', 'press and hold', {
    category: 'captcha',
    data: {
      captcha_type: 'press_and_hold',
      challenge_id: 'ch_1',
      task_id: 'T9',
      website_host: 'shop.example',
      website_path: '/login',
    },
    severity: INFO,
    attributes: {
      'browser.captcha.type': 'press_and_hold',
      'browser.captcha.challenge_id': 'ch_1',
      'server.address': 'shop.example',
    },
  }),
  ...(
    [
      ['solved', INFO],
      ['failure', ERROR],
      ['timeout', WARN],
      ['abandoned', INFO],
    ] as const
  ).map(([status, severity]) =>
    c('captcha_challenge_result', status, {
      category: 'captcha',
      data: {
        captcha_type: 'recaptcha_v2',
        challenge_id: 'ch_1',
        status,
        duration_ms: 15300.5,
        website_host: 'shop.example',
        website_path: '/login',
      },
      severity,
      attributes: {
        'browser.captcha.type': 'recaptcha_v2',
        'browser.captcha.status': status,
        'browser.captcha.challenge_id': 'ch_1',
        'server.address': 'shop.example',
      },
    }),
  ),
  c('captcha_challenge_result', 'inferred from a solved token task (task_id, no challenge_id)', {
    category: 'captcha',
    data: {
      captcha_type: 'turnstile',
      status: 'solved',
      duration_ms: 1234.5,
      inferred: true,
      task_id: 't1',
      website_host: 'shop.example',
      website_path: '/login',
    },
    severity: INFO,
    absent: ['browser.captcha.challenge_id'],
  }),
  c('*', 'future info type', {
    type: 'widget_rendered',
    category: 'future',
    data: { url: 'https://w.example:8080/a', method: 'GET', status: 200, nested: [[], {}, null] },
    severity: INFO,
    attributes: {
      'url.full': 'https://w.example:8080/a',
      'url.scheme': 'https',
      'server.address': 'w.example',
      'server.port': 8080,
      'http.request.method': 'GET',
      'http.response.status_code': 200,
    },
  }),
  c('*', 'future type, odd method', {
    type: 'widget_fetched',
    category: 'future',
    data: { method: 'Get' },
    severity: INFO,
    attributes: { 'http.request.method_original': 'Get' },
  }),
  c('*', 'future failure by name', { type: 'widget_load_failed', category: 'future', severity: ERROR }),
  c('*', 'future warning by name', { type: 'widget_timeout', category: 'future', severity: WARN }),
  c('*', 'future type with 4xx status', {
    type: 'widget_call',
    category: 'future',
    data: { status: 404 },
    severity: WARN,
  }),
  c('*', 'future type with console level', {
    type: 'widget_log',
    category: 'future',
    data: { level: 'debug' },
    severity: INFO,
  }),
  c('*', 'no false positive for zoom', { type: 'page_zoom', category: 'page', severity: INFO }),
];
