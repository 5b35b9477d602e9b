// Attribute names of the log record contract (docs/design.md "The log-record contract") and the base
// attributes every event record carries. Semantic-convention names where one exists, `browser.*`
// otherwise.
import { boundedMemo } from '../util/bounded-memo.js';
import type { Envelope } from '../upstream/envelope.js';
import type { AttributeValue, SessionContext } from '../vocabulary/log-record.js';
import type { NameMatcher } from './name-matcher.js';
import { REDACTED as MASK } from '../config/mapping-section.js';
import { isRecord } from '../util/guards.js';
import { isUrlKey, looksLikeUrl } from './url-shape.js';
import { ESCAPED_SEPARATOR, redactUrlsInFreeText, redactUrlsInText } from './redact-free-text.js';
import { maskJwts } from './mask-jwts.js';

/** What masks `event.source`: secret-named keys (the header list) and URLs in values (the URL redactor). */
export interface SourceMasks {
  secretKeys?: NameMatcher | undefined;
  urls?: { redact(url: string): string } | undefined;
  /** Mask JWTs in every string (mask_jwts). */
  jwts?: boolean;
}

export const ATTR = {
  sessionId: 'browser.session.id',
  seq: 'browser.telemetry.seq',
  eventType: 'browser.event.type',
  eventCategory: 'browser.event.category',
  sourceKind: 'browser.event.source.kind',
  sourceEvent: 'browser.event.source.event',
  /** Prefix of `browser.event.source.metadata.<key>`. */
  sourceMetadataPrefix: 'browser.event.source.metadata.',
  /** Metadata keys whose attribute holds JSON text (non-scalar values), so rebuild can decode them. */
  sourceMetadataJsonKeys: 'browser.event.source.metadata_json_keys',
  /** JSON text of source members the attributes above cannot carry (rare; kept for the round trip). */
  sourceExtra: 'browser.event.source.extra',
  truncated: 'browser.event.truncated',
  /** How a `ts` sent in another unit or shape was read (upstream/event-time.ts), and the value sent. */
  tsReadAs: 'browser.event.ts_read_as',
  tsOriginal: 'browser.event.ts_original',
  uid: 'log.record.uid',
  gapFirst: 'browser.telemetry.gap.first_seq',
  gapLast: 'browser.telemetry.gap.last_seq',
  gapCount: 'browser.telemetry.gap.count',
  // Set by the bridge when it had to shrink a record (size-limit.ts).
  recordTruncated: 'browser.record.truncated',
  recordOriginalBytes: 'browser.record.original_size',
  // Semantic conventions.
  urlFull: 'url.full',
  urlScheme: 'url.scheme',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  httpMethod: 'http.request.method',
  httpMethodOriginal: 'http.request.method_original',
  httpStatus: 'http.response.status_code',
  errorType: 'error.type',
  exceptionType: 'exception.type',
  exceptionMessage: 'exception.message',
  exceptionStacktrace: 'exception.stacktrace',
  codeFilePath: 'code.file.path',
  codeLine: 'code.line.number',
  codeColumn: 'code.column.number',
  codeFunction: 'code.function.name',
  // browser.* where no convention exists.
  consoleLevel: 'browser.console.level',
  networkRequestId: 'browser.network.request.id',
  networkResourceType: 'browser.network.resource_type',
  layoutShiftValue: 'browser.page.layout_shift.value',
  layoutShiftHadRecentInput: 'browser.page.layout_shift.had_recent_input',
  lcpValue: 'browser.page.lcp.value',
  lcpRenderTime: 'browser.page.lcp.render_time',
  lcpLoadTime: 'browser.page.lcp.load_time',
  lcpSize: 'browser.page.lcp.size',
  cdpMethod: 'browser.cdp.method',
  connectionReason: 'browser.connection.reason',
  apiOperationId: 'browser.api_call.operation_id',
  captchaType: 'browser.captcha.type',
  captchaStatus: 'browser.captcha.status',
  captchaChallengeId: 'browser.captcha.challenge_id',
  serviceName: 'browser.service.name',
  serviceCrashPhase: 'browser.service.crash_phase',
  servicePid: 'browser.service.pid',
  oomProcessName: 'browser.oom.process_name',
  oomPid: 'browser.oom.pid',
  oomRssKb: 'browser.oom.rss_kb',
  oomConstraint: 'browser.oom.constraint',
  monitorReason: 'browser.monitor.reason',
  screenshotBytes: 'browser.screenshot.bytes',
  screenshotPath: 'browser.screenshot.path',
  screenshotDisposition: 'browser.screenshot.disposition',
} as const;

