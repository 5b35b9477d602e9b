// The BRIDGE_* environment variables the bridge reads. Another variable of that prefix is almost
// always a misspelling (BRIDGE_SESSION, BRIDGE_DISCOVERY, BRIDGE_STATEDIR) that leaves its setting
// at the default without a word: a first run then follows nothing, or writes its state somewhere
// else. `run`, `check` and `validate` name such a variable with the closest known one. Only this
// prefix is checked: BROWSER_* and OTEL_* variables are shared with the service's SDKs and other
// OpenTelemetry tools, which read names the bridge does not. Pure.
import { closest } from '../util/closest-name.js';
import { printable } from '../util/printable.js';

/** Every BRIDGE_* variable the bridge reads (test/unit/config/env-names.test.ts keeps it whole). */
export const bridgeVariables: readonly string[] = [
  'BRIDGE_CONFIG',
  'BRIDGE_CONTROL_ALLOWED_HOSTS',
  'BRIDGE_CONTROL_INSECURE',
  'BRIDGE_CONTROL_TOKEN',
  'BRIDGE_DISCOVER',
  'BRIDGE_DISCOVER_INTERVAL',
  'BRIDGE_DISCOVER_QUERY',
  'BRIDGE_DISCOVER_REGION',
  'BRIDGE_DISCOVER_TAGS',
  'BRIDGE_LISTEN',
  'BRIDGE_MAX_SESSIONS',
  'BRIDGE_MEMORY_LIMIT',
  'BRIDGE_READ_PACING',
  'BRIDGE_REPLICA_ID',
  'BRIDGE_SESSIONS',
  'BRIDGE_SPOOL_MODE',
  'BRIDGE_START',
  'BRIDGE_STATE_DIR',
  'BRIDGE_STORE_LEASE',
  'BRIDGE_STORE_PASSWORD_FILE',
  'BRIDGE_STORE_URL',
  'BRIDGE_TRACES',
  'BRIDGE_WORKERS',
];

const KNOWN = new Set(bridgeVariables);
const LOWER = bridgeVariables.map((n) => n.toLowerCase());

/** One warning per BRIDGE_* variable set in `env` that the bridge does not read, in name order. */
export function unknownVariableWarnings(env: Readonly<Record<string, string | undefined>>): string[] {
  const out: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('BRIDGE_') || KNOWN.has(name) || env[name] === undefined) continue;
    const near = closest(name, LOWER);
    const hint = near !== undefined ? `; did you mean ${near.toUpperCase()}?` : '';
    out.push(`${printable(name)} is set, but the bridge reads no such variable${hint}`);
  }
  return out;
}
