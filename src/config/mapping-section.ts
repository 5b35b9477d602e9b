// The `mapping:` section of the configuration: redaction, screenshots, record size, body format and
// filters. Parsed and validated once at start (docs/design.md "Conventions": untrusted input is
// validated where it enters); the mapper precomputes its lookup tables from the result.
import { ConfigError, ConfigProblems, UnknownKeyError } from './errors.js';
import { CONFIG_FILE, keysOf } from './config-keys.js';

import { checkCategories, checkIncludeTypes } from './event-names.js';
import { notABoolean, optBytes, writtenAs } from './readers.js';
import { isRecord } from '../util/guards.js';

const KEYS = CONFIG_FILE.keys.mapping;

export type ScreenshotPolicy = 'inline' | 'drop' | 'directory';
export type BodyFormat = 'map' | 'json';

export interface RedactionOptions {
  /** Master switch; when false nothing below is applied. */
  enabled: boolean;
  /** Header names (case-insensitive, `*` wildcard) whose values are masked in request and response headers. */
  headers: string[];
  /** Query parameter names (case-insensitive, `*` wildcard) whose values are masked in URLs. */
  queryParams: string[];
  /** Mask the user-info part (`user:password@`) of URLs. */
  urlUserinfo: boolean;
  /** Replace network_request.post_data by the mask. */
  dropPostData: boolean;
  /** Replace network_response.body by the mask. */
  dropResponseBody: boolean;
  /** Replace api_call.code (source submitted to the code-execution endpoint) by the mask. */
  dropApiCallCode: boolean;
  /** Replace interaction_key.key by the mask unless it is a named key (Enter, Tab, ArrowDown, …). */
  maskTypedKeys: boolean;
  /**
   * Mask, inside post_data and response bodies (JSON, forms, HTML input and meta fields), the
   * values of keys named like a secret by `headers` or `queryParams`, and the literals api_call.code
   * types into fields so named.
   */
  maskBodySecrets: boolean;
  /** Mask JSON Web Tokens wherever a string of the event holds one (mask-jwts.ts). */
  maskJwts: boolean;
}

export interface ScreenshotOptions {
  policy: ScreenshotPolicy;
  /** Where `directory` writes `<session>/<seq>.png`; required for that policy. */
  directory?: string;
  /**
   * Size limit of a record that carries a PNG inline (the `inline` policy), instead of
   * maxRecordBytes; DEFAULT_SCREENSHOT_RECORD_BYTES when absent. See largestRecordBytes().
   */
  maxRecordBytes?: number;
}

export interface FilterOptions {
  includeCategories?: string[];
  excludeCategories?: string[];
  includeTypes?: string[];
  excludeTypes?: string[];
}

export interface MappingOptions {
  redaction: RedactionOptions;
  screenshots: ScreenshotOptions;
  /** Upper bound of one record's estimated encoded size, in bytes (see size-limit.ts). */
  maxRecordBytes: number;
  bodyFormat: BodyFormat;
  filters: FilterOptions;
}

/** The value every masked secret is replaced by (the semantic conventions' choice for url.full). */
export const REDACTED = 'REDACTED';

/** Authorization, cookies and API-key/token style headers (docs/design.md "Secrets"). */
export const DEFAULT_REDACTED_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  // The same credential under a prefix: X-Authorization (APIs whose gateway keeps Authorization for
  // itself), X-Forwarded-Authorization (Google's API Gateway and Cloud Endpoints). Not a bare
  // `*authorization`: a body key such as `preauthorization` names a payment step, not a secret.
  '*-authorization',
  'cookie',
  'set-cookie',
  '*api-key',
  '*api_key',
  '*apikey',
  '*token',
  '*secret',
  '*password',
  '*signature',
  '*credential',
  '*session-id',
  // API keys under names that do not end in `api-key`: Cloudflare's X-Auth-Key, Azure API
  // Management's Ocp-Apim-Subscription-Key, Azure Functions' x-functions-key, and their kin.
  '*auth-key',
  '*access-key',
  '*secret-key',
  '*private-key',
  '*subscription-key',
  '*functions-key',
  // `Authentication` is what some APIs call their Authorization header.
  '*authentication',
  // Signed assertions that are credentials: OAuth's client_assertion (RFC 7521), Cloudflare Access's
  // Cf-Access-Jwt-Assertion, Google IAP's X-Goog-IAP-JWT-Assertion.
  '*assertion',
  // Anti-forgery tokens under names without `token`: Express's and Spring's `_csrf`, Tornado's `_xsrf`.
  '*csrf',
  '*xsrf',
  // A group of secrets under a plural name, its members named plainly
  // (`{"tokens":{"access":"…","refresh":"…"}}`, `{"credentials":{"id":"…","value":"…"}}`): the
  // group is masked whole, as any value under a secret name is, since its members' names say
  // nothing. A number under one is a count, and kept, unless it is long enough to be a password
  // (plain-codes.ts). `tokens` alone, not `*tokens`: `max_tokens`, `stop_tokens` name a language
  // model's parameters.
  'tokens',
  '*secrets',
  '*passwords',
  '*credentials',
  '*api_keys',
];

