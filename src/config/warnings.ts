// Problems in a valid configuration that deserve a word but not a refusal: event types this bridge
// does not know (maybe newer than it, maybe a typo), a collector port that belongs to the other OTLP
// protocol, a duration too short to be meant (a bare number is milliseconds), an id BRIDGE_SESSIONS
// names twice or that the file lists with options of its own, a BRIDGE_* variable the bridge does not read (env-names.ts). `run` logs them at start, `check` and `validate` print them. Pure.
import type { BridgeConfig } from './schema.js';
import { typeWarnings } from './event-names.js';
import { exporterWarnings } from './exporter-warnings.js';
import { unknownVariableWarnings } from './env-names.js';
import { durationWarnings } from './duration-warnings.js';
import { sessionListWarnings, sessionOverlapWarnings } from './sessions.js';

export function configWarnings(config: BridgeConfig, env: Readonly<Record<string, string | undefined>> = {}): string[] {
  const f = config.mapping.filters;
  return [
    ...unknownVariableWarnings(env),
    ...typeWarnings(f.includeTypes ?? [], 'mapping.filters.include_types'),
    ...typeWarnings(f.excludeTypes ?? [], 'mapping.filters.exclude_types'),
    ...exporterWarnings(config.exporter),
    ...durationWarnings(config),
    ...sessionListWarnings(env.BRIDGE_SESSIONS),
    ...sessionOverlapWarnings(config.sessions, env.BRIDGE_SESSIONS),
    ...(config.upstream.apiKey && config.upstream.apiKeyFile
      ? [
          `an API key and an API key file are both set: the key (BROWSER_API_KEY or upstream.api_key) is used and ${config.upstream.apiKeyFile} is not read; unset one`,
        ]
      : []),
  ];
}

/**
 * What `validate` adds: a configuration that names no session and discovers none is valid (a
 * sidecar is told its sessions with PUT /v1/sessions/{id}), but it follows nothing by itself.
 */
export function followWarnings(config: BridgeConfig): string[] {
  return config.sessions.length === 0 && !config.discovery.enabled
    ? [
        'no session is named (BRIDGE_SESSIONS or sessions) and discovery is off (BRIDGE_DISCOVER): the bridge follows only the sessions PUT /v1/sessions/{id} adds',
      ]
    : [];
}