/** Sets an own property even for the key `__proto__` (JSON.parse creates such keys; `=` would not). */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** `<session>:<seq>`, or `<session>:e<epoch>:<seq>` once the service restarted its sequence. */
export function recordUid(ctx: SessionContext, seq: number): string {
  return ctx.epoch === 0 ? `${ctx.sessionId}:${seq}` : `${ctx.sessionId}:e${ctx.epoch}:${seq}`;
}

/** JSON text that cannot throw: frames can nest deeper than JSON.stringify's recursion allows. */
function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return '"[nesting too deep]"';
  }
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

/**
 * `browser.event.source.metadata.<key>`, built once per key. Metadata keys are a small vocabulary
 * repeated by every event; concatenating them afresh made a new string per key per event, which
 * V8 then had to flatten and look up before it could serve as a property name.
 */
const metadataName = boundedMemo(1024, (key) => ATTR.sourceMetadataPrefix + key);

/**
 * Encodes `event.source` (BrowserEventSource: its structure is not published; docs/service-api.md "Envelope") so that it can be
 * restored exactly (test/helpers/rebuild-envelope.ts does): string kind/event and scalar metadata
 * as plain attributes, non-scalar metadata as JSON text (listed in metadata_json_keys), anything
 * else as JSON in source.extra.
 * Metadata is producer-specific and free-form, so a key named like a credential (the header list:
 * authorization, *token, cookie, …) has its value masked before it becomes an attribute.
 * Returns whether a value was masked.
 */
function addSource(
  attrs: Record<string, AttributeValue>,
  source: Envelope['event']['source'],
  m: SourceMasks,
): boolean {
  let masked = false;
  let extra: Record<string, unknown> | undefined;
  // Per event: for…in visits a parsed object's own keys in Object.keys order, without an array.
  for (const key in source) {
    const value = source[key];
    if (key === 'kind' && typeof value === 'string') attrs[ATTR.sourceKind] = value;
    else if (key === 'event' && typeof value === 'string') attrs[ATTR.sourceEvent] = value;
    else if (key === 'metadata' && isRecord(value) && hasKeys(value)) {
      let jsonKeys: string[] | undefined;
      for (const mk in value) {
        const mv = value[mk];
        if (m.secretKeys !== undefined && m.secretKeys.matches(mk)) {
          setOwn(attrs, metadataName(mk), MASK);
          if (mv !== MASK) masked = true;
        } else if (isScalar(mv)) {
          // Not named like a secret (asked above): only URLs and JWTs in it remain to mask.
          const out = typeof mv === 'string' ? maskSourceString(mk, mv, m) : mv;
          if (out !== mv) masked = true;
          setOwn(attrs, metadataName(mk), out);
        } else {
          const text = maskedJsonText(mv, m);
          if (text.masked) masked = true;
          setOwn(attrs, metadataName(mk), text.text);
          (jsonKeys ??= []).push(mk);
        }
      }
      if (jsonKeys !== undefined) attrs[ATTR.sourceMetadataJsonKeys] = jsonKeys;
    } else {
      extra ??= {};
      setOwn(extra, key, value);
    }
  }
  // Members beyond kind/event/metadata are not in BrowserEventSource; kept for the round trip, but
  // their secrets are masked like metadata's.
  if (extra !== undefined) {
    const text = maskedJsonText(extra, m);
    if (text.masked) masked = true;
    attrs[ATTR.sourceExtra] = text.text;
  }
  return masked;
}

/**
 * One scalar of `source` as it may be exported: the mask for a secret-named key (whatever the
 * value), URL redaction for a URL (under a URL-named key, or any value shaped like `scheme://…`,
 * e.g. a DevTools WebSocket URL carrying `?jwt=`) and for URLs inside free text, else the value itself.
 */
export function maskSourceScalar<T extends string | number | boolean>(
  key: string,
  value: T,
  m: SourceMasks,
): T | string {
  if (m.secretKeys !== undefined && m.secretKeys.matches(key)) return MASK;
  return typeof value === 'string' ? maskSourceString(key, value, m) : value;
}

/** A source string with its URLs and JWTs masked. */
function maskSourceString(key: string, value: string, m: SourceMasks): string {
  const out = m.urls === undefined ? value : maskSourceUrls(key, value, m.urls);
  return m.jwts === true ? maskJwts(out) : out;
}

