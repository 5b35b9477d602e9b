// Browser pool resources (docs/service-api.md "Browser pool"), as
// served by GET /browser_pools/{id_or_name}, and the capture rules a pool's telemetry config implies
// for event generation (docs/service-api.md "Capture rules").
import { randomBytes } from 'node:crypto';

import { TELEMETRY_CATEGORIES, type TelemetryCategory } from '../../vocabulary/event-types.js';

export { TELEMETRY_CATEGORIES, type TelemetryCategory };

export interface SimTelemetryConfig {
  browser?: { [C in TelemetryCategory]?: { enabled: boolean } } & {
    control?: { enabled: boolean; cdp?: { excluded_methods?: string[] } };
  };
  export?: { otlp?: { destination?: string; enabled?: boolean } };
}

export interface SimPoolConfig {
  size?: number;
  chrome_policy?: Record<string, unknown>;
  extensions?: Array<{ id: string; name: string }>;
  fill_rate_per_minute?: number;
  headless?: boolean;
  kiosk_mode?: boolean;
  name?: string;
  network?: { private_hosts: string[] };
  profile?: { id: string; name: string };
  proxy_id?: string;
  refresh_on_profile_update?: boolean;
  start_url?: string;
  stealth?: boolean;
  telemetry?: SimTelemetryConfig;
  timeout_seconds?: number;
  viewport?: { height: number; width: number; refresh_rate: number };
}

/** The Browser pool resource (docs/service-api.md "Browser pool"). */
export interface SimPool {
  id: string;
  name?: string;
  region: 'us-east' | 'eu-west';
  created_at: string;
  acquired_count: number;
  available_count: number;
  extension_ids: string[];
  profile_id?: string;
  browser_pool_config: SimPoolConfig;
}

/** A telemetry config with every category enabled except those set to false here. */
export function telemetryConfig(
  enabled: Partial<Record<TelemetryCategory, boolean>> = {},
  excludedMethods: string[] = [],
): SimTelemetryConfig {
  const browser: NonNullable<SimTelemetryConfig['browser']> = {};
  for (const c of TELEMETRY_CATEGORIES) browser[c] = { enabled: enabled[c] ?? true };
  browser.control = { enabled: enabled.control ?? true, cdp: { excluded_methods: excludedMethods } };
  return { browser, export: { otlp: { destination: 'otlp-default', enabled: false } } };
}

/** A complete pool resource; anything given overrides the defaults. */
export function makePool(overrides: Partial<SimPool> = {}): SimPool {
  const id = overrides.id ?? `pool_${randomBytes(6).toString('hex')}`;
  const name = overrides.name ?? id;
  return {
    id,
    name,
    region: 'us-east',
    created_at: new Date().toISOString(),
    acquired_count: 1,
    available_count: 4,
    extension_ids: [],
    ...overrides,
    browser_pool_config: {
      size: 5,
      fill_rate_per_minute: 10,
      headless: false,
      kiosk_mode: false,
      name,
      stealth: true,
      timeout_seconds: 600,
      viewport: { width: 1280, height: 800, refresh_rate: 60 },
      telemetry: telemetryConfig(),
      ...overrides.browser_pool_config,
    },
  };
}

/**
 * What the real service captures when nothing says otherwise: the operational categories. The CDP
 * categories (console, network, page, interaction), screenshot and platform are opt-in.
 */
export const DEFAULT_CATEGORIES: readonly TelemetryCategory[] = ['control', 'connection', 'system', 'captcha'];

/** Capture decision derived from a telemetry config; an absent config or flag means the category's default. */
export interface CaptureFilter {
  category(category: string): boolean;
  cdpMethod(method: string): boolean;
}

export const CAPTURE_ALL: CaptureFilter = { category: () => true, cdpMethod: () => true };

/**
 * The capture rules of a session: its pool's telemetry config if any, with `enable` (the categories
 * a test or the control API opts in to, or 'all') layered on top, as a session's own config is.
 */
export function captureFilter(pool: SimPool | undefined, enable: readonly string[] | 'all' = []): CaptureFilter {
  if (enable === 'all') return CAPTURE_ALL;
  const browser = pool?.browser_pool_config.telemetry?.browser;
  const on = (c: TelemetryCategory): boolean =>
    enable.includes(c) || (browser?.[c]?.enabled ?? DEFAULT_CATEGORIES.includes(c));
  // Capture rule 2: monitor is not configurable; it flows whenever console, network, page or
  // interaction is captured, and is silent otherwise.
  const monitor = on('console') || on('network') || on('page') || on('interaction');
  const excluded = new Set(browser?.control?.cdp?.excluded_methods ?? []);
  return {
    category: (c) =>
      c === 'monitor'
        ? monitor
        : (TELEMETRY_CATEGORIES as readonly string[]).includes(c)
          ? on(c as TelemetryCategory)
          : true,
    cdpMethod: (m) => !excluded.has(m),
  };
}

/** Lookup by id, then by name (GET /browser_pools/{id_or_name}). */
export function findPool(pools: Map<string, SimPool>, idOrName: string): SimPool | undefined {
  const byId = pools.get(idOrName);
  if (byId) return byId;
  for (const p of pools.values()) if (p.name === idOrName) return p;
  return undefined;
}
