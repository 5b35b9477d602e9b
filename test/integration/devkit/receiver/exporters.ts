// Helpers for driving the real OTLP log exporters (both protocols) against the receiver.
import type { ExportResult } from '@opentelemetry/core';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';

export type Protocol = 'http/protobuf' | 'http/json';
export const PROTOCOLS: Protocol[] = ['http/protobuf', 'http/json'];

export interface ExporterOptions {
  url?: string;
  headers?: Record<string, string>;
  compression?: 'gzip' | 'none';
  timeoutMillis?: number;
}

/** The exporter the bridge uses for `protocol`; ExporterOptions is a subset of both configs. */
export function createExporter(protocol: Protocol, options: ExporterOptions): LogRecordExporter {
  // The packages type `compression` as their own CompressionAlgorithm enum, whose values are these strings.
  const config = options as ConstructorParameters<typeof ProtoLogExporter>[0];
  return protocol === 'http/protobuf' ? new ProtoLogExporter(config) : new JsonLogExporter(config);
}

/** One export call, as a promise of its result. */
export function exportRecords(exporter: LogRecordExporter, records: ReadableLogRecord[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(records, resolve));
}

/** One resource and scope object per test run, reused like the bridge does (the exporter groups by identity). */
export const resource = resourceFromAttributes({ 'service.name': 'bridge-test', 'service.instance.id': 'instance-1' });
export const scope = { name: 'browser-telemetry-bridge', version: '0.1.0' };

/** Event time 2024-11-20T10:53:20.123456Z in Unix microseconds, as the service's `ts`. */
export const TS_MICROS = 1732100000123456;

/** hrTime of a Unix-microseconds timestamp, split so that no step exceeds 2^53. */
export function hrTimeOfMicros(micros: number): [number, number] {
  return [Math.floor(micros / 1e6), (micros % 1e6) * 1000];
}

/** A ReadableLogRecord-shaped object as the bridge hands it to the exporter. */
export function logRecord(fields: Partial<ReadableLogRecord> = {}): ReadableLogRecord {
  return {
    hrTime: hrTimeOfMicros(TS_MICROS),
    hrTimeObserved: hrTimeOfMicros(TS_MICROS + 5_000),
    severityNumber: 9,
    severityText: 'INFO',
    body: 'hello',
    attributes: {},
    eventName: 'browser.test',
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    ...fields,
  };
}
