// Exporter settings that are valid but most likely a mistake: the OTLP ports are conventions
// (4317 gRPC, 4318 HTTP, OpenTelemetry specification), so a protocol aimed at the other one's port
// fails at the first export with a message far from the cause; so does a full logs URL given as
// the generic endpoint, which gets /v1/logs appended again. Pure; part of configWarnings.
import { GRPC_MESSAGE_LIMIT } from './exporter-section.js';
import type { ExporterConfig } from './schema.js';
import { maskUrlText } from '../util/mask-url-text.js';

const DOUBLED_LOGS_PATH = '/v1/logs/v1/logs';

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
  // Only the generic endpoint has /v1/logs appended (otlp-endpoint.ts): a full URL written there
  // doubles the path, and the collector answers every export 404.
  if (ex.protocol !== 'grpc' && new URL(ex.url).pathname.endsWith(DOUBLED_LOGS_PATH)) {
    out.push(
      `the collector endpoint is ${maskUrlText(ex.url)}: OTEL_EXPORTER_OTLP_ENDPOINT is a base URL that /v1/logs is appended to; drop /v1/logs from it, or set the full URL as OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`,
    );
  }
  if (ex.protocol === 'grpc' && ex.batchMaxBytes > GRPC_MESSAGE_LIMIT) {
    out.push(
      `exporter.batch_max_bytes is above 4 MiB: an OpenTelemetry Collector refuses larger gRPC messages by default (max_recv_msg_size_mib), with RESOURCE_EXHAUSTED, and the batch would be retried without end; raise the collector's limit too`,
    );
  }
  return out;
}
