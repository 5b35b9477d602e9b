// The browser pool resource (docs/service-api.md "Browser pool" and "Capture rules"), as
// answered by GET /browser_pools/{id_or_name}. The body is untrusted: it is validated once here into
// a typed object, and everything downstream (pool resolver, `pool`, `check`) reads only that.
//
// The service does not say which members are required, so only `id` is: without it the
// pool cannot be named in attributes. A member present with the wrong type is ignored and named in
// `ignored` (never its value), so a service version that changes a shape degrades to "unknown"
// instead of failing the lookup.
import { isRecord } from '../util/guards.js';
import { maskUrlText } from '../util/mask-url-text.js';

import { TELEMETRY_CATEGORIES, type TelemetryCategory } from '../vocabulary/event-types.js';

export { TELEMETRY_CATEGORIES, type TelemetryCategory } from '../vocabulary/event-types.js';

/**
 * What the real service captures when a flag is unstated (its own docs and SDK): the operational
 * categories are opt-out, the CDP ones, screenshot and platform opt-in.
 */
export const DEFAULT_ON_CATEGORIES: readonly TelemetryCategory[] = ['control', 'connection', 'system', 'captcha'];

export interface PoolTelemetry {
  /** `telemetry.browser.<category>.enabled` as the pool states it; a category it does not mention is absent. */
  categories: Partial<Record<TelemetryCategory, boolean>>;
  /** False when the configuration has no `browser` member at all: the categories are then unknown. */
  hasBrowserSection: boolean;
  /** `telemetry.browser.control.cdp.excluded_methods`: methods that produce no cdp_command event. */
  excludedCdpMethods: string[];
  /** `telemetry.export.otlp`: the pool delivering OTLP itself. */
  otlpExport: { enabled?: boolean; destination?: string };
}

export interface BrowserPool {
  id: string;
  name?: string;
  /** As the pool gives it (documented values `us-east`, `eu-west`; others are passed through). */
  region?: string;
  createdAt?: string;
  acquiredCount?: number;
  availableCount?: number;
  size?: number;
  /** Resolved extension ids, in load order (authoritative). */
  extensionIds: string[];
  /** The extension selectors as sent on create (`browser_pool_config.extensions`). */
  extensions: Array<{ id?: string; name?: string }>;
  /** Resolved profile id (authoritative) and the selector as sent on create. */
  profileId?: string;
  profile?: { id?: string; name?: string };
  headless?: boolean;
  stealth?: boolean;
  kioskMode?: boolean;
  timeoutSeconds?: number;
  viewport?: { width?: number; height?: number; refreshRate?: number };
  /** Undefined when the pool shows no telemetry configuration. */
  telemetry?: PoolTelemetry;
  /** Paths of members that were present with an unexpected type and were ignored. */
  ignored: string[];
}

export type PoolParseResult = { ok: true; pool: BrowserPool } | { ok: false; reason: string };

type Obj = Record<string, unknown>;

/** Typed readers that note a mistyped member instead of failing the whole pool. */
class Reader {
  readonly ignored: string[] = [];

  str(o: Obj, key: string, path: string): string | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    this.ignored.push(path);
    return undefined;
  }

  int(o: Obj, key: string, path: string): number | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
    this.ignored.push(path);
    return undefined;
  }

  bool(o: Obj, key: string, path: string): boolean | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'boolean') return v;
    this.ignored.push(path);
    return undefined;
  }

  obj(o: Obj, key: string, path: string): Obj | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (isRecord(v)) return v;
    this.ignored.push(path);
    return undefined;
  }

  strings(o: Obj, key: string, path: string): string[] {
    const v = o[key];
    if (v === undefined || v === null) return [];
    if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v;
    this.ignored.push(path);
    return [];
  }
}

