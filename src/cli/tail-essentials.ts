// The few members of an event a person scanning `tail` wants on its line, per type
// (docs/service-api.md "Event types and categories"). Pure; reads data after redaction, so masked URLs and headers stay masked.
// Types the written specification does not detail, and future ones, fall back to the members such events usually
// carry (url, error, status, ...) and finally to compact JSON, so nothing is shown as blank.
import { cutToWidth } from './display-width.js';
import { printable } from '../util/printable.js';

/** A coordinate as sent; anything but a number or a string (a hostile frame's object) shows as `?`. */
function coord(v: unknown): string {
  return typeof v === 'number' || typeof v === 'string' ? String(v) : '?';
}

type Data = Record<string, unknown>;

/** Longest essentials text; a line is for scanning, `-o json` has everything. */
export const MAX_ESSENTIALS = 300;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Joins the present parts with spaces. */
function join(...parts: Array<string | undefined | false>): string {
  return parts.filter((p): p is string => typeof p === 'string' && p !== '').join(' ');
}

const ms = (v: unknown): string | undefined => {
  const n = num(v);
  if (n === undefined) return undefined;
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}s` : `${Math.round(n)}ms`;
};
const size = (bytes: number): string => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`);
const quoted = (v: unknown): string | undefined => (str(v) === undefined ? undefined : JSON.stringify(v));
const xy = (d: Data): string | undefined => {
  const x = num(d.x);
  const y = num(d.y) ?? num(d.true);
  return x === undefined || y === undefined ? undefined : `(${x},${y})`;
};

function consoleText(d: Data): string | undefined {
  const text = str(d.text);
  if (text !== undefined) return text;
  return Array.isArray(d.args) ? d.args.filter((a) => typeof a === 'string').join(' ') : undefined;
}

const BY_TYPE: Record<string, (d: Data) => string> = {
  console_log: (d) =>
    join(d.level !== 'log' && d.level !== 'info' && str(d.level) ? `[${String(d.level)}]` : undefined, consoleText(d)),
  console_error: (d) => {
    const where = str(d.source_url);
    const at =
      where === undefined
        ? undefined
        : `at ${where}${num(d.line) !== undefined ? `:${String(d.line)}` : ''}${num(d.column) !== undefined ? `:${String(d.column)}` : ''}`;
    return join(consoleText(d), at);
  },
  network_request: (d) =>
    join(
      str(d.method),
      str(d.url),
      str(d.resource_type) && `[${String(d.resource_type)}]`,
      d.is_redirect === true && '(redirect)',
    ),
  network_response: (d) =>
    join(
      str(d.method),
      str(d.url),
      '→',
      num(d.status) !== undefined ? String(d.status) : '?',
      str(d.status_text),
      str(d.mime_type) && `(${String(d.mime_type)})`,
    ),
  network_loading_failed: (d) => join(str(d.error_text), d.canceled === true && '(canceled)', str(d.url)),
  page_layout_shift: (d) => {
    const details = d.layout_shift_details as Data | undefined;
    const value = typeof details === 'object' && details !== null ? num(details.value) : undefined;
    return join(value !== undefined && `shift ${value}`, str(d.url));
  },
  page_lcp: (d) => {
    const details = d.lcp_details as Data | undefined;
    const render = typeof details === 'object' && details !== null ? ms(details.render_time) : undefined;
    return join(render !== undefined && `lcp ${render}`, str(d.url));
  },
  page_crashed: (d) => join('crashed:', str(d.url), str(d.target_type) && `(${String(d.target_type)})`),
  interaction_click: (d) => join(str(d.selector), xy(d), quoted(d.text)),
  interaction_key: (d) => join(str(d.key), str(d.selector) && `on ${String(d.selector)}`),
  interaction_scroll_settled: (d) =>
    join(str(d.target_selector), `(${coord(d.from_x)},${coord(d.from_y)}) → (${coord(d.to_x)},${coord(d.to_y)})`),
  monitor_screenshot: (d) =>
    typeof d.png === 'string' ? `screenshot ${size(Math.floor((d.png.length * 3) / 4))}` : 'screenshot',
  monitor_disconnected: (d) => join(str(d.reason)),
  monitor_reconnected: (d) => join(ms(d.reconnect_duration_ms) && `after ${ms(d.reconnect_duration_ms)!}`),
  monitor_reconnect_failed: (d) => join(str(d.reason)),
  monitor_init_failed: (d) => join(str(d.step) && `step ${String(d.step)}`),
  api_call: (d) => join(str(d.operation_id), num(d.status) !== undefined && String(d.status), ms(d.duration_ms)),
  cdp_command: (d) =>
    join(str(d.method), str(d.event_type), xy(d), str(d.named_key), str(d.url_scheme) && `${String(d.url_scheme)}:`),
  cdp_connect: (d) => join(str(d.connection_id)),
  cdp_disconnect: (d) =>
    join(
      str(d.connection_id),
      str(d.reason),
      num(d.message_count) !== undefined && `${String(d.message_count)} messages`,
      num(d.telemetry_dropped) ? `${String(d.telemetry_dropped)} dropped` : undefined,
    ),
  live_view_connect: (d) => join(str(d.session_id)),
  live_view_disconnect: (d) => join(str(d.session_id), ms(d.duration_ms)),
  captcha_solve_result: (d) =>
    join(
      str(d.captcha_type),
      str(d.status),
      str(d.error_code) && `(${String(d.error_code)})`,
      str(d.website_host) && `${String(d.website_host)}${str(d.website_path) ?? ''}`,
      ms(d.duration_ms),
    ),
};

/** Members that usually say what an event without a known shape is about, in order of interest. */
const GENERIC = [
  'url',
  'operation_id',
  'error',
  'error_text',
  'message',
  'text',
  'reason',
  'service',
  'process',
  'status',
];

function generic(d: Data): string {
  const parts: string[] = [];
  for (const key of GENERIC) {
    const v = d[key];
    if (typeof v === 'string' && v !== '') parts.push(v);
    else if (typeof v === 'number') parts.push(`${key}=${v}`);
  }
  if (parts.length > 0) return parts.join(' ');
  const keys = Object.keys(d);
  return keys.length === 0 ? '' : JSON.stringify(d);
}

/** One line of essentials for an event; newlines and control characters are made visible. */
export function eventEssentials(type: string, data: Data | undefined): string {
  const d = data ?? {};
  const fn = BY_TYPE[type];
  const text = fn ? fn(d) : generic(d);
  return oneLine(text);
}

/** `text` on one line of at most `max` terminal columns (wide characters count two). */
export function oneLine(text: string, max = MAX_ESSENTIALS): string {
  // A terminal must not be steered by event content (escape sequences) nor broken over lines.
  const flat = printable(text);
  return cutToWidth(flat, max);
}
