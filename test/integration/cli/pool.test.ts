// `pool` as a child process against the simulator's GET /browser_pools/{id_or_name}.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makePool,
  startSimulator,
  telemetryConfig,
  TELEMETRY_CATEGORIES,
  type SimPool,
  type Simulator,
} from '../../../src/devkit/simulator/index.js';
import { runCli } from './cli-process.js';

let sim: Simulator;
let env: Record<string, string>;
let quiet: SimPool;

beforeAll(async () => {
  sim = await startSimulator();
  env = { BROWSER_API_URL: sim.url, BROWSER_API_KEY: 'sim-key' };
  sim.addPool(
    makePool({
      id: 'pool_main',
      name: 'scrapers',
      region: 'eu-west',
      created_at: '2026-01-02T03:04:05.000Z',
      acquired_count: 2,
      available_count: 3,
      extension_ids: ['ext_a', 'ext_b'],
      profile_id: 'prof_1',
      browser_pool_config: {
        size: 5,
        profile: { id: 'prof_1', name: 'logged-in' },
        telemetry: telemetryConfig({ screenshot: false, captcha: false }, ['Input.insertText', 'Page.navigate']),
      },
    }),
  );
  const allOff = Object.fromEntries(TELEMETRY_CATEGORIES.map((c) => [c, false]));
  const telemetry = telemetryConfig(allOff);
  telemetry.export = { otlp: { enabled: true, destination: 'their-collector' } };
  quiet = makePool({ id: 'pool_quiet', name: 'quiet', browser_pool_config: { telemetry } });
  sim.addPool(quiet);
});

afterAll(async () => {
  await sim.close();
});

describe('pool', () => {
  it('prints a readable summary, looked up by name', async () => {
    const res = await runCli(['pool', 'scrapers'], env);
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    expect(res.stdout).toBe(
      [
        'Pool           scrapers (pool_main)',
        'Region         eu-west',
        'Created        2026-01-02T03:04:05.000Z',
        'Browsers       size 5 · acquired 2 · available 3',
        'Telemetry on   connection, console, control, interaction, network, page, platform, system',
        'Telemetry off  captcha, screenshot',
        'Always sent    monitor (no flag in a pool)',
        'CDP excluded   Input.insertText, Page.navigate',
        'OTLP export    off (destination otlp-default)',
        'Profile        prof_1 (logged-in)',
        'Extensions     ext_a, ext_b',
        'Browser        headless no · stealth yes · kiosk no · viewport 1280×800 @60 Hz · timeout 600 s',
        '',
      ].join('\n'),
    );
  });

  it('warns when every category is off and when the pool exports OTLP itself; looked up by id', async () => {
    const res = await runCli(['pool', 'pool_quiet'], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Telemetry on   none');
    expect(res.stdout).toContain('OTLP export    on (destination their-collector)');
    expect(res.stdout).toContain(
      '⚠ every telemetry category is off in the pool configuration: the streams of its sessions will stay empty',
    );
    expect(res.stdout).toContain('⚠ the pool exports telemetry over OTLP itself (destination their-collector)');
  });

  it('-o json prints the pool exactly as the service sent it', async () => {
    const res = await runCli(['pool', 'quiet', '-o', 'json'], env);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual(JSON.parse(JSON.stringify(quiet)));
  });

  it('404, 401 and an unreachable service exit 1 with the reason', async () => {
    const missing = await runCli(['pool', 'nope'], env);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toContain('✗ pool nope: 404 not_found: browser pool nope not found');
    expect(missing.stderr).toContain('no pool with this id or name');

    const refused = await runCli(['pool', 'scrapers'], { ...env, BROWSER_API_KEY: 'not-the-key' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('401 unauthorized');
    expect(refused.stderr).not.toContain('not-the-key');

    const down = await runCli(['pool', 'scrapers'], { ...env, BROWSER_API_URL: 'http://127.0.0.1:9' });
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('cannot reach http://127.0.0.1:9: ECONNREFUSED');
  });

  it('bad usage and configuration exit 2; --help has examples', async () => {
    expect((await runCli(['pool'], env)).code).toBe(2);
    expect((await runCli(['pool', 'x', '-o', 'yaml'], env)).code).toBe(2);
    // A dot-segment would make the lookup another path of the service, with the key.
    const dots = await runCli(['pool', '..'], env);
    expect(dots.code).toBe(2);
    expect(dots.stderr).toContain('".." is not a pool id or name: it is dots only, which a URL reads as a path step');
    const noKey = await runCli(['pool', 'x'], { BROWSER_API_URL: sim.url });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('invalid configuration: upstream.api_key');
    const help = await runCli(['pool', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
  });
});
