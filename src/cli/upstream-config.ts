// Configuration for the commands that only talk to the session service (`tail`, `pool`): the same
// file and the same messages as `run` (loadConfig), but only the service's environment variables
// are read, so an exporter or listener variable meant for the daemon cannot stop a person from
// looking at a session.
import { loadConfig, type Env } from '../config/load-config.js';
import type { BridgeConfig } from '../config/schema.js';
import { createApiKeyProvider } from '../upstream/api-key.js';
import { UpstreamClient } from '../upstream/client.js';
import { BRIDGE_VERSION } from '../util/version.js';

const UPSTREAM_ENV = [
  'BRIDGE_CONFIG',
  'BROWSER_API_URL',
  'BROWSER_API_KEY',
  'BROWSER_API_KEY_FILE',
  'BROWSER_API_CA_FILE',
] as const;

/** Throws ConfigError (main prints it and exits 2). */
export function loadUpstreamConfig(path: string | undefined, env: Env = process.env): BridgeConfig {
  const picked: Env = {};
  for (const k of UPSTREAM_ENV) if (env[k] !== undefined) picked[k] = env[k];
  return loadConfig(path, picked);
}

export function createUpstreamClient(config: BridgeConfig, command: string): UpstreamClient {
  return new UpstreamClient({
    baseUrl: config.upstream.url,
    apiKey: createApiKeyProvider(config.upstream),
    connectTimeoutMs: config.upstream.connectTimeoutMs,
    tls: config.upstream.tls,
    userAgent: `browser-telemetry-bridge/${BRIDGE_VERSION} (${command})`,
  });
}
