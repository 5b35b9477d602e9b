// URLs in messages the layers below mapping/ print: configuration errors and pool summaries.
import { describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/config/load-config.js';
import { ConfigError } from '../../../src/config/errors.js';
import { displayUrl } from '../../../src/mapping/display-url.js';
import { parsePool, poolFindings } from '../../../src/upstream/browser-pool.js';
import { maskUrlText } from '../../../src/util/mask-url-text.js';

describe('maskUrlText', () => {
  it.each([
    ['otlp-default', 'otlp-default'],
    ['https://collector.example/v1/logs', 'https://collector.example/v1/logs'],
    ['https://user:pw@collector.example/v1/logs', 'https://REDACTED@collector.example/v1/logs'],
    [
      'https://collector.example/v1/logs?tenant=a&api_key=k',
      'https://collector.example/v1/logs?tenant=REDACTED&api_key=REDACTED',
    ],
    ['http://u:p@[bad host/x?token=t#frag=f', 'http://REDACTED@[bad host/x?token=REDACTED#frag=REDACTED'],
    ['//u@h/x', '//REDACTED@h/x'],
  ])('%s', (input, output) => expect(maskUrlText(input)).toBe(output));
});

describe('what a person reads', () => {
  const base = { upstream: { url: 'http://svc.example', api_key: 'k' } };

  it.each([
    ['exporter.endpoint', { exporter: { endpoint: 'http://admin:SECRET-PW@[collector/v1?token=SECRET-T' } }, {}],
    [
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      {},
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://admin:SECRET-PW@[collector/?token=SECRET-T' },
    ],
    ['BROWSER_API_URL', {}, { BROWSER_API_URL: 'https://u:SECRET-PW@[svc?api_key=SECRET-T' }],
  ])('a configuration error on %s echoes the URL masked', (key, raw, env) => {
    let err: unknown;
    try {
      buildConfig({ ...base, ...raw }, { BROWSER_API_KEY: 'k', ...env });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(key);
    expect((err as Error).message).toMatch(/is not a valid URL \(got ".*REDACTED@/);
    expect((err as Error).message).not.toMatch(/SECRET-/);
  });

  it("a pool's OTLP destination is masked where the pool is parsed, so findings, logs and /v1/sessions show it masked", () => {
    const r = parsePool({
      id: 'p',
      browser_pool_config: {
        telemetry: {
          export: { otlp: { enabled: true, destination: 'https://u:SECRET-PW@otlp.example/v1/logs?token=SECRET-T' } },
        },
      },
    });
    if (!r.ok) throw new Error(r.reason);
    expect(r.pool.telemetry?.otlpExport.destination).toBe('https://REDACTED@otlp.example/v1/logs?token=REDACTED');
    expect(JSON.stringify(poolFindings(r.pool))).not.toMatch(/SECRET-/);
  });

  it('the collector endpoint for export-failure log lines: displayUrl masks credentials and secret parameters', () => {
    expect(displayUrl('https://u:SECRET-PW@otlp.example:4318/v1/logs?api_key=SECRET-K&tenant=a')).toBe(
      'https://REDACTED:REDACTED@otlp.example:4318/v1/logs?api_key=REDACTED&tenant=a',
    );
  });
});