/** Validates a parsed JSON body as a browser pool. */
export function parsePool(value: unknown): PoolParseResult {
  if (!isRecord(value)) return { ok: false, reason: 'the body is not a JSON object' };
  if (typeof value.id !== 'string' || value.id === '') return { ok: false, reason: 'the pool has no id' };
  const r = new Reader();
  const cfg = r.obj(value, 'browser_pool_config', 'browser_pool_config') ?? {};
  const pool: BrowserPool = {
    id: value.id,
    extensionIds: r.strings(value, 'extension_ids', 'extension_ids'),
    extensions: [],
    ignored: r.ignored,
  };
  assign(pool, 'name', r.str(value, 'name', 'name') ?? r.str(cfg, 'name', 'browser_pool_config.name'));
  assign(pool, 'region', r.str(value, 'region', 'region'));
  assign(pool, 'createdAt', r.str(value, 'created_at', 'created_at'));
  assign(pool, 'acquiredCount', r.int(value, 'acquired_count', 'acquired_count'));
  assign(pool, 'availableCount', r.int(value, 'available_count', 'available_count'));
  assign(pool, 'profileId', r.str(value, 'profile_id', 'profile_id'));
  assign(pool, 'size', r.int(cfg, 'size', 'browser_pool_config.size'));
  assign(pool, 'headless', r.bool(cfg, 'headless', 'browser_pool_config.headless'));
  assign(pool, 'stealth', r.bool(cfg, 'stealth', 'browser_pool_config.stealth'));
  assign(pool, 'kioskMode', r.bool(cfg, 'kiosk_mode', 'browser_pool_config.kiosk_mode'));
  assign(pool, 'timeoutSeconds', r.int(cfg, 'timeout_seconds', 'browser_pool_config.timeout_seconds'));

  const extensions = cfg.extensions;
  if (Array.isArray(extensions)) {
    extensions.forEach((e, i) => {
      if (!isRecord(e)) return void r.ignored.push(`browser_pool_config.extensions[${i}]`);
      const ext: { id?: string; name?: string } = {};
      assign(ext, 'id', r.str(e, 'id', `browser_pool_config.extensions[${i}].id`));
      assign(ext, 'name', r.str(e, 'name', `browser_pool_config.extensions[${i}].name`));
      pool.extensions.push(ext);
    });
  } else if (extensions !== undefined && extensions !== null) r.ignored.push('browser_pool_config.extensions');

  const profile = r.obj(cfg, 'profile', 'browser_pool_config.profile');
  if (profile) {
    const p: { id?: string; name?: string } = {};
    assign(p, 'id', r.str(profile, 'id', 'browser_pool_config.profile.id'));
    assign(p, 'name', r.str(profile, 'name', 'browser_pool_config.profile.name'));
    pool.profile = p;
  }
  const viewport = r.obj(cfg, 'viewport', 'browser_pool_config.viewport');
  if (viewport) {
    const v: NonNullable<BrowserPool['viewport']> = {};
    assign(v, 'width', r.int(viewport, 'width', 'browser_pool_config.viewport.width'));
    assign(v, 'height', r.int(viewport, 'height', 'browser_pool_config.viewport.height'));
    assign(v, 'refreshRate', r.int(viewport, 'refresh_rate', 'browser_pool_config.viewport.refresh_rate'));
    pool.viewport = v;
  }
  const telemetry = r.obj(cfg, 'telemetry', 'browser_pool_config.telemetry');
  if (telemetry) pool.telemetry = parseTelemetry(telemetry, r);
  return { ok: true, pool };
}