/**
 * Signature-like query parameters: the semantic conventions' list for url.full (AWSAccessKeyId,
 * Signature, sig, X-Goog-Signature) widened to the usual cloud and OAuth names, and `jwt`, which the
 * service itself puts on connection URLs (docs/service-api.md "Authentication" 3).
 */
export const DEFAULT_REDACTED_QUERY_PARAMS: readonly string[] = [
  'awsaccesskeyid',
  'sig',
  '*signature',
  '*credential',
  '*token',
  '*secret',
  '*password',
  '*passwd',
  // Login forms name the password field short as often as in full; the passcode and passphrase
  // fields of the same forms; one-time codes.
  'pass',
  '*pwd',
  '*passcode',
  '*passphrase',
  'otp',
  // Single sign-on: a CAS service ticket and the SAML assertion a browser posts back are each
  // enough to log in as the user.
  'ticket',
  'samlresponse',
  // Payment card security codes.
  'cvv',
  'cvc',
  '*api_key',
  '*apikey',
  'api-key',
  // Keys in JSON and query strings, where names take `_` or nothing where headers take `-`: a
  // service account's `private_key`, AWS's `SecretAccessKey` and `aws_secret_access_key`, a client
  // library's `secretKey`, ipstack-style `?access_key=`. Not `*_key`: `public_key`, `idempotency_key`.
  '*private_key',
  '*privatekey',
  '*secret_key',
  '*secretkey',
  '*access_key',
  '*accesskey',
  'key',
  'jwt',
  'code',
  'auth',
  'authorization',
  // Session identifiers in URLs (servlet `;jsessionid=`, PHP, ASP.NET, generic): a session cookie
  // by another name.
  'jsessionid',
  'phpsessid',
  'sid',
  '*sessionid',
  '*session_id',
];

export const DEFAULT_MAX_RECORD_BYTES = 64 * 1024;
/** Below this a record could not even hold its fixed attributes and a truncation note. */
export const MIN_MAX_RECORD_BYTES = 4 * 1024;
/** Well below the 4 MiB request limit common collectors apply. */
export const MAX_MAX_RECORD_BYTES = 1024 * 1024;
/**
 * Records carrying an inline screenshot may be this large by default: under the 256 KB a line may
 * be in Loki (limits_config max_line_size) and an event in CloudWatch Logs, with room left for the
 * record's attributes and its JSON rendering there. The service sends PNGs of up to 729 KiB (972 KiB
 * of base64), so the larger real screenshots do not fit: they are dropped from the record whole
 * (never cut: a cut PNG is no image), which says so (browser.screenshot.disposition = oversized,
 * with the PNG's size) and is counted. Whoever wants every image raises this limit (up to
 * MAX_SCREENSHOT_RECORD_BYTES, for a backend that takes large records) or writes them to a
 * directory.
 */
export const DEFAULT_SCREENSHOT_RECORD_BYTES = 240 * 1024;
export const MAX_SCREENSHOT_RECORD_BYTES = 4 * 1024 * 1024;

