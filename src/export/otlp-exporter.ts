// The concrete OTLP/HTTP exporter: protobuf (default) or JSON, from the resolved configuration.
// Its own retry (a few attempts within `timeoutMillis`) handles blips; the delivery loop owns
// retrying across calls, forever (DESIGN.md "Delivery semantics" 1).
import { OTLPLogExporter as ProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPLogExporter as JsonExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ExporterConfig } from '../config/schema.js';

export interface LogExporter {
  export(records: ReadableLogRecord[], cb: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
}

export function createOtlpExporter(cfg: ExporterConfig): LogExporter {
  const options = {
    url: cfg.url,
    headers: { ...cfg.headers },
    compression: cfg.compression === 'gzip' ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE,
    timeoutMillis: cfg.timeoutMs,
    // Above our own concurrency so the exporter never refuses a call with "Concurrent export limit reached".
    concurrencyLimit: cfg.concurrency + 2,
  };
  return cfg.protocol === 'http/json' ? new JsonExporter(options) : new ProtoExporter(options);
}
