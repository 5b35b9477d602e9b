// fast-check generators of telemetry envelopes for every catalogue type, every cdp_command method,
// the types named without detail and unknown ones. Each generator yields a pair: the value as the
// service sends it, and the value the rebuilt envelope must hold under default redaction (the
// documented masks applied by an independent, deliberately simple oracle). Secrets carry the marker
// `SECRET` so tests can search serialized records for leaks.
import fc from 'fast-check';
import { CATALOGUE, SERVICE_TYPES } from '../../../src/mapping/catalogue.js';
import { CDP_COMMON_MEMBERS, CDP_METHODS } from '../../../src/mapping/cdp-methods.js';
import type { Envelope } from '../../../src/upstream/envelope.js';

/** [as sent, as rebuilt after default redaction] */
export type Pair = [unknown, unknown];
type G = fc.Arbitrary<Pair>;

const same = <T>(a: fc.Arbitrary<T>): G => a.map((v) => [v, v]);

// Strings: ASCII, full Unicode, graphemes, and the service's own truncation marker.
export const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.string({ maxLength: 12 }).map((s) => `${s}...[truncated]`),
);

const isUrlKey = (k: string): boolean => k === 'url' || k.endsWith('_url') || k.endsWith('Url');
/** Keys of free-form members: never ones the generic redaction rules look at. */
const freeKey = fc
  .oneof(
    fc.string({ maxLength: 6 }),
    fc.string({ unit: 'binary', maxLength: 4 }),
    fc.constantFrom('true', 'y', '__proto__', '', 'constructor', 'nested'),
  )
  .filter((k) => !isUrlKey(k) && k !== 'headers');

const leaf = fc.oneof(
  text,
  fc.integer(),
  fc.maxSafeInteger(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);

/** Free-form JSON: nested arrays, empty objects and arrays, nulls, unicode keys. */
export const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown; arr: unknown[]; obj: Record<string, unknown> }>(
  (tie) => ({
    value: fc.oneof({ depthSize: 'small' }, leaf, tie('arr'), tie('obj')),
    arr: fc.array(tie('value'), { maxLength: 4 }),
    obj: fc.dictionary(freeKey, tie('value'), { maxKeys: 4 }),
  }),
).value;

const secret = fc
  .string({ minLength: 1, maxLength: 8, unit: fc.constantFrom(...'abcXYZ019-_.~') })
  .map((s) => `SECRET${s}`);
const plainValue = fc.string({ maxLength: 8, unit: fc.constantFrom(...'abcdefXYZ0129-_.~%') });

// Names the default lists mask, in several spellings, and names they must leave alone.
const SECRET_PARAMS = [
  'X-Amz-Signature',
  'sig',
  'access_token',
  'jwt',
  'Key',
  'client_secret',
  'AWSAccessKeyId',
  'password',
  'X-Goog-Credential',
];
const PLAIN_PARAMS = ['page', 'q', 'utm_source', 'keyboard', 'sort', 'step', 'signed'];
const param: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.tuple(fc.constantFrom(...SECRET_PARAMS), secret).map(([n, v]): [string, string] => [`${n}=${v}`, `${n}=REDACTED`]),
  fc.tuple(fc.constantFrom(...PLAIN_PARAMS), plainValue).map(([n, v]): [string, string] => [`${n}=${v}`, `${n}=${v}`]),
  fc.constantFrom<[string, string]>(['flag', 'flag'], ['', ''], ['sig=', 'sig=']),
);
const params = fc
  .array(param, { maxLength: 4 })
  .map((ps): [string, string] => [ps.map((p) => p[0]).join('&'), ps.map((p) => p[1]).join('&')]);

