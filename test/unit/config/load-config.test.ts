import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConfig, loadConfig } from '../../../src/config/load-config.js';
import { ConfigError, ConfigErrors } from '../../../src/config/errors.js';

const base = { BROWSER_API_URL: 'http://svc.test', BROWSER_API_KEY: 'k' };

/** The ConfigError that building this configuration throws. */
function configError(raw: Record<string, unknown>, env: Record<string, string> = base): ConfigError {
  try {
    buildConfig(raw, env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const err = (raw: Record<string, unknown>, env: Record<string, string> = base): string => configError(raw, env).key;

/** The ConfigErrors `fn` throws (failing the test when it throws nothing or something else). */
function configErrorsOf(fn: () => unknown): ConfigErrors {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigErrors);
    return e as ConfigErrors;
  }
  throw new Error('no ConfigErrors thrown');
}

describe('configuration', () => {
  it('defaults', () => {
    const c = buildConfig({}, base);
    expect(c.exporter).toMatchObject({
      url: 'http://localhost:4318/v1/logs',
      protocol: 'http/protobuf',
      compression: 'none',
    });
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(c.start).toBe('oldest');
    expect(c.resource.serviceName).toBe('browser-telemetry-bridge');
  });

  it.each<[string, Record<string, unknown>, Record<string, string>, number | 'auto']>([
    ['auto by default', {}, base, 'auto'],
    ['a count in the file', { workers: 3 }, base, 3],
    ['none', { workers: 0 }, base, 0],
    ['the environment wins', { workers: 3 }, { ...base, BRIDGE_WORKERS: '0' }, 0],
    ['auto in the environment', { workers: 2 }, { ...base, BRIDGE_WORKERS: 'auto' }, 'auto'],
  ])('workers: %s', (_name, raw, env, expected) => {
    expect(buildConfig(raw, env).workers).toBe(expected);
  });

  it('environment overrides the file', () => {
    const c = buildConfig(
      {
        upstream: { url: 'http://file.test', api_key: 'filekey' },
        start: 'latest',
        exporter: { endpoint: 'http://file-collector:4318', protocol: 'http/json' },
        sessions: ['a', { id: 'b', pool: 'p1', attributes: { team: 'x' } }],
      },
      {
        BROWSER_API_URL: 'http://env.test/',
        BRIDGE_START: 'oldest',
        BRIDGE_SESSIONS: 'b, c',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env-collector:4318/',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=acme,authorization=Bearer%20secret',
        OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
        OTEL_SERVICE_NAME: 'bridge-a',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod',
        BRIDGE_LISTEN: '0.0.0.0:8080',
      },
    );
    expect(c.upstream.url).toBe('http://env.test');
    expect(c.upstream.apiKey).toBe('filekey');
    expect(c.start).toBe('oldest');
    expect(c.sessions.map((s) => s.id)).toEqual(['a', 'b', 'c']);
    expect(c.sessions[1]).toEqual({ id: 'b', pool: 'p1', attributes: { team: 'x' } });
    expect(c.exporter.url).toBe('http://env-collector:4318/v1/logs');
    expect(c.exporter.protocol).toBe('http/json');
    expect(c.exporter.headers).toEqual({ 'x-tenant': 'acme', authorization: 'Bearer secret' });
    expect(c.exporter.compression).toBe('gzip');
    expect(c.resource).toEqual({ serviceName: 'bridge-a', attributes: { 'deployment.environment': 'prod' } });
    expect(c.listen).toEqual({ host: '0.0.0.0', port: 8080 });
  });

  // The README: the environment wins over the file, for service.name too.
  it.each<[string, Record<string, unknown>, Record<string, string>, string]>([
    ['the default', {}, {}, 'browser-telemetry-bridge'],
    ['the file', { service: { name: 'file' } }, {}, 'file'],
    ["the file's attributes", { service: { resource_attributes: { 'service.name': 'file-attr' } } }, {}, 'file-attr'],
    [
      "the file's name over its attributes",
      { service: { name: 'file', resource_attributes: { 'service.name': 'file-attr' } } },
      {},
      'file',
    ],
    [
      'OTEL_RESOURCE_ATTRIBUTES over the file',
      { service: { name: 'file' } },
      { OTEL_RESOURCE_ATTRIBUTES: 'service.name=env-attr' },
      'env-attr',
    ],
    [
      'OTEL_SERVICE_NAME over OTEL_RESOURCE_ATTRIBUTES',
      { service: { name: 'file' } },
      { OTEL_SERVICE_NAME: 'env', OTEL_RESOURCE_ATTRIBUTES: 'service.name=env-attr' },
      'env',
    ],
  ])('service.name: %s', (_name, raw, env, expected) => {
    expect(buildConfig(raw, { ...base, ...env }).resource.serviceName).toBe(expected);
  });

  it('the signal-specific logs endpoint is used as is', () => {
    const c = buildConfig(
      {},
      {
        ...base,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
        OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://b:9999/custom',
      },
    );
    expect(c.exporter.url).toBe('http://b:9999/custom');
  });

  it('sizes and durations accept units', () => {
    const c = buildConfig(
      {
        spool: { max_bytes: '64MiB', commit_interval: '20ms' },
        upstream: { idle_timeout: '30s' },
        shutdown: { grace: '1m' },
      },
      base,
    );
    expect(c.spool.maxBytes).toBe(64 * 1024 * 1024);
    expect(c.spool.commitIntervalMs).toBe(20);
    expect(c.upstream.idleTimeoutMs).toBe(30_000);
    expect(c.shutdownGraceMs).toBe(60_000);
  });

  it('upstream.read_pacing: 200 ms by default, 0 turns it off, a duration up to 1s', () => {
    expect(buildConfig({}, base).upstream.readPacingMs).toBe(200);
    expect(buildConfig({ upstream: { read_pacing: 0 } }, base).upstream.readPacingMs).toBe(0);
    expect(buildConfig({ upstream: { read_pacing: '250ms' } }, base).upstream.readPacingMs).toBe(250);
    expect(buildConfig({ upstream: { read_pacing: '1s' } }, base).upstream.readPacingMs).toBe(1000);
    // The environment wins over the file, as everywhere.
    const env = { ...base, BRIDGE_READ_PACING: '0' };
    expect(buildConfig({ upstream: { read_pacing: '250ms' } }, env).upstream.readPacingMs).toBe(0);
  });

  it('upstream.archive_retry: a minute by default, 0 records a gap at the first failed archive read', () => {
    expect(buildConfig({}, base).upstream.archiveRetryMs).toBe(60_000);
    expect(buildConfig({ upstream: { archive_retry: 0 } }, base).upstream.archiveRetryMs).toBe(0);
    expect(buildConfig({ upstream: { archive_retry: '30m' } }, base).upstream.archiveRetryMs).toBe(1_800_000);
    expect(() => buildConfig({ upstream: { archive_retry: 'soon' } }, base)).toThrow(/upstream.archive_retry/);
  });

  it('a key file named and missing is an error even with a key set, and says how to use the key alone', () => {
    const message = (raw: Record<string, unknown>, env: Record<string, string>): string =>
      configError(raw, env).message;
    // The example configuration names a file; a shell exporting BROWSER_API_KEY still needs it.
    expect(message({ upstream: { api_key_file: '/nonexistent/key' } }, base)).toMatch(
      /upstream\.api_key_file.*\/nonexistent\/key.*BROWSER_API_KEY is set too, but a key file that is named must exist: remove upstream\.api_key_file to use the key alone/s,
    );
    // Without a key beside it, the file alone is named.
    expect(message({}, { BROWSER_API_URL: 'http://x', BROWSER_API_KEY_FILE: '/nonexistent/key' })).not.toMatch(
      /is set too/,
    );
  });

  it('spool.mode: overflow by default, always from the file or BRIDGE_SPOOL_MODE; the memory window', () => {
    expect(buildConfig({}, base).spool).toMatchObject({ mode: 'overflow', memoryMaxAgeMs: 10_000 });
    expect(buildConfig({}, base).spool.memoryMaxBytes).toBeUndefined();
    expect(buildConfig({ spool: { mode: 'always' } }, base).spool.mode).toBe('always');
    expect(buildConfig({ spool: { mode: 'always' } }, { ...base, BRIDGE_SPOOL_MODE: 'overflow' }).spool.mode).toBe(
      'overflow',
    );
    const c = buildConfig({ spool: { memory_max_bytes: '32MiB', memory_max_age: '2s' } }, base);
    expect(c.spool).toMatchObject({ memoryMaxBytes: 32 * 1024 * 1024, memoryMaxAgeMs: 2000 });
  });

  it.each<[string, Record<string, unknown>, Record<string, string>]>([
    ['spool.mode', { spool: { mode: 'sometimes' } }, base],
    ['BRIDGE_SPOOL_MODE', {}, { ...base, BRIDGE_SPOOL_MODE: 'never' }],
    ['spool.memory_max_bytes', { spool: { memory_max_bytes: '1KiB' } }, base],
    ['upstream.url', {}, { BROWSER_API_KEY: 'k' }],
    ['upstream.api_key', {}, { BROWSER_API_URL: 'http://x' }],
    ['BROWSER_API_URL', {}, { BROWSER_API_URL: 'ftp://x', BROWSER_API_KEY: 'k' }],
    ['BROWSER_API_KEY_FILE', {}, { BROWSER_API_URL: 'http://x', BROWSER_API_KEY_FILE: '/nonexistent/key' }],
    ['BRIDGE_START', {}, { ...base, BRIDGE_START: 'newest' }],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', {}, { ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/xml' }],
    ['OTEL_EXPORTER_OTLP_HEADERS', {}, { ...base, OTEL_EXPORTER_OTLP_HEADERS: 'novalue' }],
    ['BRIDGE_LISTEN', {}, { ...base, BRIDGE_LISTEN: 'localhost' }],
    ['BRIDGE_SESSIONS', {}, { ...base, BRIDGE_SESSIONS: 'ok,bad id' }],
    ['exporter.concurrency', { exporter: { concurrency: 0 } }, base],
    ['spool.max_bytes', { spool: { max_bytes: 'lots' } }, base],
    ['sessions[1].id', { sessions: ['a', 'a'] }, base],
    ['sessions[0].start', { sessions: [{ id: 'a', start: 'yesterday' }] }, base],
    ['exporterr', { exporterr: {} }, base],
    ['workers', { workers: -1 }, base],
    ['workers', { workers: 'many' }, base],
    ['BRIDGE_WORKERS', {}, { ...base, BRIDGE_WORKERS: '1.5' }],
    ['BRIDGE_WORKERS', {}, { ...base, BRIDGE_WORKERS: '65' }],
    ['upstream.urll', { upstream: { urll: 'x' } }, base],
    ['upstream.read_pacing', { upstream: { read_pacing: '2s' } }, base],
    ['upstream.read_pacing', { upstream: { read_pacing: -5 } }, base],
    ['BRIDGE_READ_PACING', { upstream: { read_pacing: '50ms' } }, { ...base, BRIDGE_READ_PACING: 'soon' }],
  ])('names the key %s', (key, raw, env) => {
    expect(err(raw, env)).toBe(key);
  });

  it.each<[string, Record<string, unknown>, Record<string, string>, string]>([
    [
      'a port alone in the file (YAML reads a number)',
      { listen: 9464 },
      base,
      'listen: must be host:port, not a port alone (got 9464): write "127.0.0.1:9464", or "0.0.0.0:9464" for every interface',
    ],
    [
      'a port alone in BRIDGE_LISTEN',
      {},
      { ...base, BRIDGE_LISTEN: '9464' },
      'BRIDGE_LISTEN: must be host:port, not a port alone (got "9464"): write "127.0.0.1:9464", or "0.0.0.0:9464" for every interface',
    ],
    [
      'a list as listen',
      { listen: ['a'] },
      base,
      'listen: must be host:port, e.g. 127.0.0.1:9464, or "off" (got ["a"])',
    ],
    [
      'a boolean as a duration',
      { upstream: { idle_timeout: true } },
      base,
      'upstream.idle_timeout: must be a duration such as "45s" or 45000 (got true)',
    ],
  ])('says what it got and what to write: %s', (_name, raw, env, message) => {
    // The whole message: one problem is thrown as itself.
    expect(() => buildConfig(raw, env)).toThrow(expect.objectContaining({ message }) as Error);
  });

  it('reports every problem at once, each naming its key: the shape of the file first, then the values', () => {
    const raw = {
      upstream: { urll: 'http://svc.test', idle_timeout: 'soon' },
      spool: { max_bytes: 'lots', commit_max_records: 0 },
      exporter: { protocol: 'http' },
      mapping: { body_format: 'xml' },
      sessions: ['ok', { id: 's', pol: 'p' }],
      listen: 'nowhere',
      bogus: 1,
    };
    const caught = configErrorsOf(() => {
      buildConfig(raw, base);
    });
    const e = caught;
    expect(e.problems.map((p) => p.key)).toEqual([
      'upstream.urll',
      'sessions[1].pol',
      'bogus',
      'upstream.idle_timeout',
      'spool.max_bytes',
      'spool.commit_max_records',
      'listen',
      'exporter.protocol',
      'mapping.body_format',
    ]);
    // One message a person reads, one problem a line; the first problem's key for callers that want one.
    expect(e.key).toBe('upstream.urll');
    expect(e.message.split('\n')[0]).toBe('9 problems:');
    expect(e.message).toContain('\n  spool.max_bytes: must be a size');
  });

  // The shape walk and the parser both know a list written as one value: the operator reads one
  // line for it, the parser's (it says what the list holds), not the same complaint twice.
  it.each([
    [{ sessions: 'sess_1' }, 'sessions', 'must be a list of session ids or {id, pool, start, attributes} entries'],
    [{ control_allowed_hosts: 'bridge.local' }, 'control_allowed_hosts', 'must be a list of host names'],
    [
      { mapping: { filters: { include_categories: 'console' } } },
      'mapping.filters.include_categories',
      'must be a list of names',
    ],
  ])('a list written as one value is one problem: %j', (raw, key, message) => {
    const e = configError(raw);
    expect(e).not.toBeInstanceOf(ConfigErrors);
    expect(e.message).toBe(`${key}: ${message}`);
  });

  it('a list written as one value is still reported beside the other problems', () => {
    const caught = configErrorsOf(() => buildConfig({ sessions: 'sess_1', spool: { max_bytes: 'lots' } }, base));
    expect(caught.problems.map((p) => p.message)).toEqual([
      'sessions: must be a list of session ids or {id, pool, start, attributes} entries',
      'spool.max_bytes: must be a size such as 268435456 or "256MiB" (got "lots")',
    ]);
  });

  // `state: ./state` for `state: {dir: ./state}`: the line says which keys the section holds.
  it.each([
    [{ state: './state' }, 'state: must be a mapping with the keys dir (got "./state")'],
    [
      { discovery: true },
      'discovery: must be a mapping with the keys enabled, tags, query, region, interval, start, project (got true)',
    ],
  ])('a section written as one value names its keys: %j', (raw, message) => {
    expect(configError(raw).message).toBe(message);
  });

  // `enabled: yes` (YAML 1.1's boolean, a string in YAML 1.2) or a quoted "true": the line names
  // what was written, and for a quoted one what to drop, as every other key's message does.
  it.each([
    [{ discovery: { enabled: 'yes' } }, 'discovery.enabled', 'must be true or false (got "yes")'],
    [{ discovery: { enabled: 'true' } }, 'discovery.enabled', 'must be true or false, without quotes (got "true")'],
    [{ mapping: { redaction: { enabled: 'no' } } }, 'mapping.redaction.enabled', 'must be true or false (got "no")'],
    [
      { mapping: { filters: { allow_unknown_types: 1 } } },
      'mapping.filters.allow_unknown_types',
      'must be true or false (got 1)',
    ],
    [{ exporter: { insecure: 'on' } }, 'exporter.insecure', 'must be true or false (got "on")'],
    [{ traces: { enabled: 'yes' } }, 'traces.enabled', 'must be true or false (got "yes")'],
  ])('a boolean written otherwise says what was written: %j', (raw, key, message) => {
    expect(configError(raw).message).toBe(`${key}: ${message}`);
  });

  it('every problem of the exporter section at once, from the file and the environment', () => {
    const raw = { exporter: { timeout: 'fast', batch_max_records: 'ten', concurrency: 1.5, backoff: { max: 'x' } } };
    const caught = configErrorsOf(() => {
      buildConfig(raw, {
        ...base,
        OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign',
        OTEL_EXPORTER_OTLP_COMPRESSION: 'zstd',
      });
    });
    expect(caught.problems.map((p) => p.key)).toEqual([
      'OTEL_EXPORTER_OTLP_COMPRESSION',
      'OTEL_EXPORTER_OTLP_HEADERS',
      'exporter.timeout',
      'exporter.batch_max_records',
      'exporter.concurrency',
      'exporter.backoff.max',
    ]);
  });

  it('every problem of the discovery, traces and mapping sections at once', () => {
    const raw = {
      discovery: { enabled: 'maybe', interval: 'soon', start: 'now' },
      traces: { enabled: 2, state_interval: 'x' },
      mapping: { body_format: 'xml', max_record_bytes: 'lots', filters: { include_categories: ['consol'] } },
    };
    const caught = configErrorsOf(() => {
      buildConfig(raw, base);
    });
    expect(caught.problems.map((p) => p.key).sort()).toEqual([
      'discovery.enabled',
      'discovery.interval',
      'discovery.start',
      'mapping.body_format',
      'mapping.filters.include_categories[0]',
      'mapping.max_record_bytes',
      'traces.enabled',
      'traces.state_interval',
    ]);
  });

  it('a single problem stays a plain ConfigError with its own message', () => {
    try {
      buildConfig({ spool: { max_bytes: 'lots' } }, base);
      expect.unreachable();
    } catch (e) {
      expect(e).not.toBeInstanceOf(ConfigErrors);
      expect((e as ConfigError).message).toMatch(/^spool\.max_bytes: /);
    }
  });
});

