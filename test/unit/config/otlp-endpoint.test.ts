import { describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/config/load-config.js';
import { ConfigError } from '../../../src/config/errors.js';

const base = { BROWSER_API_URL: 'http://svc.test', BROWSER_API_KEY: 'k' };
const grpc = { ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' };

function exporter(env: Record<string, string>, raw: Record<string, unknown> = {}) {
  return buildConfig(raw, env).exporter;
}

function problem(env: Record<string, string>, raw: Record<string, unknown> = {}): string {
  try {
    buildConfig(raw, env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('OTLP/gRPC endpoint', () => {
  it('defaults to plaintext localhost:4317, with a batch under the Collector gRPC message limit', () => {
    const ex = exporter(grpc);
    expect(ex).toMatchObject({ protocol: 'grpc', url: 'http://localhost:4317' });
    expect(ex.batchMaxBytes).toBeLessThan(4 * 1024 * 1024);
  });

  it('is used as is, without /v1/logs, whichever variable names it', () => {
    expect(exporter({ ...grpc, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317/' }).url).toBe(
      'http://collector:4317',
    );
    expect(
      exporter({
        ...grpc,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4317',
        OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'https://b:4443',
      }).url,
    ).toBe('https://b:4443');
    expect(exporter(base, { exporter: { protocol: 'grpc', endpoint: 'https://collector.example' } }).url).toBe(
      'https://collector.example',
    );
  });

  it.each<[string, Record<string, string>, string]>([
    [
      'http:// is plaintext whatever insecure says',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_INSECURE: 'false' },
      'http://c:4317',
    ],
    [
      'https:// is TLS whatever insecure says',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c:4317', OTEL_EXPORTER_OTLP_INSECURE: 'true' },
      'https://c:4317',
    ],
    ['no scheme is TLS by default', { OTEL_EXPORTER_OTLP_ENDPOINT: 'c:4317' }, 'https://c:4317'],
    [
      'no scheme and insecure is plaintext',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'c:4317', OTEL_EXPORTER_OTLP_INSECURE: 'true' },
      'http://c:4317',
    ],
    [
      'the logs variable wins',
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: '127.0.0.1:4317',
        OTEL_EXPORTER_OTLP_INSECURE: 'false',
        OTEL_EXPORTER_OTLP_LOGS_INSECURE: 'TRUE',
      },
      'http://127.0.0.1:4317',
    ],
  ])('insecure applies only without a scheme: %s', (_name, env, url) => {
    expect(exporter({ ...grpc, ...env }).url).toBe(url);
  });

  it('exporter.insecure in the file counts for a scheme-less endpoint', () => {
    expect(exporter(base, { exporter: { protocol: 'grpc', endpoint: 'collector:4317', insecure: true } }).url).toBe(
      'http://collector:4317',
    );
  });

  it('refuses what an OTLP/HTTP endpoint would have, and says what to write', () => {
    expect(problem({ ...grpc, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317/v1/logs' })).toMatch(
      /^OTEL_EXPORTER_OTLP_ENDPOINT: a gRPC endpoint is host and port only, without a path: drop "\/v1\/logs"/,
    );
    expect(problem({ ...grpc, OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' })).toMatch(
      /names no port: write collector:4317/,
    );
    expect(problem({ ...grpc, OTEL_EXPORTER_OTLP_ENDPOINT: 'unix:///run/otel.sock' })).toMatch(
      /must be http:\/\/host:port/,
    );
    expect(problem({ ...grpc, OTEL_EXPORTER_OTLP_INSECURE: 'yes' })).toBe(
      'OTEL_EXPORTER_OTLP_INSECURE: must be true or false (got "yes")',
    );
  });

  it('headers become metadata, so their names must be metadata keys', () => {
    expect(exporter({ ...grpc, OTEL_EXPORTER_OTLP_HEADERS: 'X-Tenant=acme' }).headers).toEqual({ 'X-Tenant': 'acme' });
    expect(problem({ ...grpc, OTEL_EXPORTER_OTLP_HEADERS: 'x-trace-bin=AAEC' })).toMatch(
      /^OTEL_EXPORTER_OTLP_HEADERS: "x-trace-bin" cannot be sent as gRPC metadata/,
    );
  });
});

describe('OTLP/HTTP endpoint', () => {
  it.each(['127.0.0.1:4318', 'localhost:4318'])(
    '%s without a scheme gets a suggestion, not "not a valid URL"',
    (text) => {
      expect(problem({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: text })).toBe(
        `OTEL_EXPORTER_OTLP_ENDPOINT: needs a scheme: http://${text} (or https:// for TLS) (got "${text}")`,
      );
    },
  );

  it('keeps the specification rules: the generic endpoint gets /v1/logs, the logs one does not', () => {
    expect(exporter({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c:4318/' }).url).toBe('https://c:4318/v1/logs');
    expect(exporter({ ...base, OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'https://c/custom' }).url).toBe('https://c/custom');
    expect(exporter(base).batchMaxBytes).toBe(8 * 1024 * 1024);
  });
});

describe('an endpoint as an .env line or a YAML value writes it', () => {
  // A leading blank read as a missing scheme ("needs a scheme: http:// http://c:4318"), and a query
  // or fragment on a base swallowed the appended /v1/logs: every export posted to `/`.
  it.each<[Record<string, string>, Record<string, unknown>, string]>([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: ' http://c:4318 ' }, {}, 'http://c:4318/v1/logs'],
    [{ OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: '\thttp://c:4318/v1/logs\n' }, {}, 'http://c:4318/v1/logs'],
    [{}, { exporter: { endpoint: ' https://c:4318/v1/logs ' } }, 'https://c:4318/v1/logs'],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: ' http://c:4317 ' }, {}, 'http://c:4317'],
    [{ OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://c:4318/v1/logs?tenant=a' }, {}, 'http://c:4318/v1/logs?tenant=a'],
  ])('%j %j → %s', (env, raw, url) => {
    expect(exporter({ ...base, ...env }, raw).url).toBe(url);
  });

  it.each<[Record<string, string>, Record<string, unknown>, string]>([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318?tenant=a' }, {}, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{}, { exporter: { endpoint: 'http://c:4318/#x' } }, 'exporter.endpoint'],
  ])('a query or fragment on a base: %j %j', (env, raw, key) => {
    expect(problem({ ...base, ...env }, raw)).toBe(
      `${key}: must not have a query (?…) or fragment (#…): /v1/logs is appended to it`,
    );
  });
});
