// One walk over an event's `data` that turns it into the record body: y normalization, redaction
// (headers, URLs, dropped members) and a size estimate, in a single pass so the hot path never
// serializes a record just to learn its size. Copy-on-write: the envelope is never modified, and
// unchanged subtrees are shared with it rather than copied.
import { setOwn } from './attributes.js';
import type { JsonValue } from '../vocabulary/log-record.js';
import { REDACTED, type RedactionOptions } from '../config/mapping-section.js';
import type { HeaderRedactor } from './redact-headers.js';
import type { UrlRedactor } from './redact-url.js';
import type { NameMatcher } from './name-matcher.js';
import { isUrlKey, looksLikeUrl } from './url-shape.js';
import { maskBodySecrets } from './body-secrets.js';
import { maskDataUrl } from './mask-data-url.js';
import { ESCAPED_SEPARATOR, redactUrlsInFreeText, redactUrlsInText } from './redact-free-text.js';
import { maskJwts } from './mask-jwts.js';
import { maskAuthSchemes } from './mask-auth-schemes.js';
import { maskPrintedJson } from './mask-printed-json.js';
import { maskAgentCode } from './mask-agent-code.js';
import { URL_MEMO_CHARS } from './redact-url.js';
import { boundedMemo } from '../util/bounded-memo.js';

/**
 * Subtrees nested deeper than this are replaced by their JSON text: the OTLP encoders and the
 * collector recurse per level, and real events nest a handful of levels (call stacks with async
 * parents are the deepest). Protobuf's default recursion limit is 100 messages (C++ and Java
 * CodedInputStream, protobufjs); the request, ResourceLogs, ScopeLogs, LogRecord and the body's
 * AnyValue take 5, and each object level 3 more (KeyValueList, KeyValue, AnyValue): at 48 levels a
 * record was 149 deep, refused as undecodable by such a collector and dropped as invalid. 30 levels
 * are 95 deep at most.
 */
export const MAX_BODY_DEPTH = 30;

/** URL values remembered with their masked form (see URL_MEMO_CHARS). */
const URL_MEMO_ENTRIES = 512;

/** Per-event scratch, reused by one mapper (map() is synchronous) to avoid an allocation per event. */
export interface WalkState {
  /**
   * Sum of string and key lengths in UTF-16 units: a lower bound of the JSON size. Non-ASCII and
   * escaped characters are not counted separately; size-limit.ts bounds them by a factor.
   */
  chars: number;
  /** Number of values: each costs framing in JSON and more in OTLP/JSON kvlists. */
  nodes: number;
  headersRedacted: boolean;
  urlsRedacted: boolean;
  jwtsRedacted: boolean;
  /** A credential after `Bearer` or `Basic` in free text (mask-auth-schemes.ts). */
  authRedacted: boolean;
}

/** A walk's scratch state, zeroed: one per mapper (map() is synchronous) and reset per event. */
export function newWalkState(): WalkState {
  return { chars: 0, nodes: 0, headersRedacted: false, urlsRedacted: false, jwtsRedacted: false, authRedacted: false };
}

/** Zeroes `s` for the next event. */
export function resetWalkState(s: WalkState): void {
  s.chars = 0;
  s.nodes = 0;
  s.headersRedacted = false;
  s.urlsRedacted = false;
  s.jwtsRedacted = false;
  s.authRedacted = false;
}

type JsonObject = { [key: string]: JsonValue };

/**
 * A key name of the UI Events spec ("Enter", "ArrowDown", "F5", "Shift", "Unidentified"): what
 * commands the page. Anything else — "a", "7", " ", "é", "😀" — is a character the user typed.
 */
const NAMED_KEY = /^[A-Z][A-Za-z0-9]+$/;

/** Members replaced by the mask when the matching switch is on (and `applies`, when set), per event type. */
interface DropRule {
  type: string;
  member: string;
  enabled: (r: RedactionOptions) => boolean;
  applies?: (value: JsonValue | undefined) => boolean;
  kind: 'post_data' | 'response_body' | 'api_call_code' | 'typed_key';
}
export const DROP_RULES: readonly DropRule[] = [
  { type: 'network_request', member: 'post_data', enabled: (r) => r.dropPostData, kind: 'post_data' },
  { type: 'network_response', member: 'body', enabled: (r) => r.dropResponseBody, kind: 'response_body' },
  { type: 'api_call', member: 'code', enabled: (r) => r.dropApiCallCode, kind: 'api_call_code' },
  // interaction_key spells a typed password one keydown at a time. The service's own cdp_command
  // keeps `named_key` and replaces typed characters by `text_length`; the same line here.
  {
    type: 'interaction_key',
    member: 'key',
    enabled: (r) => r.maskTypedKeys,
    applies: (v) => typeof v === 'string' && !NAMED_KEY.test(v),
    kind: 'typed_key',
  },
];

