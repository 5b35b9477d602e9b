// traces.enabled / BRIDGE_TRACES and the traces exporter: the logs exporter's settings, with the
// OTEL_EXPORTER_OTLP_TRACES_* variables and /v1/traces on the same base endpoint.
import { describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/config/load-config.js';
import { ConfigError } from '../../../src/config/errors.js';
import { makeTestCerts } from '../../helpers/test-certs.js';

const base = { BROWSER_API_URL: 'http://svc.test', BROWSER_API_KEY: 'k' };
const on = { ...base, BRIDGE_TRACES: 'true' };
const traces = (env: Record<string, string>, raw: Record<string, unknown> = {}) => buildConfig(raw, env).traces;

describe('traces configuration', () => {
  it('is off by default', () => {
    expect(traces(base).enabled).toBe(false);
  });

  it('turns on by BRIDGE_TRACES or traces.enabled, the variable winning', () => {
    expect(traces(on).enabled).toBe(true);
    expect(traces(base, { traces: { enabled: true } }).enabled).toBe(true);
    expect(traces({ ...base, BRIDGE_TRACES: 'false' }, { traces: { enabled: true } }).enabled).toBe(false);
  });

  const cases: Array<[string, Record<string, string>, Record<string, unknown>, string]> = [
    ['the default base', on, {}, 'http://localhost:4318/v1/traces'],
    [
      'the generic base gets /v1/traces',
      { ...on, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' },
      {},
      'http://c:4318/v1/traces',
    ],
    [
      'the traces variable is used as is, and the logs one does not apply',
      { ...on, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9/x', OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://l:9/y' },
      {},
      'http://t:9/x',
    ],
    [
      'a file endpoint naming /v1/logs sends spans beside it',
      on,
      { exporter: { endpoint: 'https://c/otlp/v1/logs' } },
      'https://c/otlp/v1/traces',
    ],
    [
      'gRPC: the same address',
      { ...on, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317' },
      {},
      'http://c:4317',
    ],
  ];
  for (const [name, env, raw, url] of cases) {
    it(`endpoint: ${name}`, () => expect(traces(env, raw).exporter.url).toBe(url));
  }

  it('reads the TRACES variables for protocol, headers and timeout', () => {
    const ex = traces({
      ...on,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=web',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '2500',
      OTEL_EXPORTER_OTLP_LOGS_TIMEOUT: '9000',
    }).exporter;
    expect(ex).toMatchObject({ protocol: 'http/json', headers: { 'x-team': 'web' }, timeoutMs: 2500 });
  });

  // docs/traces.md: the TRACES variables override the exporter's TLS for spans, as LOGS ones do for records.
  it('reads the TRACES variable for the CA, and the LOGS one applies to records only', () => {
    const certs = makeTestCerts();
    try {
      const tracesCa = buildConfig({}, { ...on, OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: certs.paths.ca });
      expect(tracesCa.traces.exporter.tls.ca).toBe(certs.pem.ca);
      expect(tracesCa.exporter.tls.ca).toBeUndefined();
      const logsCa = buildConfig({}, { ...on, OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE: certs.paths.ca });
      expect(logsCa.exporter.tls.ca).toBe(certs.pem.ca);
      expect(logsCa.traces.exporter.tls.ca).toBeUndefined();
    } finally {
      certs.remove();
    }
  });

  it.each([
    ['the default: 5 s', undefined, 5000],
    ['a duration', '2s', 2000],
    ['0: the state at every batch', '0s', 0],
  ])('traces.state_interval, %s', (_name, value, ms) => {
    const raw = value === undefined ? {} : { traces: { state_interval: value } };
    expect(traces(on, raw).stateIntervalMs).toBe(ms);
  });

  it.each([
    ['the default: 5 min', undefined, 300_000],
    ['a duration', '30s', 30_000],
    ['the least: 1 s', '1s', 1000],
  ])('traces.unsupported_retry, %s', (_name, value, ms) => {
    const raw = value === undefined ? {} : { traces: { unsupported_retry: value } };
    expect(traces(on, raw).unsupportedRetryMs).toBe(ms);
  });

  it.each([
    ['the default: 16 MiB', undefined, 16 * 1024 * 1024],
    ['a size', '1MiB', 1024 * 1024],
    ['the least: 64 KiB', '64KiB', 64 * 1024],
  ])('traces.queue_max_bytes, %s', (_name, value, bytes) => {
    const raw = value === undefined ? {} : { traces: { queue_max_bytes: value } };
    expect(traces(on, raw).queueMaxBytes).toBe(bytes);
  });

  it.each(['1KiB', 'lots'])('refuses a queue_max_bytes of %s, naming the key', (value) => {
    expect(() => buildConfig({ traces: { queue_max_bytes: value } }, on)).toThrow(/traces.queue_max_bytes/);
  });

  it.each(['500ms', 'later'])('refuses an unsupported_retry of %s, naming the key', (value) => {
    expect(() => buildConfig({ traces: { unsupported_retry: value } }, on)).toThrow(/traces.unsupported_retry/);
  });

  it('refuses a state_interval that is not a duration, naming the key', () => {
    expect(() => buildConfig({ traces: { state_interval: 'often' } }, on)).toThrow(/traces.state_interval/);
  });

  it('refuses anything but true or false, naming the key', () => {
    expect(() => buildConfig({}, { ...base, BRIDGE_TRACES: 'maybe' })).toThrow(ConfigError);
    expect(() => buildConfig({ traces: { enabled: 'on' } }, base)).toThrow(/traces.enabled/);
    expect(() => buildConfig({ traces: { sample: 1 } }, base)).toThrow(ConfigError);
  });
});
