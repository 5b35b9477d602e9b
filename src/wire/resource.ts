// The OTLP resource and instrumentation scope of every record, built once per process and encoded
// once (otlp-request.ts): `service.name`, `service.version`, `service.instance.id`, plus
// OTEL_RESOURCE_ATTRIBUTES. The instance id comes from the global Web Crypto: node:crypto itself costs
// about 3 MiB of RSS on Node 24, which a sidecar without TLS or traces need not load.
import { BRIDGE_VERSION } from '../util/version.js';

export interface ResourceOptions {
  serviceName: string;
  attributes: Record<string, string>;
  instanceId?: string;
}

export function resourceAttributes(opts: ResourceOptions): Record<string, string> {
  return {
    ...opts.attributes,
    'service.name': opts.serviceName,
    'service.version': opts.attributes['service.version'] ?? BRIDGE_VERSION,
    'service.instance.id': opts.attributes['service.instance.id'] ?? opts.instanceId ?? globalThis.crypto.randomUUID(),
  };
}

export const SCOPE = Object.freeze({ name: 'browser-telemetry-bridge', version: BRIDGE_VERSION });