export interface BodyTransformer {
  /** The body for `data`; adds to `state` (reset by the caller). */
  transform(type: string, data: JsonObject, state: WalkState): JsonObject;
  /**
   * The kind of the member masked by the last transform(), if any: dropped whole (a DropRule) or
   * with secrets masked inside (post_data and response bodies, JSON printed to the console, values
   * typed into secret fields in api_call.code: mask_body_secrets).
   */
  lastDropped: DropRule['kind'] | 'console_text' | undefined;
}

/** Events whose `text` and `args` are what a page printed (mask-printed-json.ts). */
const CONSOLE_TYPES: ReadonlySet<string> = new Set(['console_log', 'console_error']);

/** Members that carry a request or response body as text (or, from some producers, as JSON). */
const BODY_MEMBERS: ReadonlyMap<string, { member: string; kind: 'post_data' | 'response_body' }> = new Map([
  ['network_request', { member: 'post_data', kind: 'post_data' }],
  ['network_response', { member: 'body', kind: 'response_body' }],
]);

export function createBodyTransformer(
  redaction: RedactionOptions,
  headers: HeaderRedactor | undefined,
  urls: UrlRedactor | undefined,
  /** Key names whose values are masked inside bodies (the header and query parameter lists); undefined: off. */
  bodyNames?: NameMatcher,
): BodyTransformer {
  // Precomputed: type → member to mask (only the switches that are on).
  const drops = new Map<string, DropRule>();
  if (redaction.enabled) for (const rule of DROP_RULES) if (rule.enabled(redaction)) drops.set(rule.type, rule);
  const bodies = redaction.enabled && redaction.maskBodySecrets && bodyNames !== undefined ? BODY_MEMBERS : undefined;

  // The last free text masked and its result (maskOne).
  let lastText = '';
  let lastMasked = '';
  // A URL value's masked form, remembered: a page's events all carry its URL, a response its
  // request's. Only whole values (copies JSON.parse made), never URLs cut out of a longer text,
  // which would keep that text alive.
  // A `data:` URL's payload is a body and masked as one (mask-data-url.ts) before the URL masking.
  const dataNames = bodies === undefined ? undefined : bodyNames;
  const redactWhole = (url: string, u: UrlRedactor): string =>
    u.redact(dataNames === undefined ? url : maskDataUrl(url, dataNames));
  const remembered = urls && boundedMemo(URL_MEMO_ENTRIES, (url) => redactWhole(url, urls));
  const redactUrl = (url: string, u: UrlRedactor): string =>
    remembered === undefined || url.length > URL_MEMO_CHARS ? redactWhole(url, u) : remembered(url);

  const jwts = redaction.enabled && redaction.maskJwts;

  /**
   * The masked form of one value under `key` (headers, URLs, URLs inside free text: a console
   * message, an error text, a body; JWTs in any string), or the value itself.
   */
  function maskOne(value: JsonValue, key: string, state: WalkState): JsonValue {
    if (typeof value === 'string') {
      if (urls === undefined) return value;
      const masked = maskUrls(value, key, urls, state);
      const schemes = maskAuthSchemes(masked);
      if (schemes !== masked) state.authRedacted = true;
      if (!jwts) return schemes;
      const out = maskJwts(schemes);
      if (out !== schemes) state.jwtsRedacted = true;
      return out;
    }
    if (headers !== undefined && key === 'headers' && typeof value === 'object' && value !== null) {
      const redacted = headers.redact(value);
      if (redacted !== value) state.headersRedacted = true;
      return redacted;
    }
    return value;
  }

  /** `value` under `key` with its URLs masked (a URL-named value whole, absolute URLs inside text). */
  function maskUrls(value: string, key: string, u: UrlRedactor, state: WalkState): string {
    let redacted: string;
    if (isUrlKey(key)) redacted = redactUrl(value, u);
    // Every absolute URL holds `://`, or `:\/\/` in JSON text whose encoder escaped its slashes
    // (a body, or a console line that printed such JSON): native searches settle nearly every string.
    else if (!value.includes('://')) {
      if (!value.includes(ESCAPED_SEPARATOR)) return value;
      redacted = redactUrlsInText(value, u, ESCAPED_SEPARATOR);
    } else if (looksLikeUrl(value)) redacted = redactUrl(value, u);
    // A console event repeats its text as its first argument: mask it once.
    else if (value === lastText) redacted = lastMasked;
    else {
      redacted = redactUrlsInFreeText(value, u);
      lastText = value;
      lastMasked = redacted;
    }
    if (redacted !== value) state.urlsRedacted = true;
    return redacted;
  }

  /**
   * A subtree below MAX_BODY_DEPTH as JSON text, with the same masks as the walk: a replacer sees
   * every member at any depth without recursing here, so a `headers` object or a signed URL
   * nested deeper than the limit is masked too. Deeper than JSON.stringify itself can go, the
   * text says so and carries nothing.
   */
  function deepJson(value: JsonValue, key: string, state: WalkState): string {
    try {
      return JSON.stringify(maskOne(value, key, state), (k: string, v: JsonValue) =>
        k === '' ? v : maskOne(v, k, state),
      );
    } catch {
      return '"[nesting too deep]"';
    }
  }

  function walk(value: JsonValue, key: string, depth: number, state: WalkState): JsonValue {
    state.nodes++;
    if (typeof value === 'string') {
      state.chars += value.length;
      return maskOne(value, key, state);
    }
    if (typeof value !== 'object' || value === null) {
      state.chars += 4;
      return value;
    }
    if (depth >= MAX_BODY_DEPTH) {
      const text = deepJson(value, key, state);
      state.chars += text.length;
      return text;
    }
    const masked = maskOne(value, key, state) as JsonObject | JsonValue[];
    if (Array.isArray(masked)) {
      let out: JsonValue[] | undefined;
      for (let i = 0; i < masked.length; i++) {
        const item = masked[i] as JsonValue;
        // A string item is read under its array's key (`urls: [...]`, `redirect_urls: [...]`).
        const next = walk(item, typeof item === 'string' ? key : '', depth + 1, state);
        if (next !== item) (out ??= masked.slice())[i] = next;
      }
      return out ?? masked;
    }
    const obj: JsonObject = masked;
    let out: JsonObject | undefined;
    // for…in rather than Object.keys: no array per object. Bodies are plain objects (JSON.parse's
    // or copies of them), so it visits exactly their own keys, in the same order.
    for (const k in obj) {
      state.chars += k.length;
      const child = obj[k] as JsonValue;
      const next = walk(child, k, depth + 1, state);
      if (next !== child) setOwn((out ??= { ...obj }), k, next);
    }
    return out ?? obj;
  }

  const transformer: BodyTransformer = {
    lastDropped: undefined,
    transform(type, data, state) {
      transformer.lastDropped = undefined;
      let body = data;
      // The written specification carries the y coordinate in a member named `true` (a YAML artefact,
      // docs/service-api.md "Event types and categories"); the live service sends `y`. Export `y` either way.
      if (Object.hasOwn(data, 'true') && !Object.hasOwn(data, 'y')) body = renameKey(data, 'true', 'y');
      const rule = drops.get(type);
      if (
        rule !== undefined &&
        Object.hasOwn(body, rule.member) &&
        body[rule.member] !== REDACTED &&
        (rule.applies === undefined || rule.applies(body[rule.member]))
      ) {
        body = body === data ? { ...data } : body;
        body[rule.member] = REDACTED;
        transformer.lastDropped = rule.kind;
      }
      // Credentials an agent typed into a secret-named field in the code it submitted.
      if (bodies !== undefined && type === 'api_call' && transformer.lastDropped === undefined) {
        const code = body.code;
        const masked = typeof code === 'string' ? maskAgentCode(code, bodyNames!) : null;
        if (masked !== null) {
          body = body === data ? { ...data } : body;
          setOwn(body, 'code', masked);
          transformer.lastDropped = 'api_call_code';
        }
      }
      // Secrets inside a request or response body (a login form, a token response).
      const carried = bodies?.get(type);
      if (carried !== undefined && transformer.lastDropped === undefined && Object.hasOwn(body, carried.member)) {
        const before = body[carried.member] as JsonValue;
        const after = maskBodySecrets(before, bodyNames!);
        if (after !== before) {
          body = body === data ? { ...data } : body;
          setOwn(body, carried.member, after);
          transformer.lastDropped = carried.kind;
        }
      }
      // Secrets inside JSON a page printed (a debugging print of its session).
      if (bodies !== undefined && CONSOLE_TYPES.has(type)) {
        const printed = maskPrintedJson(body, bodyNames!);
        if (printed !== body) {
          body = printed;
          transformer.lastDropped = 'console_text';
        }
      }
      return walk(body, '', 0, state) as JsonObject;
    },
  };
  return transformer;
}

/** A copy of obj with one key renamed, keeping member order. */
function renameKey(obj: JsonObject, from: string, to: string): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(obj)) setOwn(out, k === from ? to : k, obj[k] as JsonValue);
  return out;
}