/** URLs with optional user-info, port, path (with `@` and unicode), query and fragment parameters. */
export const url: G = fc
  .record({
    scheme: fc.constantFrom('https', 'http', 'wss', 'HTTPS', 'chrome-extension'),
    user: fc.option(fc.tuple(secret, fc.option(secret, { nil: undefined })), { nil: undefined }),
    host: fc.constantFrom('shop.example', '127.0.0.1', '[::1]', 'xn--bcher-kva.example'),
    port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
    path: fc.array(fc.oneof(plainValue, fc.constantFrom('@home', 'ünï', 'a b')), { maxLength: 3 }),
    query: fc.option(params, { nil: undefined }),
    fragment: fc.option(
      fc.oneof(
        params,
        plainValue.map((v): [string, string] => [v, v]),
      ),
      { nil: undefined },
    ),
  })
  .map((u): Pair => {
    const head = `${u.scheme}://`;
    const hostPort = u.host + (u.port === undefined ? '' : `:${u.port}`) + '/' + u.path.join('/');
    const info =
      u.user === undefined
        ? ['', '']
        : u.user[1] === undefined
          ? [`${u.user[0]}@`, 'REDACTED@']
          : [`${u.user[0]}:${u.user[1]}@`, 'REDACTED:REDACTED@'];
    const q = u.query === undefined ? ['', ''] : [`?${u.query[0]}`, `?${u.query[1]}`];
    const f = u.fragment === undefined ? ['', ''] : [`#${u.fragment[0]}`, `#${u.fragment[1]}`];
    return [head + info[0] + hostPort + q[0] + f[0], head + info[1] + hostPort + q[1] + f[1]];
  });

const SECRET_HEADERS = [
  'Authorization',
  'cookie',
  'Set-Cookie',
  'X-Api-Key',
  'x-auth-token',
  'Proxy-Authorization',
  'X-CSRF-Token',
  'x-goog-api-key',
];
const PLAIN_HEADERS = ['Accept', 'content-type', 'User-Agent', 'x-request-id', 'Cache-Control'];
/** BrowserHttpHeaders: sensitive values (any type) become REDACTED, Referer gets URL redaction. */
export const headers: G = fc
  .array(
    fc.oneof(
      fc
        .tuple(fc.constantFrom(...SECRET_HEADERS), fc.oneof(secret, fc.array(secret, { maxLength: 2 })))
        .map(([n, v]): [string, Pair] => [n, [v, 'REDACTED']]),
      fc.tuple(fc.constantFrom(...PLAIN_HEADERS), plainValue).map(([n, v]): [string, Pair] => [n, [v, v]]),
      url.map((u): [string, Pair] => ['Referer', u]),
    ),
    { maxLength: 5 },
  )
  .map((entries): Pair => [
    Object.fromEntries(entries.map(([n, p]) => [n, p[0]])),
    Object.fromEntries(entries.map(([n, p]) => [n, p[1]])),
  ]);

/** An object whose members are all optional, plus free-form extra members. */
export function obj(shape: Record<string, G>, extras = true): G {
  return fc
    .tuple(
      fc.record(shape, { requiredKeys: [] }),
      extras ? fc.dictionary(freeKey, json, { maxKeys: 2 }) : fc.constant({}),
    )
    .map(([members, extra]): Pair => {
      const known = Object.entries(members as Record<string, Pair>);
      const free = Object.entries(extra).filter(([k]) => !(k in shape));
      return [
        Object.fromEntries([...known.map(([k, p]) => [k, p[0]]), ...free]),
        Object.fromEntries([...known.map(([k, p]) => [k, p[1]]), ...free]),
      ];
    });
}

const S = same(text);
const I = same(fc.integer());
const N = same(fc.double({ noNaN: true, noDefaultInfinity: true }));
const B = same(fc.boolean());
const E = (...values: string[]): G => same(fc.constantFrom(...values, 'other'));
const frame = obj({ functionName: S, scriptId: S, url, lineNumber: I, columnNumber: I }, false);
const stack: G = fc.letrec<{ stack: Pair }>((tie) => ({
  stack: fc
    .tuple(fc.array(frame, { maxLength: 3 }), S, fc.option(tie('stack'), { nil: undefined, depthSize: 'small' }))
    .map(([frames, d, parent]): Pair => {
      const raw: Record<string, unknown> = { callFrames: frames.map((f) => f[0]), description: d[0] };
      const exp: Record<string, unknown> = { callFrames: frames.map((f) => f[1]), description: d[1] };
      if (parent !== undefined) [raw.parent, exp.parent] = parent;
      return [raw, exp];
    }),
})).stack;
const CONTEXT = { url, frame_id: S, loader_id: S, nav_seq: I };
/** interaction_key.key: named keys pass, typed characters (anything else) are masked. */
const typedKey: G = fc.oneof(
  same(fc.constantFrom('Enter', 'Tab', 'ArrowDown', 'F5', 'Shift', 'Unidentified')),
  fc
    .oneof(text, fc.constantFrom('a', 'Z', '7', ' ', 'é', '😀'))
    .filter((k) => !/^[A-Z][A-Za-z0-9]+$/.test(k))
    .map((k): Pair => [k, 'REDACTED']),
);
const METHOD = E('GET', 'POST', 'get', 'PROPFIND');
const RESOURCE = E('Document', 'Fetch', 'XHR', 'Script', 'Image');
const STRINGS = same(fc.array(text, { maxLength: 3 }));
const COORDS = { x: I, true: I, y: I };

