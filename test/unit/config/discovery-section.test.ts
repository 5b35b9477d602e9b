// The `discovery:` section: defaults, the four environment overrides winning over the file, and a
// one-line ConfigError naming the key for every mistake.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/errors.js';
import { buildConfig } from '../../../src/config/load-config.js';

const base = { BROWSER_API_URL: 'http://svc.test', BROWSER_API_KEY: 'k' };

function problem(f: () => unknown): ConfigError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as Error).message).not.toContain('\n');
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('discovery configuration', () => {
  it('is off by default, with a 10 s interval and the oldest retained event as start', () => {
    expect(buildConfig({}, base).discovery).toEqual({ enabled: false, tags: {}, intervalMs: 10_000, start: 'oldest' });
  });

  it('reads the file section', () => {
    const c = buildConfig(
      {
        discovery: {
          enabled: true,
          tags: { team: 'a', tier: 2 },
          query: 'checkout',
          region: 'eu-west',
          interval: '30s',
          start: 'latest',
          project: 'proj_1',
        },
      },
      base,
    );
    expect(c.discovery).toEqual({
      enabled: true,
      tags: { team: 'a', tier: '2' },
      query: 'checkout',
      region: 'eu-west',
      intervalMs: 30_000,
      start: 'latest',
      project: 'proj_1',
    });
  });

  it('the environment wins over the file, key by key', () => {
    const c = buildConfig(
      { discovery: { enabled: false, tags: { team: 'a' }, query: 'x', region: 'us-east', interval: '30s' } },
      {
        ...base,
        BRIDGE_DISCOVER: 'true',
        BRIDGE_DISCOVER_TAGS: 'team=b,env=prod%2Ceu',
        BRIDGE_DISCOVER_QUERY: 'agent',
        BRIDGE_DISCOVER_REGION: 'eu-west',
        BRIDGE_DISCOVER_INTERVAL: '2s',
      },
    );
    expect(c.discovery).toMatchObject({
      enabled: true,
      tags: { team: 'b', env: 'prod,eu' },
      query: 'agent',
      region: 'eu-west',
      intervalMs: 2000,
    });
  });

  it('an empty region means every region, as an absent one', () => {
    const c = buildConfig({ discovery: { enabled: true, region: '' } }, base);
    expect(c.discovery.region).toBeUndefined();
  });

  it('a bridge with only a selector and no named session is a valid configuration', () => {
    const c = buildConfig({}, { ...base, BRIDGE_DISCOVER: 'true', BRIDGE_DISCOVER_TAGS: 'team=a' });
    expect(c.sessions).toEqual([]);
    expect(c.discovery.enabled).toBe(true);
  });

  it('names the key of every mistake', () => {
    expect(problem(() => buildConfig({}, { ...base, BRIDGE_DISCOVER: 'yes please' })).key).toBe('BRIDGE_DISCOVER');
    expect(problem(() => buildConfig({ discovery: { enabled: 'yes' } }, base)).key).toBe('discovery.enabled');
    expect(problem(() => buildConfig({}, { ...base, BRIDGE_DISCOVER: 'true', BRIDGE_DISCOVER_TAGS: 'team' })).key).toBe(
      'BRIDGE_DISCOVER_TAGS',
    );
    expect(problem(() => buildConfig({ discovery: { enabled: true, tags: ['a'] } }, base)).key).toBe('discovery.tags');
    expect(problem(() => buildConfig({ discovery: { enabled: true, tags: { 'a]b': 'x' } } }, base)).key).toBe(
      'discovery.tags',
    );
    expect(problem(() => buildConfig({ discovery: { enabled: true, interval: '10ms' } }, base)).key).toBe(
      'discovery.interval',
    );
    expect(
      problem(() => buildConfig({}, { ...base, BRIDGE_DISCOVER: 'true', BRIDGE_DISCOVER_INTERVAL: 'soon' })).key,
    ).toBe('BRIDGE_DISCOVER_INTERVAL');
    expect(problem(() => buildConfig({ discovery: { enabled: true, interval: '48h' } }, base)).key).toBe(
      'discovery.interval',
    );
    expect(problem(() => buildConfig({ discovery: { enabled: true, start: 'middle' } }, base)).key).toBe(
      'discovery.start',
    );
    expect(problem(() => buildConfig({ discovery: { enabeld: true } }, base)).key).toBe('discovery.enabeld');
    expect(problem(() => buildConfig({ discovery: { enabled: true, region: 'EU West' } }, base)).key).toBe(
      'discovery.region',
    );
    expect(
      problem(() => buildConfig({}, { ...base, BRIDGE_DISCOVER: 'true', BRIDGE_DISCOVER_REGION: 'eu/west' })).key,
    ).toBe('BRIDGE_DISCOVER_REGION');
  });

  it('a selector without discovery switched on is an error, not a bridge that silently follows nothing', () => {
    expect(problem(() => buildConfig({}, { ...base, BRIDGE_DISCOVER_TAGS: 'team=a' })).key).toBe('BRIDGE_DISCOVER');
    expect(problem(() => buildConfig({ discovery: { query: 'x' } }, base)).key).toBe('discovery.enabled');
    expect(problem(() => buildConfig({ discovery: { region: 'eu-west' } }, base)).key).toBe('discovery.enabled');
    expect(problem(() => buildConfig({}, { ...base, BRIDGE_DISCOVER_REGION: 'eu-west' })).key).toBe('BRIDGE_DISCOVER');
    // Switched off on purpose, the selector may stay.
    expect(buildConfig({ discovery: { enabled: false, query: 'x' } }, base).discovery.enabled).toBe(false);
  });
});
