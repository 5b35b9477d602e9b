// Mapping cases, the session's own machinery: monitor_*, screenshots, cdp_* and live_view_*.
import { type MappingCase, INFO, WARN, ERROR, c } from './kit.js';

export const SESSION_CASES: MappingCase[] = [
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
];
