// Exporter headers that node:http would refuse at every request (ERR_INVALID_CHAR,
// ERR_INVALID_HTTP_TOKEN) are refused when the configuration loads, naming where they came from and
// never quoting the value.
import { describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/config/load-config.js';
import { ConfigError } from '../../../src/config/errors.js';

const base = { BROWSER_API_URL: 'http://svc.test', BROWSER_API_KEY: 'k' };

function problem(raw: Record<string, unknown>, env: Record<string, string>): ConfigError | undefined {
  try {
    buildConfig(raw, { ...base, ...env });
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
}

describe('exporter headers', () => {
  it.each<[string, Record<string, unknown>, Record<string, string>, string, RegExp]>([
    [
      'CRLF percent-encoded',
      {},
      { OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20s3cret%0D%0A' },
      'OTEL_EXPORTER_OTLP_HEADERS',
      /line break/,
    ],
    [
      'LF alone',
      {},
      { OTEL_EXPORTER_OTLP_LOGS_HEADERS: 'x-key=s3cret%0A' },
      'OTEL_EXPORTER_OTLP_LOGS_HEADERS',
      /line break/,
    ],
    [
      'a line end in the file',
      { exporter: { headers: { authorization: 'Bearer s3cret\n' } } },
      {},
      'exporter.headers',
      /line break/,
    ],
    ['NUL', {}, { OTEL_EXPORTER_OTLP_HEADERS: 'x-key=s3cret%00' }, 'OTEL_EXPORTER_OTLP_HEADERS', /U\+0000/],
    [
      'beyond Latin-1',
      {},
      { OTEL_EXPORTER_OTLP_HEADERS: 'x-key=s3cret%E2%82%AC' },
      'OTEL_EXPORTER_OTLP_HEADERS',
      /U\+00FF/,
    ],
    ['a name with a space', { exporter: { headers: { 'x key': 'v' } } }, {}, 'exporter.headers', /header name/],
  ])('%s is refused', (_name, raw, env, key, message) => {
    const e = problem(raw, env);
    expect(e?.key).toBe(key);
    expect(e?.message).toMatch(message);
    expect(e?.message).not.toContain('s3cret');
    expect(e?.message.split('\n')).toHaveLength(1);
  });

  it.each<[string, Record<string, unknown>, Record<string, string>]>([
    ['tabs, spaces and Latin-1 bytes', {}, { OTEL_EXPORTER_OTLP_HEADERS: 'x-a=a%09b c,x-b=caf%C3%A9' }],
    ['the file', { exporter: { headers: { authorization: 'Bearer abc', 'x-scope-orgid': 7 } } }, {}],
  ])('%s pass', (_name, raw, env) => {
    expect(problem(raw, env)).toBeUndefined();
  });
});
