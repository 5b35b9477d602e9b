// The one rule for environment values (src/config/env-values.ts), variable by variable: set to the
// empty string or to whitespace, each reads as unset, so the file's value (or the default) applies.
// The list is checked against the names the sources read, so a new variable needs a row here.
import { readdirSync, readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConfig, loadConfig } from '../../../src/config/load-config.js';
import { ConfigError } from '../../../src/config/errors.js';
import { healthTarget } from '../../../src/cli/healthcheck.js';
import { configuredLogLevel } from '../../../src/cli/log-level.js';
import { runEnvironment } from '../../../src/cli/run-environment.js';
import { makeTestCerts } from '../../helpers/test-certs.js';

const certs = makeTestCerts();
const dir = mkdtempSync(join(tmpdir(), 'env-values-'));
afterAll(() => {
  certs.remove();
  rmSync(dir, { recursive: true, force: true });
});
const keyFile = join(dir, 'api-key');
writeFileSync(keyFile, 'file-key\n');
const pwFile = join(dir, 'pw');
writeFileSync(pwFile, 's3cret\n');

const base = { BROWSER_API_URL: 'http://svc.test', BROWSER_API_KEY: 'k' };
const PG = 'postgres://b@db/bridge';
const BLANKS = ['', ' ', '\t', '\n', '  \r\n'];

type Raw = Record<string, unknown>;
type Env = Record<string, string>;

const EXPORTER: [string, Raw][] = [
  ['ENDPOINT', { exporter: { endpoint: 'http://file.test:4318' } }],
  ['PROTOCOL', { exporter: { protocol: 'http/json' } }],
  ['COMPRESSION', { exporter: { compression: 'gzip' } }],
  ['TIMEOUT', { exporter: { timeout: '3s' } }],
  ['HEADERS', { exporter: { headers: { 'x-team': 'web' } } }],
  ['INSECURE', { exporter: { protocol: 'grpc', endpoint: 'collector:4317', insecure: true } }],
  ['CERTIFICATE', { exporter: { tls: { ca_file: certs.paths.ca } } }],
  ['CLIENT_CERTIFICATE', { exporter: { tls: { cert_file: certs.paths.clientCert, key_file: certs.paths.clientKey } } }],
  ['CLIENT_KEY', { exporter: { tls: { cert_file: certs.paths.clientCert, key_file: certs.paths.clientKey } } }],
];

/** [variable, a file that sets its key to something other than the default, other variables needed]. */
const ROWS: [string, Raw, Env][] = [
  ['BROWSER_API_URL', { upstream: { url: 'http://file.test' } }, {}],
  ['BROWSER_API_KEY', { upstream: { api_key: 'file-key' } }, {}],
  ['BROWSER_API_KEY_FILE', { upstream: { api_key_file: keyFile } }, {}],
  ['BROWSER_API_CA_FILE', { upstream: { ca_file: certs.paths.ca } }, {}],
  ['BRIDGE_READ_PACING', { upstream: { read_pacing: '50ms' } }, {}],
  ['BRIDGE_START', { start: 'latest' }, {}],
  ['BRIDGE_SESSIONS', { sessions: ['sess_file'] }, {}],
  ['BRIDGE_STATE_DIR', { state: { dir: '/var/lib/bridge' } }, {}],
  ['BRIDGE_SPOOL_MODE', { spool: { mode: 'always' } }, {}],
  ['BRIDGE_LISTEN', { listen: '127.0.0.1:9555' }, {}],
  ['BRIDGE_CONTROL_ALLOWED_HOSTS', { control_allowed_hosts: ['bridge.internal'] }, {}],
  ['BRIDGE_MAX_SESSIONS', { max_sessions: 7 }, {}],
  ['BRIDGE_WORKERS', { workers: 2 }, {}],
  ['BRIDGE_MEMORY_LIMIT', { memory_limit: '512MiB' }, {}],
  ['BRIDGE_TRACES', { traces: { enabled: true } }, {}],
  ['BRIDGE_STORE_URL', { store: { url: PG } }, {}],
  ['BRIDGE_STORE_LEASE', { store: { url: PG, lease: '30s' } }, {}],
  ['BRIDGE_STORE_PASSWORD_FILE', { store: { url: PG, password_file: pwFile } }, {}],
  ['BRIDGE_REPLICA_ID', {}, {}],
  ['BRIDGE_DISCOVER', { discovery: { enabled: true } }, {}],
  ['BRIDGE_DISCOVER_TAGS', { discovery: { enabled: true, tags: { team: 'web' } } }, {}],
  ['BRIDGE_DISCOVER_QUERY', { discovery: { enabled: true, query: 'checkout' } }, {}],
  ['BRIDGE_DISCOVER_REGION', { discovery: { enabled: true, region: 'eu-west' } }, {}],
  ['BRIDGE_DISCOVER_INTERVAL', { discovery: { enabled: true, interval: '30s' } }, {}],
  ['OTEL_SERVICE_NAME', { service: { name: 'from-file' } }, {}],
  ['OTEL_RESOURCE_ATTRIBUTES', { service: { resource_attributes: { team: 'web' } } }, {}],
  ...EXPORTER.map(([name, raw]): [string, Raw, Env] => [`OTEL_EXPORTER_OTLP_${name}`, raw, {}]),
  ...EXPORTER.map(([name, raw]): [string, Raw, Env] => [`OTEL_EXPORTER_OTLP_LOGS_${name}`, raw, {}]),
  ...EXPORTER.map(([name, raw]): [string, Raw, Env] => [
    `OTEL_EXPORTER_OTLP_TRACES_${name}`,
    raw,
    { BRIDGE_TRACES: 'true' },
  ]),
];

