import { describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/config/load-config.js';
import { configWarnings } from '../../../src/config/warnings.js';

const base = { BROWSER_API_URL: 'http://svc.test', BROWSER_API_KEY: 'k' };
const warnings = (env: Record<string, string>, raw: Record<string, unknown> = {}): string[] =>
  configWarnings(buildConfig(raw, { ...base, ...env }));

describe('exporter warnings', () => {
  it('port 4317 with an HTTP protocol is named, with both ways out', () => {
    expect(warnings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317' })).toEqual([
      'the collector endpoint uses port 4317, the OTLP/gRPC port, with protocol http/protobuf: OTLP/HTTP is usually on 4318 (or set OTEL_EXPORTER_OTLP_PROTOCOL=grpc)',
    ]);
  });

  it('port 4318 with gRPC is named', () => {
    expect(
      warnings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })[0],
    ).toMatch(/^the collector endpoint uses port 4318, the OTLP\/HTTP port, with protocol grpc/);
  });

  it('a gRPC batch above the Collector message limit is named', () => {
    expect(warnings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, { exporter: { batch_max_bytes: '8MiB' } })[0]).toMatch(
      /^exporter.batch_max_bytes is above 4 MiB/,
    );
  });

  // The specification appends /v1/logs to the generic endpoint, so a full URL there posts to
  // /v1/logs/v1/logs and every export answers 404: valid, and almost certainly not what was meant.
  it.each([
    ['http://collector:4318/v1/logs', 'http://collector:4318/v1/logs/v1/logs'],
    ['http://collector:4318/otlp/v1/logs/', 'http://collector:4318/otlp/v1/logs/v1/logs'],
  ])('a generic endpoint that already ends in /v1/logs is named: %s', (endpoint, url) => {
    expect(warnings({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toEqual([
      `the collector endpoint is ${url}: OTEL_EXPORTER_OTLP_ENDPOINT is a base URL that /v1/logs is appended to; drop /v1/logs from it, or set the full URL as OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`,
    ]);
  });

  it('a full URL where it is used as is says nothing', () => {
    expect(warnings({ OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://collector:4318/v1/logs' })).toEqual([]);
    expect(warnings({}, { exporter: { endpoint: 'http://collector:4318/v1/logs' } })).toEqual([]);
    expect(warnings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/otlp' })).toEqual([]);
  });

  it('the matching ports and the defaults say nothing', () => {
    expect(warnings({})).toEqual([]);
    expect(warnings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual([]);
    expect(warnings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector:4318' })).toEqual([]);
  });
});
