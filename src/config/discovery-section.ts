// The `discovery:` section and its environment overrides (BRIDGE_DISCOVER, BRIDGE_DISCOVER_TAGS,
// BRIDGE_DISCOVER_QUERY, BRIDGE_DISCOVER_REGION, BRIDGE_DISCOVER_INTERVAL): which of the service's sessions the bridge
// follows without naming them (discovery/discovery-loop.ts). The environment wins over the file,
// key by key, as everywhere else.
import { ConfigError, ConfigProblems } from './errors.js';
import { CONFIG_FILE, keysOf } from './config-keys.js';
import {
  envFlag,
  fileFlag,
  onlyKeys,
  optDurationMs,
  optEnum,
  optString,
  optStringMap,
  parseKeyValueList,
  section,
  type Raw,
} from './readers.js';
import type { Env } from './env-substitution.js';
import type { DiscoveryConfig } from './schema.js';

export const DISCOVERY_DEFAULTS: DiscoveryConfig = { enabled: false, tags: {}, intervalMs: 10_000, start: 'oldest' };

const MIN_INTERVAL_MS = 100;
/** The service's list is not a stream: a tighter loop only spends its rate limit. */
const MAX_INTERVAL_MS = 24 * 3600_000;

/** Each value is read on its own, so that one's problem does not hide another's (all are reported at once). */
export function parseDiscovery(raw: Raw, env: Env): DiscoveryConfig {
  const p = new ConfigProblems();
  const d = section(raw, 'discovery', 'discovery');
  p.take(() => onlyKeys(d, keysOf(CONFIG_FILE.keys.discovery), 'discovery'), undefined);
  const enabled = p.take(
    () => envFlag(env.BRIDGE_DISCOVER, 'BRIDGE_DISCOVER') ?? fileFlag(d.enabled, 'discovery.enabled'),
    undefined,
  );
  const tags = p.take(
    () =>
      env.BRIDGE_DISCOVER_TAGS !== undefined && env.BRIDGE_DISCOVER_TAGS !== ''
        ? tagsOf(parseKeyValueList(env.BRIDGE_DISCOVER_TAGS, 'BRIDGE_DISCOVER_TAGS'), 'BRIDGE_DISCOVER_TAGS')
        : tagsOf(optStringMap(d.tags, 'discovery.tags'), 'discovery.tags'),
    {},
  );
  const query = p.take(
    () => optString(env.BRIDGE_DISCOVER_QUERY, 'BRIDGE_DISCOVER_QUERY') ?? optString(d.query, 'discovery.query'),
    undefined,
  );
  const regionKey = env.BRIDGE_DISCOVER_REGION ? 'BRIDGE_DISCOVER_REGION' : 'discovery.region';
  const region = p.take(
    () =>
      regionOf(
        optString(env.BRIDGE_DISCOVER_REGION, 'BRIDGE_DISCOVER_REGION') ?? optString(d.region, 'discovery.region'),
        regionKey,
      ),
    undefined,
  );
  const intervalKey = env.BRIDGE_DISCOVER_INTERVAL ? 'BRIDGE_DISCOVER_INTERVAL' : 'discovery.interval';
  const intervalMs = p.take(() => {
    const ms =
      optDurationMs(env.BRIDGE_DISCOVER_INTERVAL || d.interval, intervalKey, MIN_INTERVAL_MS) ??
      DISCOVERY_DEFAULTS.intervalMs;
    if (ms > MAX_INTERVAL_MS) throw new ConfigError(intervalKey, 'must be at most 24h');
    return ms;
  }, DISCOVERY_DEFAULTS.intervalMs);
  const start = p.take(
    () => optEnum(d.start, ['oldest', 'latest'] as const, 'discovery.start') ?? DISCOVERY_DEFAULTS.start,
    DISCOVERY_DEFAULTS.start,
  );
  const project = p.take(() => optString(d.project, 'discovery.project'), undefined);
  p.throwIfAny();
  if (enabled === undefined && (Object.keys(tags).length > 0 || query !== undefined || region !== undefined)) {
    // A selector nobody switched on is a half-made decision: say so rather than follow nothing.
    const key =
      env.BRIDGE_DISCOVER_TAGS || env.BRIDGE_DISCOVER_QUERY || env.BRIDGE_DISCOVER_REGION
        ? 'BRIDGE_DISCOVER'
        : 'discovery.enabled';
    throw new ConfigError(
      key,
      'a discovery selector (tags, query or region) is set but discovery is not enabled: set discovery.enabled: true or BRIDGE_DISCOVER=true',
    );
  }
  return {
    enabled: enabled ?? false,
    tags,
    intervalMs,
    start,
    ...(query !== undefined ? { query } : {}),
    ...(region !== undefined ? { region } : {}),
    ...(project !== undefined ? { project } : {}),
  };
}

/**
 * The service knows us-east and eu-west today; a region it adds later is its to refuse (400), so any
 * name of the same shape is sent. Empty means every region, as when the key is absent.
 */
function regionOf(v: string | undefined, key: string): string | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const r = v.trim();
  if (!/^[a-z][a-z0-9-]{0,63}$/.test(r))
    throw new ConfigError(key, `must be a region name such as us-east or eu-west (got "${v}")`);
  return r;
}

function tagsOf(tags: Record<string, string>, key: string): Record<string, string> {
  for (const k of Object.keys(tags)) {
    if (k === '' || /[[\]=,]/.test(k))
      throw new ConfigError(key, `tag name ${JSON.stringify(k)} cannot be sent as tags[name]=value`);
  }
  return tags;
}
