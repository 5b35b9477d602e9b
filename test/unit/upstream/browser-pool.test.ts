// The browser pool resource as it enters (untrusted JSON → typed), and what the bridge reads from it.
import { describe, expect, it } from 'vitest';
import { makePool, telemetryConfig } from '../../../src/devkit/simulator/index.js';
import {
  parsePool,
  poolAttributes,
  poolFindings,
  TELEMETRY_CATEGORIES,
  type BrowserPool,
} from '../../../src/upstream/browser-pool.js';

function parsed(value: unknown): BrowserPool {
  const r = parsePool(value);
  if (!r.ok) throw new Error(r.reason);
  return r.pool;
}

const allOff = Object.fromEntries(TELEMETRY_CATEGORIES.map((c) => [c, false]));

describe('parsePool', () => {
  it('reads every member of a complete pool resource', () => {
    const raw = makePool({
      id: 'pool_1',
      name: 'scrapers',
      region: 'eu-west',
      acquired_count: 2,
      available_count: 3,
      extension_ids: ['ext_a'],
      profile_id: 'prof_1',
      browser_pool_config: {
        size: 5,
        extensions: [{ id: 'ext_a', name: 'adblock' }],
        profile: { id: 'prof_1', name: 'logged-in' },
        telemetry: telemetryConfig({ screenshot: false }, ['Input.insertText']),
      },
    });
    const pool = parsed(JSON.parse(JSON.stringify(raw)));
    expect(pool).toMatchObject({
      id: 'pool_1',
      name: 'scrapers',
      region: 'eu-west',
      acquiredCount: 2,
      availableCount: 3,
      size: 5,
      extensionIds: ['ext_a'],
      extensions: [{ id: 'ext_a', name: 'adblock' }],
      profileId: 'prof_1',
      profile: { id: 'prof_1', name: 'logged-in' },
      headless: false,
      stealth: true,
      kioskMode: false,
      timeoutSeconds: 600,
      viewport: { width: 1280, height: 800, refreshRate: 60 },
      ignored: [],
    });
    expect(pool.telemetry?.categories.screenshot).toBe(false);
    expect(pool.telemetry?.categories.console).toBe(true);
    expect(pool.telemetry?.excludedCdpMethods).toEqual(['Input.insertText']);
    expect(pool.telemetry?.otlpExport).toEqual({ enabled: false, destination: 'otlp-default' });
  });

  it('needs only an id; everything else may be absent', () => {
    const pool = parsed({ id: 'p' });
    expect(pool).toEqual({ id: 'p', extensionIds: [], extensions: [], ignored: [] });
  });

  it.each([
    [null, 'not a JSON object'],
    [[], 'not a JSON object'],
    ['pool', 'not a JSON object'],
    [{ name: 'x' }, 'no id'],
    [{ id: 7 }, 'no id'],
    [{ id: '' }, 'no id'],
  ])('refuses %j', (value, reason) => {
    const r = parsePool(value);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(reason);
  });

  it('ignores mistyped members and names them, without quoting their values', () => {
    const pool = parsed({
      id: 'p',
      name: 42,
      region: ['us-east'],
      acquired_count: '3',
      extension_ids: [1],
      browser_pool_config: {
        size: 1.5,
        telemetry: {
          browser: { console: { enabled: 'yes' }, control: { cdp: { excluded_methods: 'Input.insertText' } } },
          export: { otlp: { enabled: 1 } },
        },
      },
    });
    expect(pool.name).toBeUndefined();
    expect(pool.region).toBeUndefined();
    expect(pool.telemetry?.categories.console).toBeUndefined();
    expect(pool.ignored).toEqual([
      'extension_ids',
      'name',
      'region',
      'acquired_count',
      'browser_pool_config.size',
      'browser_pool_config.telemetry.browser.console.enabled',
      'browser_pool_config.telemetry.browser.control.cdp.excluded_methods',
      'browser_pool_config.telemetry.export.otlp.enabled',
    ]);
  });

  it('falls back to the configuration name when the pool has none', () => {
    expect(parsed({ id: 'p', browser_pool_config: { name: 'from-config' } }).name).toBe('from-config');
  });
});

describe('poolFindings', () => {
  const withTelemetry = (telemetry: unknown): BrowserPool => parsed({ id: 'p', browser_pool_config: { telemetry } });

  it('nothing to say about a pool capturing everything and not exporting itself', () => {
    expect(poolFindings(withTelemetry(telemetryConfig()))).toEqual([]);
  });

  it('warns when every category is off', () => {
    const f = poolFindings(withTelemetry(telemetryConfig(allOff)));
    expect(f.map((x) => [x.key, x.level])).toEqual([['telemetry-off', 'warn']]);
    expect(f[0]?.message).toContain('will stay empty');
  });

  it('one category on is enough; an unstated flag means the service default', () => {
    expect(poolFindings(withTelemetry(telemetryConfig({ ...allOff, control: true })))).toEqual([]);
    expect(poolFindings(withTelemetry({ browser: { console: { enabled: false } } }))).toEqual([]);
    // The operational categories off, the opt-in ones unstated: nothing is captured.
    const opsOff = {
      control: { enabled: false },
      connection: { enabled: false },
      system: { enabled: false },
      captcha: { enabled: false },
    };
    expect(poolFindings(withTelemetry({ browser: opsOff })).map((x) => x.key)).toEqual(['telemetry-off']);
    expect(poolFindings(withTelemetry({ browser: { ...opsOff, network: { enabled: true } } }))).toEqual([]);
  });

  it('warns about double delivery when the pool exports OTLP itself', () => {
    const f = poolFindings(withTelemetry({ export: { otlp: { enabled: true, destination: 'dest-1' } } }));
    expect(f.map((x) => x.key)).toEqual(['otlp-export']);
    expect(f[0]?.message).toContain('dest-1');
    expect(f[0]?.message).toContain('twice');
  });

  it('lists excluded cdp methods at info level, keyed by the list', () => {
    const f = poolFindings(withTelemetry(telemetryConfig({}, ['Input.insertText', 'Page.navigate'])));
    expect(f).toEqual([
      {
        key: 'cdp-excluded:Input.insertText, Page.navigate',
        level: 'info',
        message: expect.stringContaining('Input.insertText, Page.navigate'),
      },
    ]);
  });

  it('says it cannot tell when the pool shows no telemetry configuration', () => {
    expect(poolFindings(parsed({ id: 'p' })).map((x) => [x.key, x.level])).toEqual([['telemetry-unknown', 'info']]);
  });
});

describe('poolAttributes', () => {
  it('id, name and region as the pool gives them', () => {
    expect(poolAttributes(parsed({ id: 'p1', name: 'n', region: 'eu-west' }))).toEqual({
      'browser.pool.id': 'p1',
      'browser.pool.name': 'n',
      'cloud.region': 'eu-west',
    });
    expect(poolAttributes(parsed({ id: 'p1' }))).toEqual({ 'browser.pool.id': 'p1' });
  });
});
