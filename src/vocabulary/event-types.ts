// The names the service's events carry, and the one place each event type's category is written
// down. Everything that names a category or a type (the mapper's catalogue, filters, `tail`, the
// pool lookup, the simulator, the metrics' label values) reads it from here. docs/service-api.md
// "Event types and categories" is the same table in prose (a test holds them equal); docs/mapping.md
// says what each type becomes.

/** The categories a telemetry configuration has an enable flag for (docs/service-api.md "Capture rules" 1). */
export const TELEMETRY_CATEGORIES = [
  'captcha',
  'connection',
  'console',
  'control',
  'interaction',
  'network',
  'page',
  'platform',
  'screenshot',
  'system',
] as const;
export type TelemetryCategory = (typeof TELEMETRY_CATEGORIES)[number];

/** Every category the service sends: the configurable ones and `monitor`, which has no flag. Sorted. */
export const CATEGORIES: readonly string[] = [...TELEMETRY_CATEGORIES, 'monitor'].sort();

/** Every type of the written specification's event table, in its order, with its category (the "written" rows of docs/service-api.md). */
export const SPEC_EVENT_TYPES: Readonly<Record<string, string>> = {
  console_log: 'console',
  console_error: 'console',
  network_request: 'network',
  network_response: 'network',
  network_loading_failed: 'network',
  network_idle: 'network',
  page_dom_content_loaded: 'page',
  page_load: 'page',
  page_layout_shift: 'page',
  page_lcp: 'page',
  page_layout_settled: 'page',
  page_crashed: 'page',
  interaction_click: 'interaction',
  interaction_key: 'interaction',
  interaction_scroll_settled: 'interaction',
  monitor_screenshot: 'screenshot',
  monitor_disconnected: 'monitor',
  monitor_reconnected: 'monitor',
  monitor_reconnect_failed: 'monitor',
  monitor_init_failed: 'monitor',
  api_call: 'control',
  cdp_command: 'control',
  cdp_connect: 'connection',
  cdp_disconnect: 'connection',
  live_view_connect: 'connection',
  live_view_disconnect: 'connection',
  captcha_solve_result: 'captcha',
};

/**
 * Types beyond the table, as the running service sends them: the seven the written specification names
 * without category or data, and the captcha task and challenge events it does not name at all.
 */
export const SERVICE_EVENT_TYPES: Readonly<Record<string, string>> = {
  page_navigation: 'page',
  page_navigation_settled: 'page',
  page_tab_opened: 'page',
  platform_api_call: 'platform',
  proxy_error: 'network',
  service_crashed: 'system',
  system_oom_kill: 'system',
  captcha_solve_started: 'captcha',
  captcha_challenge_result: 'captcha',
};

/** Category of every known type. */
export const EVENT_CATEGORY: ReadonlyMap<string, string> = new Map([
  ...Object.entries(SPEC_EVENT_TYPES),
  ...Object.entries(SERVICE_EVENT_TYPES),
]);

/** Every event type this bridge knows by name, sorted. Types are open: the service adds new ones. */
export const KNOWN_EVENT_TYPES: readonly string[] = [...EVENT_CATEGORY.keys()].sort();
