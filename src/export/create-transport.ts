// The transport the exporter configuration asks for: OTLP/HTTP (protobuf or JSON, node:http) or
// OTLP/gRPC. The gRPC client library is loaded only when gRPC is configured: it costs about 13 MiB
// of memory that an HTTP deployment (a sidecar within 64 MiB) has no use for.
import type { ExporterConfig, OtlpSignal } from '../config/schema.js';
import { BRIDGE_VERSION } from '../util/version.js';
import type { Emit } from '../vocabulary/facts.js';
import { createOtlpTransport, type OtlpTransport } from './otlp-transport.js';

export const USER_AGENT = `browser-telemetry-bridge/${BRIDGE_VERSION}`;

export interface CreateTransportOptions {
  userAgent?: string;
  /** Where the transport reports what only it sees (an answer that is not OTLP). */
  emit?: Emit;
  /** Which OTLP signal the transport carries: log records (the default) or spans. */
  signal?: OtlpSignal;
}

export async function createTransport(ex: ExporterConfig, o: CreateTransportOptions = {}): Promise<OtlpTransport> {
  const userAgent = o.userAgent ?? USER_AGENT;
  const signal = o.signal ?? 'logs';
  if (ex.protocol === 'grpc') {
    const { createGrpcTransport, TRACES_EXPORT_METHOD } = await import('./grpc-transport.js');
    return createGrpcTransport({
      ...(signal === 'traces' ? { method: TRACES_EXPORT_METHOD } : {}),
      url: ex.url,
      headers: ex.headers,
      compression: ex.compression,
      timeoutMs: ex.timeoutMs,
      tls: ex.tls,
      userAgent,
      reconnect: ex.backoff,
    });
  }
  return createOtlpTransport({
    url: ex.url,
    headers: ex.headers,
    compression: ex.compression,
    timeoutMs: ex.timeoutMs,
    tls: ex.tls,
    connections: ex.concurrency,
    userAgent,
    ...(o.emit ? { emit: o.emit } : {}),
  });
}