const SHAPES: Record<string, Record<string, G>> = {
  console_log: {
    ...CONTEXT,
    args: STRINGS,
    level: E('log', 'debug', 'info', 'warning', 'error', 'trace', 'assert'),
    stack_trace: stack,
    text: S,
  },
  console_error: {
    ...CONTEXT,
    text: S,
    args: STRINGS,
    level: E('error'),
    line: I,
    column: I,
    source_url: url,
    stack_trace: stack,
  },
  network_request: {
    ...CONTEXT,
    document_url: url,
    headers,
    initiator_type: E('script', 'parser'),
    is_redirect: B,
    method: METHOD,
    post_data: S,
    redirect_url: url,
    request_id: S,
    resource_type: RESOURCE,
  },
  network_response: {
    ...CONTEXT,
    body: S,
    headers,
    method: METHOD,
    mime_type: S,
    request_id: S,
    resource_type: RESOURCE,
    status: I,
    status_text: S,
  },
  network_loading_failed: { ...CONTEXT, canceled: B, error_text: S, request_id: S, resource_type: RESOURCE },
  network_idle: CONTEXT,
  page_dom_content_loaded: { ...CONTEXT, cdp_timestamp: N },
  page_load: { ...CONTEXT, cdp_timestamp: N },
  page_layout_shift: {
    ...CONTEXT,
    duration: N,
    layout_shift_details: obj({ had_recent_input: B, value: N }, false),
    source_frame_id: S,
    time: N,
  },
  page_lcp: {
    ...CONTEXT,
    lcp_details: obj({ element_id: S, load_time: N, node_id: I, render_time: N, size: N, url }, false),
    source_frame_id: S,
    time: N,
  },
  page_layout_settled: CONTEXT,
  page_crashed: { target_id: S, target_type: S, url },
  interaction_click: { ...CONTEXT, selector: S, tag: S, text: S, ...COORDS },
  interaction_key: { ...CONTEXT, key: typedKey, selector: S, tag: S },
  interaction_scroll_settled: { ...CONTEXT, from_x: I, from_y: I, to_x: I, to_y: I, target_selector: S },
  monitor_screenshot: { png: same(fc.base64String({ maxLength: 64 })) },
  monitor_disconnected: { reason: E('chrome_restarted') },
  monitor_reconnected: { reconnect_duration_ms: I },
  monitor_reconnect_failed: { reason: E('reconnect_exhausted') },
  monitor_init_failed: { step: S },
  api_call: { request_id: S, operation_id: S, status: I, duration_ms: N, code: S },
  cdp_connect: { connection_id: S },
  cdp_disconnect: {
    duration_ms: N,
    message_count: I,
    reason: E('client_close', 'upstream_changed', 'upstream_error', 'context_cancelled'),
    connection_id: S,
    telemetry_dropped: I,
    telemetry_excluded: I,
  },
  live_view_connect: { session_id: S },
  live_view_disconnect: { session_id: S, duration_ms: N },
  captcha_solve_result: {
    captcha_type: E('hcaptcha', 'turnstile', 'press_and_hold'),
    status: E('success', 'failure', 'timeout', 'abandoned'),
    duration_ms: N,
    error_code: S,
    task_id: S,
    challenge_id: S,
    website_host: S,
    website_path: S,
  },
  // Beyond the written table (docs/service-api.md), as the service sends them.
  page_navigation: {
    url,
    frame_id: S,
    loader_id: S,
    parent_frame_id: S,
    session_id: S,
    target_id: S,
    target_type: E('page'),
  },
  page_navigation_settled: CONTEXT,
  page_tab_opened: { url, opener_id: S, target_id: S, target_type: E('page'), title: S },
  platform_api_call: { request_id: S, operation_id: S, status: I, duration_ms: N },
  proxy_error: {
    ...CONTEXT,
    code: E('destination_blocked', 'upstream_timeout'),
    request_id: S,
    status: I,
    method: METHOD,
    resource_type: RESOURCE,
  },
  service_crashed: { phase: E('startup', 'running', 'gave_up'), service_name: S, pid: I },
  system_oom_kill: {
    pid: I,
    process_name: S,
    rss_kb: I,
    constraint: E('none', 'memcg'),
    mem_free_kb: I,
    mem_total_kb: I,
    trigger_pid: I,
    trigger_process_name: S,
    top_tasks: fc
      .array(obj({ name: S, pid: I, rss_kb: I }, false), { maxLength: 5 })
      .map((ps): Pair => [ps.map((p) => p[0]), ps.map((p) => p[1])]),
  },
  captcha_solve_started: {
    captcha_type: E('press_and_hold', 'geetest'),
    challenge_id: S,
    task_id: S,
    website_host: S,
    website_path: S,
  },
  captcha_challenge_result: {
    captcha_type: E('recaptcha_v2', 'press_and_hold'),
    challenge_id: S,
    duration_ms: N,
    status: E('solved', 'failure', 'timeout', 'abandoned'),
    website_host: S,
    website_path: S,
  },
};
const GENERIC = { url, method: METHOD, status: I, level: S, headers };

