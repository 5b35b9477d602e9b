// The image's health check: where it asks, read as `run` reads it: BRIDGE_LISTEN (including "off"),
// else the configuration file's `listen:`, else the default.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configArgument, healthTarget } from '../../../src/cli/healthcheck.js';

const dir = mkdtempSync(join(tmpdir(), 'healthcheck-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A configuration file holding `yaml`. */
function file(name: string, yaml: string): string {
  const path = join(dir, name);
  writeFileSync(path, yaml);
  return path;
}

describe('healthTarget', () => {
  it.each([
    [undefined, { kind: 'url', url: 'http://127.0.0.1:9464/healthz' }],
    ['0.0.0.0:9464', { kind: 'url', url: 'http://127.0.0.1:9464/healthz' }],
    [':9000', { kind: 'url', url: 'http://127.0.0.1:9000/healthz' }],
    ['[::]:9464', { kind: 'url', url: 'http://[::1]:9464/healthz' }],
    ['[::1]:9464', { kind: 'url', url: 'http://[::1]:9464/healthz' }],
    ['10.0.0.7:9464', { kind: 'url', url: 'http://10.0.0.7:9464/healthz' }],
    ['off', { kind: 'off', why: 'BRIDGE_LISTEN=off' }],
    ['none', { kind: 'off', why: 'BRIDGE_LISTEN=none' }],
    // Blank is unset (config/env-values.ts), as `run` reads it: the default address, not off.
    ['', { kind: 'url', url: 'http://127.0.0.1:9464/healthz' }],
    [' ', { kind: 'url', url: 'http://127.0.0.1:9464/healthz' }],
    [
      '9464',
      {
        kind: 'invalid',
        reason:
          'BRIDGE_LISTEN: must be host:port, not a port alone (got "9464"): write "127.0.0.1:9464", or "0.0.0.0:9464" for every interface',
      },
    ],
  ] as const)('BRIDGE_LISTEN=%s', (listen, target) => {
    expect(healthTarget({ BRIDGE_LISTEN: listen })).toEqual(target);
  });

  it('reads `listen:` from the file BRIDGE_CONFIG or --config names; BRIDGE_LISTEN overrides it', () => {
    const listen = file('listen.yaml', 'listen: 0.0.0.0:9555\n');
    const other = file('other.yaml', 'listen: 127.0.0.2:9666\n');
    const url = (port: number, host = '127.0.0.1') => ({ kind: 'url', url: `http://${host}:${port}/healthz` });
    expect(healthTarget({ BRIDGE_CONFIG: listen })).toEqual(url(9555));
    expect(healthTarget({ BRIDGE_CONFIG: ` ${listen} ` })).toEqual(url(9555));
    expect(healthTarget({}, listen)).toEqual(url(9555));
    // --config wins over BRIDGE_CONFIG, as for `run`.
    expect(healthTarget({ BRIDGE_CONFIG: other }, listen)).toEqual(url(9555));
    expect(healthTarget({ BRIDGE_CONFIG: listen, BRIDGE_LISTEN: '127.0.0.1:9777' })).toEqual(url(9777));
    expect(healthTarget({ BRIDGE_CONFIG: listen, BRIDGE_LISTEN: ' ' })).toEqual(url(9555));
    // A file without `listen:`: the default.
    expect(healthTarget({ BRIDGE_CONFIG: file('none.yaml', 'start: latest\n') })).toEqual(url(9464));
    // Substituted as `run` substitutes it.
    expect(healthTarget({ BRIDGE_CONFIG: file('var.yaml', 'listen: ${ADDR}\n'), ADDR: '[::]:9888' })).toEqual(
      url(9888, '[::1]'),
    );
  });

  it('`listen: ""` (or off, or false) in the file: the HTTP surface is off, and the file is named', () => {
    for (const yaml of ['listen: ""\n', 'listen: off\n', 'listen: false\n']) {
      const path = file('off.yaml', yaml);
      const t = healthTarget({ BRIDGE_CONFIG: path });
      expect(t.kind).toBe('off');
      expect(t.kind === 'off' && t.why).toMatch(new RegExp(`^listen: .* in ${path}$`));
    }
    expect(healthTarget({ BRIDGE_CONFIG: file('off2.yaml', 'listen: ""\n') })).toEqual({
      kind: 'off',
      why: `listen: "" in ${join(dir, 'off2.yaml')}`,
    });
    // The variable still overrides a file that turned it off.
    expect(healthTarget({ BRIDGE_CONFIG: join(dir, 'off2.yaml'), BRIDGE_LISTEN: ':9000' })).toEqual({
      kind: 'url',
      url: 'http://127.0.0.1:9000/healthz',
    });
  });

  it('a file it cannot read, or a `listen:` that is not host:port, is a failed check that says why', () => {
    const missing = healthTarget({ BRIDGE_CONFIG: join(dir, 'missing.yaml') });
    expect(missing).toMatchObject({ kind: 'invalid', reason: expect.stringMatching(/ENOENT.*missing\.yaml/) });
    expect(healthTarget({ BRIDGE_CONFIG: file('bad.yaml', 'listen: 9464\n') })).toEqual({
      kind: 'invalid',
      reason:
        'listen: must be host:port, not a port alone (got 9464): write "127.0.0.1:9464", or "0.0.0.0:9464" for every interface',
    });
  });

  it('a directory or a pipe named as the file fails at once, saying so (a pipe was read until killed)', () => {
    const fifo = join(dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    for (const [path, what] of [
      [dir, 'a directory'],
      [fifo, 'not a regular file'],
    ] as const)
      expect(healthTarget({ BRIDGE_CONFIG: path })).toEqual({
        kind: 'invalid',
        reason: `BRIDGE_CONFIG: ${path} is ${what}; the health check reads only a regular file (set BRIDGE_LISTEN instead)`,
      });
  });
});

describe('configArgument', () => {
  it.each([
    [[], undefined],
    [['--config', '/etc/b.yaml'], '/etc/b.yaml'],
    [['-c', '/etc/b.yaml'], '/etc/b.yaml'],
    [['--config=/etc/b.yaml'], '/etc/b.yaml'],
  ] as const)('%j', (args, path) => {
    expect(configArgument(args)).toBe(path);
  });
});