/** The configuration, or the error it is refused with (a required key the file alone gives). */
function outcome(build: () => unknown): unknown {
  try {
    return build();
  } catch (err) {
    return err;
  }
}

/** Read elsewhere than buildConfig, each with its own row below. */
const OUTSIDE = ['BRIDGE_CONFIG', 'BRIDGE_CONTROL_TOKEN', 'BRIDGE_CONTROL_INSECURE'];

describe('a blank environment variable counts as unset', () => {
  it.each(ROWS)('%s', (name, raw, extra) => {
    const unset: Env = { ...base, ...extra };
    delete unset[name];
    const expected = buildConfig(raw, unset);
    // The file's value is what applies, not the default (a row whose file changes nothing proves nothing).
    if (Object.keys(raw).length > 0) expect(expected).not.toEqual(outcome(() => buildConfig({}, unset)));
    for (const blank of BLANKS) expect(buildConfig(raw, { ...unset, [name]: blank })).toEqual(expected);
  });

  it('BRIDGE_CONFIG: no file', () => {
    for (const blank of BLANKS)
      expect(loadConfig(undefined, { ...base, BRIDGE_CONFIG: blank })).toEqual(buildConfig({}, base));
  });

  it('BRIDGE_CONTROL_INSECURE and LOG_LEVEL (read by run) and BRIDGE_LISTEN (read by the health check)', () => {
    for (const blank of BLANKS) {
      expect(runEnvironment({ BRIDGE_CONTROL_INSECURE: blank }).insecure).toBe(false);
      expect(configuredLogLevel({ LOG_LEVEL: blank })).toBe('info');
      expect(healthTarget({ BRIDGE_LISTEN: blank })).toEqual(healthTarget({}));
    }
  });

  it('the exception, BRIDGE_CONTROL_TOKEN: blank is refused, since unset would open the control API on loopback', () => {
    for (const blank of BLANKS) {
      const attempt = (): unknown =>
        buildConfig({ control_token: 'file-token' }, { ...base, BRIDGE_CONTROL_TOKEN: blank });
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(/BRIDGE_CONTROL_TOKEN: is empty or only whitespace: give a token, or leave it unset/);
    }
  });

  it('off is still the way to turn the HTTP surface off', () => {
    expect(buildConfig({}, { ...base, BRIDGE_LISTEN: 'off' }).listen).toBeNull();
  });

  it('every variable the configuration reads has a row', () => {
    const src = join(import.meta.dirname, '../../../src');
    const read = new Set<string>();
    for (const folder of ['config', 'cli', 'server']) {
      for (const file of readdirSync(join(src, folder)).filter((f) => f.endsWith('.ts'))) {
        const text = readFileSync(join(src, folder, file), 'utf8');
        for (const m of text.matchAll(/(?:'|env\.)((?:BRIDGE|BROWSER_API|OTEL)_[A-Z_]+)\b/g)) read.add(m[1]!);
      }
    }
    const covered = new Set([...ROWS.map(([name]) => name), ...OUTSIDE]);
    expect([...read].filter((name) => !covered.has(name))).toEqual([]);
  });
});

describe('surrounding whitespace of a path or URL is not part of it', () => {
  it.each([' /var/lib/bridge ', '/var/lib/bridge\n', '\t/var/lib/bridge'])('BRIDGE_STATE_DIR %j', (dir) => {
    expect(buildConfig({}, { ...base, BRIDGE_STATE_DIR: dir }).stateDir).toBe('/var/lib/bridge');
  });

  it.each([`${PG} `, `${PG}\n`, ` ${PG}`])('BRIDGE_STORE_URL %j', (url) => {
    expect(buildConfig({}, { ...base, BRIDGE_STORE_URL: url }).store).toMatchObject({ kind: 'postgres', url: PG });
  });
});