/** A source string with its URLs masked: the whole value under a URL-named key or shaped like a URL, else URLs in its text. */
function maskSourceUrls(key: string, value: string, urls: NonNullable<SourceMasks['urls']>): string {
  if (isUrlKey(key)) return urls.redact(value);
  // An absolute URL, alone or in text, holds `://` (`:\/\/` in JSON text with escaped slashes): native
  // searches settle the ids most metadata values are, which looksLikeUrl would read up to 33
  // characters of, one by one, first.
  if (value.includes('://')) return looksLikeUrl(value) ? urls.redact(value) : redactUrlsInFreeText(value, urls);
  return value.includes(ESCAPED_SEPARATOR) ? redactUrlsInText(value, urls, ESCAPED_SEPARATOR) : value;
}

/** Whether an object has an own enumerable key (a parsed object has no inherited ones). */
function hasKeys(obj: Record<string, unknown>): boolean {
  for (const _ in obj) return true;
  return false;
}

/**
 * `event.source` as an object with the masks the attributes get (for `tail -o json`, which prints
 * envelopes): the same object when nothing was masked.
 */
export function maskSource(source: Record<string, unknown>, m: SourceMasks): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(source)) {
    if (key === 'kind' || key === 'event') continue;
    const value = source[key];
    let next: unknown;
    if (key === 'metadata' && isRecord(value)) {
      let meta: Record<string, unknown> | undefined;
      for (const mk of Object.keys(value)) {
        const mv = value[mk];
        const masked = maskOneSourceValue(mk, mv, m);
        if (masked !== mv) setOwn((meta ??= { ...value }), mk, masked);
      }
      next = meta ?? value;
    } else {
      next = maskOneSourceValue(key, value, m);
    }
    if (next !== value) setOwn((out ??= { ...source }), key, next);
  }
  return out ?? source;
}

function maskOneSourceValue(key: string, v: unknown, m: SourceMasks): unknown {
  if (m.secretKeys !== undefined && m.secretKeys.matches(key)) return v === MASK ? v : MASK;
  if (isScalar(v)) return maskSourceScalar(key, v, m);
  if (typeof v !== 'object' || v === null) return v;
  const t = maskedJsonText(v, m);
  return t.masked ? (JSON.parse(t.text) as unknown) : v;
}

/** JSON text of a non-scalar source value with the same masks at any depth. */
export function maskedJsonText(v: unknown, m: SourceMasks): { text: string; masked: boolean } {
  if (m.secretKeys === undefined && m.urls === undefined && m.jwts !== true)
    return { text: jsonText(v), masked: false };
  let masked = false;
  try {
    const text = JSON.stringify(v, (k: string, x: unknown) => {
      if (k === '') return x;
      if (m.secretKeys !== undefined && m.secretKeys.matches(k)) {
        if (x !== MASK) masked = true;
        return MASK;
      }
      if (!isScalar(x)) return x;
      const out = maskSourceScalar(k, x, m);
      if (out !== x) masked = true;
      return out;
    });
    return { text: text ?? 'null', masked };
  } catch {
    return { text: '"[nesting too deep]"', masked };
  }
}

/**
 * The attributes every event record carries; ctx.attributes first so the contract's own names win.
 * `masks` (made once by the caller, not per event): `secretKeys` (the header list, when redaction
 * is on) masks source metadata named like a credential, `urls` the URLs in it; `onMasked` is told
 * when a value was masked.
 */
export function baseAttributes(
  envelope: Envelope,
  ctx: SessionContext,
  masks: SourceMasks = {},
  onMasked?: () => void,
): Record<string, AttributeValue> {
  const attrs: Record<string, AttributeValue> = {};
  for (const key in ctx.attributes) setOwn(attrs, key, ctx.attributes[key] as AttributeValue);
  const ev = envelope.event;
  attrs[ATTR.sessionId] = ctx.sessionId;
  attrs[ATTR.seq] = envelope.seq;
  attrs[ATTR.eventType] = ev.type;
  attrs[ATTR.eventCategory] = ev.category;
  if (addSource(attrs, ev.source, masks)) onMasked?.();
  if (ev.truncated === true) attrs[ATTR.truncated] = true;
  if (envelope.tsNote !== undefined) {
    attrs[ATTR.tsReadAs] = envelope.tsNote.readAs;
    attrs[ATTR.tsOriginal] = envelope.tsNote.original;
  }
  attrs[ATTR.uid] = recordUid(ctx, envelope.seq);
  return attrs;
}
