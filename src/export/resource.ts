// The OTLP resource and instrumentation scope, built once per process and shared by every record:
// the exporter groups records by object identity, so one object means one ResourceLogs per request.
import { randomUUID } from 'node:crypto';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { BRIDGE_VERSION } from '../util/version.js';

export interface ResourceOptions {
  serviceName: string;
  attributes: Record<string, string>;
  instanceId?: string;
}

export function buildResource(opts: ResourceOptions): Resource {
  return resourceFromAttributes({
    ...opts.attributes,
    'service.name': opts.serviceName,
    'service.version': opts.attributes['service.version'] ?? BRIDGE_VERSION,
    'service.instance.id': opts.attributes['service.instance.id'] ?? opts.instanceId ?? randomUUID(),
  });
}

export const SCOPE = Object.freeze({ name: 'browser-telemetry-bridge', version: BRIDGE_VERSION });
