// Configuration as the ecosystem writes it: ${env:VAR} in the file, Go-style durations and IEC sizes
// everywhere, the OTEL_* timeout as documented, one-line messages for missing files and bad names.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/errors.js';
import { buildConfig, loadConfig } from '../../../src/config/load-config.js';
import { configWarnings } from '../../../src/config/warnings.js';

const base = { BROWSER_API_URL: 'http://svc.test', BROWSER_API_KEY: 'k' };

function problem(f: () => unknown): ConfigError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

// One directory for the whole file, removed at the end: the suite leaves nothing in the temp folder.
const dir = mkdtempSync(join(tmpdir(), 'btb-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

function file(text: string): string {
  const path = join(dir, `bridge-${++files}.yaml`);
  writeFileSync(path, text);
  return path;
}

describe('configuration syntax', () => {
  it.each<[string, string, number]>([
    ['10s', 'OTEL_EXPORTER_OTLP_TIMEOUT', 10_000],
    ['10000', 'OTEL_EXPORTER_OTLP_TIMEOUT', 10_000],
    ['500ms', 'OTEL_EXPORTER_OTLP_LOGS_TIMEOUT', 500],
    ['1m30s', 'OTEL_EXPORTER_OTLP_TIMEOUT', 90_000],
  ])('%s in %s is a timeout', (text, name, ms) => {
    expect(buildConfig({}, { ...base, [name]: text }).exporter.timeoutMs).toBe(ms);
  });

  it.each<[unknown, number]>([
    ['45s', 45_000],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    [1200, 1200],
    ['1200', 1200],
    ['2500us', 3],
  ])('duration %j is %i ms', (v, ms) => {
    expect(buildConfig({ upstream: { backoff: { initial: v } } }, base).upstream.backoff.initialMs).toBe(ms);
  });

  it.each(['10 sec', '1d', '-5s', 's', '1m30'])('"%s" is not a duration', (v) => {
    expect(problem(() => buildConfig({ shutdown: { grace: v } }, base)).message).toMatch(
      /^shutdown.grace: must be a duration such as "45s", "500ms", "1m30s"/,
    );
  });

  it('sizes accept IEC units everywhere, including the record size', () => {
    const c = buildConfig({ spool: { max_bytes: '64MiB' }, mapping: { max_record_bytes: '64KiB' } }, base);
    expect(c.spool.maxBytes).toBe(64 * 1024 * 1024);
    expect(c.mapping.maxRecordBytes).toBe(64 * 1024);
    expect(problem(() => buildConfig({ mapping: { max_record_bytes: '2MiB' } }, base)).key).toBe(
      'mapping.max_record_bytes',
    );
  });

  it.each(['OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_LOGS_PROTOCOL'])(
    'a wrong %s names the three protocols',
    (name) => {
      const e = problem(() => buildConfig({}, { ...base, [name]: 'http/xml' }));
      expect(e.message).toBe(`${name}: must be one of http/protobuf, http/json, grpc (got "http/xml")`);
      expect(buildConfig({}, { ...base, [name]: 'grpc' }).exporter.protocol).toBe('grpc');
    },
  );

  it('a missing configuration file is one line naming where it came from', () => {
    expect(problem(() => loadConfig('/nonexistent/bridge.yaml', base)).message).toBe(
      '--config: /nonexistent/bridge.yaml does not exist',
    );
    expect(problem(() => loadConfig(undefined, { ...base, BRIDGE_CONFIG: '/nonexistent/b.yaml' })).message).toBe(
      'BRIDGE_CONFIG: /nonexistent/b.yaml does not exist',
    );
    expect(problem(() => loadConfig(tmpdir(), base)).message).toBe(`--config: ${tmpdir()} is a directory, not a file`);
    expect(
      problem(() => loadConfig(undefined, { BROWSER_API_URL: 'http://x', BROWSER_API_KEY_FILE: '/nonexistent/key' }))
        .message,
    ).toBe('BROWSER_API_KEY_FILE: /nonexistent/key does not exist');
  });

  it('${env:VAR} references in the file are resolved, with types and defaults', () => {
    const path = file(
      [
        'upstream:',
        '  url: ${env:SVC_URL}',
        '  api_key: ${env:SVC_KEY}',
        'exporter:',
        '  endpoint: http://${env:COLLECTOR_HOST:-localhost}:4318',
        '  headers: { x-tenant: "${env:TENANT}", x-literal: "a$$b" }',
        '  timeout: ${env:TIMEOUT:-5s}',
        'spool:',
        '  max_bytes: ${env:SPOOL_BYTES}',
        'sessions:',
        '  - ${env:SESSION}',
      ].join('\n'),
    );
    const c = loadConfig(path, {
      SVC_URL: 'http://svc.test',
      SVC_KEY: 'secret',
      TENANT: 'acme',
      SPOOL_BYTES: '2097152',
      SESSION: 'sess_1',
    });
    expect(c.upstream.url).toBe('http://svc.test');
    expect(c.upstream.apiKey).toBe('secret');
    expect(c.exporter.url).toBe('http://localhost:4318/v1/logs');
    expect(c.exporter.headers).toEqual({ 'x-tenant': 'acme', 'x-literal': 'a$b' });
    expect(c.exporter.timeoutMs).toBe(5000);
    expect(c.spool.maxBytes).toBe(2 * 1024 * 1024);
    expect(c.sessions.map((s) => s.id)).toEqual(['sess_1']);
  });

  it('an unset variable in the file names the key and the variable', () => {
    const path = file('upstream:\n  url: ${env:SVC_URL}\n');
    expect(problem(() => loadConfig(path, base)).message).toMatch(
      /^upstream.url: environment variable SVC_URL is not set/,
    );
  });

  it('an unknown category is refused with the valid names; an unknown type is kept with a warning', () => {
    const e = problem(() => buildConfig({ mapping: { filters: { include_categories: ['network', 'consol'] } } }, base));
    expect(e.key).toBe('mapping.filters.include_categories[1]');
    expect(e.message).toMatch(
      /did you mean "console"\?.*valid categories: captcha, connection, console, control, interaction, monitor, network, page, platform, screenshot, system$/,
    );
    expect(problem(() => buildConfig({ mapping: { filters: { exclude_categories: ['everything'] } } }, base)).key).toBe(
      'mapping.filters.exclude_categories[0]',
    );

    const c = buildConfig(
      { mapping: { filters: { include_types: ['console_eror', 'page_load'], exclude_types: ['future_thing'] } } },
      base,
    );
    expect(c.mapping.filters.includeTypes).toEqual(['console_eror', 'page_load']);
    expect(configWarnings(c)).toEqual([
      'mapping.filters.include_types: "console_eror" is not a known event type (did you mean "console_error"?); kept, in case the service sends it',
      'mapping.filters.exclude_types: "future_thing" is not a known event type; kept, in case the service sends it',
    ]);
  });

  it('an include_types list that no known type is in is refused, unless newer types are expected', () => {
    const e = problem(() =>
      buildConfig({ mapping: { filters: { include_types: ['console_eror', 'future_thing'] } } }, base),
    );
    expect(e.key).toBe('mapping.filters.include_types');
    expect(e.message).toBe(
      'mapping.filters.include_types: no event type in the list is known ("console_eror" (did you mean "console_error"?), "future_thing"), so this include filter would drop every event; fix the names, or set mapping.filters.allow_unknown_types: true if you expect types newer than this bridge',
    );
    expect(
      buildConfig({ mapping: { filters: { include_types: ['future_thing'], allow_unknown_types: true } } }, base)
        .mapping.filters.includeTypes,
    ).toEqual(['future_thing']);
    // With a category in the include list, events of that category still pass: nothing to refuse.
    expect(
      buildConfig({ mapping: { filters: { include_types: ['future_thing'], include_categories: ['console'] } } }, base)
        .mapping.filters.includeTypes,
    ).toEqual(['future_thing']);
    expect(problem(() => buildConfig({ mapping: { filters: { allow_unknown_types: 'yes' } } }, base)).key).toBe(
      'mapping.filters.allow_unknown_types',
    );
  });
});