function parseTelemetry(t: Obj, r: Reader): PoolTelemetry {
  const base = 'browser_pool_config.telemetry';
  const browser = r.obj(t, 'browser', `${base}.browser`);
  const out: PoolTelemetry = {
    categories: {},
    hasBrowserSection: browser !== undefined,
    excludedCdpMethods: [],
    otlpExport: {},
  };
  if (browser) {
    for (const c of TELEMETRY_CATEGORIES) {
      const section = r.obj(browser, c, `${base}.browser.${c}`);
      const enabled = section ? r.bool(section, 'enabled', `${base}.browser.${c}.enabled`) : undefined;
      if (enabled !== undefined) out.categories[c] = enabled;
    }
    const control = r.obj(browser, 'control', `${base}.browser.control`);
    const cdp = control ? r.obj(control, 'cdp', `${base}.browser.control.cdp`) : undefined;
    if (cdp)
      out.excludedCdpMethods = r.strings(cdp, 'excluded_methods', `${base}.browser.control.cdp.excluded_methods`);
  }
  const exp = r.obj(t, 'export', `${base}.export`);
  const otlp = exp ? r.obj(exp, 'otlp', `${base}.export.otlp`) : undefined;
  if (otlp) {
    assign(out.otlpExport, 'enabled', r.bool(otlp, 'enabled', `${base}.export.otlp.enabled`));
    // A destination may be a URL with credentials; masked once here, for logs, findings and /v1/sessions.
    const destination = r.str(otlp, 'destination', `${base}.export.otlp.destination`);
    assign(out.otlpExport, 'destination', destination === undefined ? undefined : maskUrlText(destination));
  }
  return out;
}

/** Sets an optional member only when there is a value (keeps objects free of `undefined` members). */
function assign<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}

/** Categories the pool explicitly enables. */
export function enabledCategories(t: PoolTelemetry): TelemetryCategory[] {
  return TELEMETRY_CATEGORIES.filter((c) => t.categories[c] === true);
}

/** Something about a pool's telemetry configuration worth telling the operator. */
export interface PoolFinding {
  /** Stable per condition (and per excluded-method list), so a condition is reported once. */
  key: string;
  level: 'warn' | 'info';
  message: string;
}

/**
 * The conditions the pool resolver reports (docs/service-api.md "Capture rules"): every category off (an empty stream), the pool
 * exporting OTLP itself (double delivery), excluded cdp_command methods. An unstated flag means the
 * real service's default for that category (DEFAULT_ON_CATEGORIES): "every category off" needs the
 * operational ones stated false and no opt-in one stated true.
 */
export function poolFindings(pool: BrowserPool): PoolFinding[] {
  const t = pool.telemetry;
  if (!t) {
    return [
      {
        key: 'telemetry-unknown',
        level: 'info',
        message: 'the pool shows no telemetry configuration; cannot tell whether its sessions capture telemetry',
      },
    ];
  }
  const out: PoolFinding[] = [];
  if (
    t.hasBrowserSection &&
    TELEMETRY_CATEGORIES.every((c) => !(t.categories[c] ?? DEFAULT_ON_CATEGORIES.includes(c)))
  ) {
    out.push({
      key: 'telemetry-off',
      level: 'warn',
      message: 'every telemetry category is off in the pool configuration: the streams of its sessions will stay empty',
    });
  }
  if (t.otlpExport.enabled === true) {
    const dest = t.otlpExport.destination ? ` (destination ${t.otlpExport.destination})` : '';
    out.push({
      key: 'otlp-export',
      level: 'warn',
      message: `the pool exports telemetry over OTLP itself${dest}: with the bridge following its sessions too, every event is delivered twice`,
    });
  }
  if (t.excludedCdpMethods.length > 0) {
    const list = t.excludedCdpMethods.join(', ');
    out.push({
      key: `cdp-excluded:${list}`,
      level: 'info',
      message: `the pool excludes these methods from cdp_command events: ${list}`,
    });
  }
  return out;
}

/** The attributes pool enrichment adds to every record of a session (docs/design.md "The log-record contract"). */
export function poolAttributes(pool: BrowserPool): Record<string, string> {
  const attrs: Record<string, string> = { 'browser.pool.id': pool.id };
  if (pool.name !== undefined) attrs['browser.pool.name'] = pool.name;
  if (pool.region !== undefined) attrs['cloud.region'] = pool.region;
  return attrs;
}