export const defaultMappingOptions: MappingOptions = Object.freeze({
  redaction: Object.freeze({
    enabled: true,
    headers: [...DEFAULT_REDACTED_HEADERS],
    queryParams: [...DEFAULT_REDACTED_QUERY_PARAMS],
    urlUserinfo: true,
    dropPostData: false,
    dropResponseBody: false,
    dropApiCallCode: false,
    maskTypedKeys: true,
    maskBodySecrets: true,
    maskJwts: true,
  }),
  screenshots: Object.freeze({ policy: 'inline', maxRecordBytes: DEFAULT_SCREENSHOT_RECORD_BYTES }),
  maxRecordBytes: DEFAULT_MAX_RECORD_BYTES,
  bodyFormat: 'map',
  filters: Object.freeze({}),
});

/** Reads one YAML mapping section, rejecting keys it does not know (typos must not pass silently). */
function section(raw: unknown, key: string, known: readonly string[]): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) throw new ConfigError(key, `must be a mapping (got ${writtenAs(raw)})`);
  for (const k of Object.keys(raw)) {
    if (!known.includes(k)) throw new UnknownKeyError(`${key}.${k}`, known);
  }
  return raw;
}

function bool(raw: unknown, key: string, fallback: boolean): boolean {
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw !== 'boolean') throw notABoolean(raw, key);
  return raw;
}

function names(raw: unknown, key: string): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw new ConfigError(key, 'must be a list of names');
  return raw.map((v, i) => {
    if (typeof v !== 'string' || v.trim() === '') throw new ConfigError(`${key}[${i}]`, 'must be a non-empty string');
    return v.trim();
  });
}

function oneOf<T extends string>(raw: unknown, key: string, allowed: readonly T[], fallback: T): T {
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw !== 'string' || !(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(key, `must be one of: ${allowed.join(', ')}`);
  }
  return raw as T;
}

function parseRedaction(raw: unknown, key: string): RedactionOptions {
  const s = section(raw, key, keysOf(KEYS.keys.redaction));
  const d = defaultMappingOptions.redaction;
  const headers = names(s.headers, `${key}.headers`) ?? [...d.headers];
  const queryParams = names(s.query_params, `${key}.query_params`) ?? [...d.queryParams];
  headers.push(...(names(s.additional_headers, `${key}.additional_headers`) ?? []));
  queryParams.push(...(names(s.additional_query_params, `${key}.additional_query_params`) ?? []));
  return {
    enabled: bool(s.enabled, `${key}.enabled`, d.enabled),
    headers,
    queryParams,
    urlUserinfo: bool(s.url_userinfo, `${key}.url_userinfo`, d.urlUserinfo),
    dropPostData: bool(s.drop_post_data, `${key}.drop_post_data`, d.dropPostData),
    dropResponseBody: bool(s.drop_response_body, `${key}.drop_response_body`, d.dropResponseBody),
    dropApiCallCode: bool(s.drop_api_call_code, `${key}.drop_api_call_code`, d.dropApiCallCode),
    maskTypedKeys: bool(s.mask_typed_keys, `${key}.mask_typed_keys`, d.maskTypedKeys),
    maskBodySecrets: bool(s.mask_body_secrets, `${key}.mask_body_secrets`, d.maskBodySecrets),
    maskJwts: bool(s.mask_jwts, `${key}.mask_jwts`, d.maskJwts),
  };
}

function parseScreenshots(raw: unknown, key: string): ScreenshotOptions {
  const s = section(raw, key, keysOf(KEYS.keys.screenshots));
  const policy = oneOf(s.policy, `${key}.policy`, ['inline', 'drop', 'directory'] as const, 'inline');
  if (s.directory !== undefined && s.directory !== null && (typeof s.directory !== 'string' || s.directory === '')) {
    throw new ConfigError(`${key}.directory`, 'must be a non-empty path');
  }
  const directory = typeof s.directory === 'string' ? s.directory : undefined;
  if (policy === 'directory' && directory === undefined) {
    throw new ConfigError(`${key}.directory`, 'is required when policy is directory');
  }
  const maxRecordBytes = parseBytes(
    s.max_record_bytes,
    `${key}.max_record_bytes`,
    DEFAULT_SCREENSHOT_RECORD_BYTES,
    MAX_SCREENSHOT_RECORD_BYTES,
  );
  return directory === undefined ? { policy, maxRecordBytes } : { policy, directory, maxRecordBytes };
}