const cdpData: G = fc.constantFrom(...CDP_METHODS).chain((m) => {
  const shape: Record<string, G> = {};
  for (const name of [...CDP_COMMON_MEMBERS, ...m.required, ...m.optional]) shape[name] = same(leaf);
  if (m.coordinates) Object.assign(shape, COORDS);
  return obj(shape).map(([raw, exp]): Pair => [
    { method: m.method, ...(raw as object) },
    { method: m.method, ...(exp as object) },
  ]);
});

export interface GeneratedEnvelope {
  envelope: Envelope;
  /** The envelope rebuildEnvelope must return under default options. */
  expected: Envelope;
  /** The envelope rebuildEnvelope must return with redaction off. */
  unredacted: Envelope;
}

/** What the documented normalizations do: `true` → `y` when `y` is absent; `truncated: false` → absent. */
function normalized(env: Envelope): Envelope {
  const copy = JSON.parse(JSON.stringify(env)) as Envelope;
  const data = copy.event.data;
  if (data !== undefined && data !== null && Object.hasOwn(data, 'true') && !Object.hasOwn(data, 'y')) {
    copy.event.data = Object.fromEntries(Object.entries(data).map(([k, v]) => [k === 'true' ? 'y' : k, v]));
  }
  if (copy.event.truncated === false) delete copy.event.truncated;
  return copy;
}

const source = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      { kind: text, event: text, metadata: fc.dictionary(text, json, { maxKeys: 3 }) },
      { requiredKeys: [] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.dictionary(fc.constantFrom('kind', 'event', 'metadata', 'other', 'extra'), json, { maxKeys: 3 }),
  },
);

const TYPES = [
  ...CATALOGUE.map((e) => e.type),
  'cdp_command',
  ...SERVICE_TYPES.map((e) => e.type),
  'future_widget_error',
  'future_thing',
];

/** Envelopes of every type; data absent or null now and then (never for cdp_command, which requires it). */
export const envelopes: fc.Arbitrary<GeneratedEnvelope> = fc.constantFrom(...TYPES).chain((type) => {
  const body = type === 'cdp_command' ? cdpData : obj(SHAPES[type] ?? GENERIC);
  const data: fc.Arbitrary<Pair | undefined | null> =
    type === 'cdp_command' ? body : fc.oneof({ weight: 8, arbitrary: body }, fc.constant(undefined), fc.constant(null));
  const category = [...CATALOGUE, ...SERVICE_TYPES].find((e) => e.type === type)?.category ?? 'other';
  return fc
    .record({
      seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      ts: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      category: fc.oneof(fc.constant(category), fc.constant('system'), text),
      source,
      data,
      truncated: fc.option(fc.boolean(), { nil: undefined }),
    })
    .map((g): GeneratedEnvelope => {
      const make = (d: unknown): Envelope => {
        const event: Record<string, unknown> = { ts: g.ts, type, category: g.category, source: g.source };
        if (d !== undefined) event.data = d;
        if (g.truncated !== undefined) event.truncated = g.truncated;
        // Through JSON, as frames arrive: drops -0, null-prototype objects and the like.
        return JSON.parse(JSON.stringify({ seq: g.seq, event })) as Envelope;
      };
      const raw = g.data === null || g.data === undefined ? g.data : g.data[0];
      const exp = g.data === null || g.data === undefined ? g.data : g.data[1];
      const envelope = make(raw);
      return { envelope, expected: normalized(make(exp)), unredacted: normalized(envelope) };
    });
});