describe('a configuration file that is not valid YAML', () => {
  it("is one line naming the file, the problem and where, without the YAML parser's dangling colon", () => {
    const dir = mkdtempSync(join(tmpdir(), 'load-config-'));
    try {
      const file = join(dir, 'bridge.yaml');
      writeFileSync(file, 'upstream: [\n');
      let message = '';
      try {
        loadConfig(file, base);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/^config: .*bridge\.yaml is not valid YAML: .* at line 2, column 1$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// A path that points at something else than a configuration: a log file, a disk image, /dev/zero
// (which never ends: read whole, it hung start-up, and a SIGHUP reload blocked the running daemon).
describe('a configuration or key file larger than any such file', () => {
  it.each<[string, (file: string) => [string | undefined, Record<string, string>], RegExp]>([
    [
      'the configuration file',
      (file) => [file, base],
      /^--config: .*big is larger than 4 MiB: not a configuration file\?$/,
    ],
    [
      'the API key file',
      (file) => [undefined, { BROWSER_API_URL: 'http://x', BROWSER_API_KEY_FILE: file }],
      /^BROWSER_API_KEY_FILE: .*big is larger than 64 KiB: not a key file\?$/,
    ],
  ])('%s: one line naming it, not read whole', (_what, args, expected) => {
    const dir = mkdtempSync(join(tmpdir(), 'load-config-'));
    try {
      const file = join(dir, 'big');
      // Comments only: read whole, this is a valid (empty) YAML document and a valid key.
      writeFileSync(file, '#'.repeat(5 * 1024 * 1024));
      const [path, env] = args(file);
      let message = '';
      try {
        loadConfig(path, env);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a configuration file with unset variables', () => {
  it('reports each unset variable and every other problem at once, the key of an unset one only once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'load-config-'));
    try {
      const file = join(dir, 'bridge.yaml');
      writeFileSync(
        file,
        'upstream:\n  url: ${env:NOPE_URL}\nexporter:\n  timeout: fast\n  headers: { x-key: "${env:NOPE_KEY}" }\n',
      );
      const caught = configErrorsOf(() => {
        loadConfig(file, { BROWSER_API_KEY: 'k' });
      });
      expect(caught.problems.map((p) => p.key)).toEqual(['upstream.url', 'exporter.headers.x-key', 'exporter.timeout']);
      expect(caught.message).toContain('environment variable NOPE_URL is not set');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a misspelt key whose value is an unset variable', () => {
  it('reports both problems at once, the misspelling with the name it is closest to', () => {
    const dir = mkdtempSync(join(tmpdir(), 'load-config-'));
    try {
      const file = join(dir, 'bridge.yaml');
      writeFileSync(file, 'upstream:\n  url: http://svc.test\n  api_kye: ${env:NOPE_KEY}\nsesions: ${env:NOPE_S}\n');
      const caught = configErrorsOf(() => {
        loadConfig(file, { BROWSER_API_KEY: 'k' });
      });
      const lines = caught.problems.map((p) => p.message);
      expect(lines).toContainEqual(
        expect.stringMatching(/^upstream\.api_kye: environment variable NOPE_KEY is not set/),
      );
      expect(lines).toContainEqual(expect.stringMatching(/^upstream\.api_kye: unknown key; did you mean api_key\?/));
      expect(lines).toContainEqual(expect.stringMatching(/^sesions: environment variable NOPE_S is not set/));
      expect(lines).toContainEqual(expect.stringMatching(/^sesions: unknown key; did you mean sessions\?/));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
