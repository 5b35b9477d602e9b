// Every BRIDGE_* switch reads its value one way (config/readers.ts envFlag): true/false, 1/0 or
// yes/no in any case, blank as unset, anything else refused with the variable's name. They were
// read three ways before (BRIDGE_TRACES took true/false only, BRIDGE_DISCOVER also 1/0,
// BRIDGE_CONTROL_INSECURE also yes/no). The OpenTelemetry variables stay true/false only.
import { describe, expect, it } from 'vitest';
import { runEnvironment } from '../../../src/cli/run-environment.js';
import { ConfigError } from '../../../src/config/errors.js';
import { buildConfig } from '../../../src/config/load-config.js';

const base = { BROWSER_API_URL: 'http://svc.test', BROWSER_API_KEY: 'k' };

/** Each switch: how to read it back from what `run` builds. */
const SWITCHES: Array<[string, (env: Record<string, string>) => boolean]> = [
  ['BRIDGE_TRACES', (env) => buildConfig({}, { ...base, ...env }).traces.enabled],
  [
    'BRIDGE_DISCOVER',
    (env) => buildConfig({ discovery: { tags: { team: 'a' } } }, { ...base, ...env }).discovery?.enabled ?? false,
  ],
  ['BRIDGE_CONTROL_INSECURE', (env) => runEnvironment(env).insecure],
];

const VALUES: Array<[string, boolean]> = [
  ['true', true],
  ['TRUE', true],
  [' True ', true],
  ['1', true],
  ['yes', true],
  ['YES', true],
  ['false', false],
  ['False', false],
  ['0', false],
  ['no', false],
];

describe.each(SWITCHES)('%s', (name, read) => {
  it.each(VALUES)('%j → %s', (value, expected) => {
    expect(read({ [name]: value })).toBe(expected);
  });

  it.each(['maybe', 'on', '2', 'ture'])('refuses %j, naming the variable and what was written', (value) => {
    let problem: unknown;
    try {
      read({ [name]: value });
    } catch (err) {
      problem = err;
    }
    expect(problem).toBeInstanceOf(ConfigError);
    expect((problem as ConfigError).key).toBe(name);
    expect((problem as Error).message).toContain(`must be true or false (or 1/0, yes/no) (got "${value}")`);
  });
});

describe('OTEL_EXPORTER_OTLP_INSECURE', () => {
  // The OpenTelemetry specification reads any value but "true" as false: `1` would mean plaintext
  // to the bridge and TLS to an SDK beside it, so it is refused rather than read either way.
  it.each(['1', 'yes', '0', 'no'])('refuses %j', (value) => {
    expect(() =>
      buildConfig(
        { exporter: { protocol: 'grpc', endpoint: 'collector:4317' } },
        { ...base, OTEL_EXPORTER_OTLP_INSECURE: value },
      ),
    ).toThrow(/OTEL_EXPORTER_OTLP_INSECURE.*must be true or false/);
  });
});
