// The demo's daemon sees none of the bridge's configuration from the shell (it would point the
// daemon at a real collector, a database that is not running, sessions that do not exist).
import { describe, expect, it } from 'vitest';
import { demoEnvironment } from '../../../../src/devkit/demo/demo-environment.js';

describe('demoEnvironment', () => {
  const own = { BROWSER_API_URL: 'http://127.0.0.1:1', BRIDGE_LISTEN: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x' };
  const cases: Array<[string, Record<string, string | undefined>, Record<string, string>, string[]]> = [
    [
      'a clean shell passes through, the demo’s own settings added',
      { PATH: '/bin', HOME: '/h' },
      { PATH: '/bin', HOME: '/h', ...own },
      [],
    ],
    [
      'the README’s real-service block is left out and named',
      {
        PATH: '/bin',
        OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'https://collector/v1/logs',
        BRIDGE_STORE_URL: 'postgres://db',
        BRIDGE_SESSIONS: 'sess_123',
        BRIDGE_LISTEN: '127.0.0.1:9464',
        BROWSER_API_KEY_FILE: '/run/secrets/k',
      },
      { PATH: '/bin', ...own },
      [
        'BRIDGE_LISTEN',
        'BRIDGE_SESSIONS',
        'BRIDGE_STORE_URL',
        'BROWSER_API_KEY_FILE',
        'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT',
      ],
    ],
    [
      'proxies in either case, which would carry loopback traffic away',
      { https_proxy: 'http://p:3128', HTTP_PROXY: 'http://p:3128', no_proxy: 'x' },
      own,
      ['HTTP_PROXY', 'https_proxy', 'no_proxy'],
    ],
    [
      'LOG_LEVEL and other tools’ variables stay',
      { LOG_LEVEL: 'debug', PGPASSWORD: 'p', BRIDGEWAY: '1' },
      { LOG_LEVEL: 'debug', PGPASSWORD: 'p', BRIDGEWAY: '1', ...own },
      [],
    ],
    ['unset variables are no variables', { BRIDGE_SESSIONS: undefined }, own, []],
  ];
  it.each(cases)('%s', (_name, parent, env, ignored) => {
    expect(demoEnvironment(parent, own)).toEqual({ env, ignored });
  });
});