function parseBytes(v: unknown, key: string, fallback: number, max: number): number {
  const raw = optBytes(v, key, 0);
  if (raw === undefined) return fallback;
  if (raw < MIN_MAX_RECORD_BYTES || raw > max) {
    throw new ConfigError(key, `must be between ${MIN_MAX_RECORD_BYTES} and ${max} bytes (got ${raw})`);
  }
  return raw;
}

const parseMaxRecordBytes = (raw: unknown, key: string): number =>
  parseBytes(raw, key, DEFAULT_MAX_RECORD_BYTES, MAX_MAX_RECORD_BYTES);

/** The limit for records that carry an inline screenshot. */
export function screenshotRecordBytes(options: MappingOptions): number {
  return Math.max(options.maxRecordBytes, options.screenshots.maxRecordBytes ?? DEFAULT_SCREENSHOT_RECORD_BYTES);
}

/**
 * The largest record the mapper can produce under these options (estimated encoded size): what a
 * spool segment or an export request must have room for. Screenshot records are the large ones,
 * and only under the `inline` policy.
 */
export function largestRecordBytes(options: MappingOptions): number {
  return options.screenshots.policy === 'inline' ? screenshotRecordBytes(options) : options.maxRecordBytes;
}

function parseFilters(raw: unknown, key: string): FilterOptions {
  const s = section(raw, key, keysOf(KEYS.keys.filters));
  const out: FilterOptions = {};
  const ic = names(s.include_categories, `${key}.include_categories`);
  const ec = names(s.exclude_categories, `${key}.exclude_categories`);
  const it = names(s.include_types, `${key}.include_types`);
  const et = names(s.exclude_types, `${key}.exclude_types`);
  // A misspelt category would filter out everything (include) or nothing (exclude), silently, while
  // the checkpoint moves on: refuse it. Unknown types are only warned about (config/warnings.ts).
  checkCategories(ic ?? [], `${key}.include_categories`);
  checkCategories(ec ?? [], `${key}.exclude_categories`);
  // Unknown types are kept (the service adds types), but a type-only include list that matches
  // nothing known would drop everything: that needs the operator's word (allow_unknown_types).
  const allowUnknown = s.allow_unknown_types ?? false;
  if (typeof allowUnknown !== 'boolean') throw notABoolean(allowUnknown, `${key}.allow_unknown_types`);
  if (!ic || ic.length === 0)
    checkIncludeTypes(it ?? [], `${key}.include_types`, allowUnknown, `${key}.allow_unknown_types`);
  if (ic !== undefined) out.includeCategories = ic;
  if (ec !== undefined) out.excludeCategories = ec;
  if (it !== undefined) out.includeTypes = it;
  if (et !== undefined) out.excludeTypes = et;
  return out;
}

/**
 * Validates the `mapping:` section of the YAML configuration (snake_case keys). Absent keys take
 * their defaults; a problem throws a ConfigError naming `<keyPrefix>.<key>`.
 */
export function parseMappingOptions(raw: unknown, keyPrefix: string): MappingOptions {
  const s = section(raw, keyPrefix, keysOf(KEYS));
  // Each part on its own, so that one's problem does not hide another's (all are reported at once).
  const p = new ConfigProblems();
  const d = defaultMappingOptions;
  const options: MappingOptions = {
    redaction: p.take(() => parseRedaction(s.redaction, `${keyPrefix}.redaction`), d.redaction),
    screenshots: p.take(() => parseScreenshots(s.screenshots, `${keyPrefix}.screenshots`), d.screenshots),
    maxRecordBytes: p.take(
      () => parseMaxRecordBytes(s.max_record_bytes, `${keyPrefix}.max_record_bytes`),
      d.maxRecordBytes,
    ),
    bodyFormat: p.take(
      () => oneOf(s.body_format, `${keyPrefix}.body_format`, ['map', 'json'] as const, 'map'),
      d.bodyFormat,
    ),
    filters: p.take(() => parseFilters(s.filters, `${keyPrefix}.filters`), d.filters),
  };
  p.throwIfAny();
  return options;
}
