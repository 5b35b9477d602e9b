// The image's health check: where it asks, from BRIDGE_LISTEN, including "off".
import { describe, expect, it } from 'vitest';
import { healthTarget } from '../../../src/cli/healthcheck.js';

describe('healthTarget', () => {
  it.each([
    [undefined, { kind: 'url', url: 'http://127.0.0.1:9464/healthz' }],
    ['0.0.0.0:9464', { kind: 'url', url: 'http://127.0.0.1:9464/healthz' }],
    [':9000', { kind: 'url', url: 'http://127.0.0.1:9000/healthz' }],
    ['[::]:9464', { kind: 'url', url: 'http://[::1]:9464/healthz' }],
    ['[::1]:9464', { kind: 'url', url: 'http://[::1]:9464/healthz' }],
    ['10.0.0.7:9464', { kind: 'url', url: 'http://10.0.0.7:9464/healthz' }],
    ['off', { kind: 'off' }],
    ['none', { kind: 'off' }],
    // Blank is unset (config/env-values.ts), as `run` reads it: the default address, not off.
    ['', { kind: 'url', url: 'http://127.0.0.1:9464/healthz' }],
    [' ', { kind: 'url', url: 'http://127.0.0.1:9464/healthz' }],
    ['9464', { kind: 'invalid', reason: 'BRIDGE_LISTEN is not host:port: "9464"' }],
  ] as const)('%s', (listen, target) => {
    expect(healthTarget(listen)).toEqual(target);
  });
});
