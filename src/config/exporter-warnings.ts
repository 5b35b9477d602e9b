// Exporter settings that are valid but most likely a mistake: the OTLP ports are conventions
// (4317 gRPC, 4318 HTTP, OpenTelemetry specification), so a protocol aimed at the other one's port
// fails at the first export with a message far from the cause. Pure; part of configWarnings.
import { GRPC_MESSAGE_LIMIT } from './exporter-section.js';
import type { ExporterConfig } from './schema.js';

export function exporterWarnings(ex: ExporterConfig): string[] {
  const out: string[] = [];
  const port = new URL(ex.url).port;
  if (ex.protocol !== 'grpc' && port === '4317') {
    out.push(
      `the collector endpoint uses port 4317, the OTLP/gRPC port, with protocol ${ex.protocol}: OTLP/HTTP is usually on 4318 (or set OTEL_EXPORTER_OTLP_PROTOCOL=grpc)`,
    );
  }
  if (ex.protocol === 'grpc' && port === '4318') {
    out.push(
      'the collector endpoint uses port 4318, the OTLP/HTTP port, with protocol grpc: OTLP/gRPC is usually on 4317 (or set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf)',
    );
  }
  if (ex.protocol === 'grpc' && ex.batchMaxBytes > GRPC_MESSAGE_LIMIT) {
    out.push(
      `exporter.batch_max_bytes is above 4 MiB: an OpenTelemetry Collector refuses larger gRPC messages by default (max_recv_msg_size_mib), with RESOURCE_EXHAUSTED, and the batch would be retried without end; raise the collector's limit too`,
    );
  }
  return out;
}
