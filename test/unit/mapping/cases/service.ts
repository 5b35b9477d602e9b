// Mapping cases, the service around the browser (platform_api_call, service_crashed,
// system_oom_kill), captchas, and the unknown-type rule `*`.
import { type MappingCase, INFO, WARN, ERROR, c } from './kit.js';

export const SERVICE_CASES: MappingCase[] = [
  c('monitor_disconnected', 'sent under system', {
    category: 'system',
    data: { reason: 'chrome_restarted' },
    severity: WARN,
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
  ...[200, 404, 500].map((status) =>
    c('platform_api_call', `status ${status}`, {
      category: 'platform',
      data: { request_id: 'P1', operation_id: 'StartRecording', status, duration_ms: 3.25 },
      severity: status >= 500 ? ERROR : status >= 400 ? WARN : INFO,
      attributes: { 'http.response.status_code': status, 'browser.api_call.operation_id': 'StartRecording' },
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
