import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/config/load-config.js';
import { parseStoreConfig, replicaId } from '../../../src/config/store-config.js';
import { displayStoreUrl } from '../../../src/mapping/display-url.js';

const dir = mkdtempSync(join(tmpdir(), 'store-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pwFile = join(dir, 'pw');
writeFileSync(pwFile, 's3cret\n');

const base = { BROWSER_API_URL: 'https://api.example.com', BROWSER_API_KEY: 'k' };

describe('store configuration', () => {
  it.each([
    ['nothing: the embedded SQLite store', {}, {}, { kind: 'sqlite' }],
    [
      'a file URL',
      { store: { url: 'postgres://b@db/bridge' } },
      {},
      { kind: 'postgres', url: 'postgres://b@db/bridge', leaseMs: 10_000 },
    ],
    [
      'the environment wins over the file',
      { store: { url: 'postgres://file@db/x' } },
      { BRIDGE_STORE_URL: 'postgresql://env@db/y' },
      { kind: 'postgres', url: 'postgresql://env@db/y' },
    ],
    [
      'a password file (its trailing newline dropped)',
      {},
      { BRIDGE_STORE_URL: 'postgres://b@db/x', BRIDGE_STORE_PASSWORD_FILE: pwFile },
      { password: 's3cret' },
    ],
    ['a lease from the file', { store: { url: 'postgres://b@db/x', lease: '20s' } }, {}, { leaseMs: 20_000 }],
    [
      'a lease from the environment',
      {},
      { BRIDGE_STORE_URL: 'postgres://b@db/x', BRIDGE_STORE_LEASE: '3s' },
      { leaseMs: 3000 },
    ],
  ])('%s', (_name, raw, env, want) => {
    expect(parseStoreConfig(raw as Record<string, unknown>, env)).toMatchObject(want);
  });

  it.each([
    [
      'a URL of another database',
      {},
      { BRIDGE_STORE_URL: 'mysql://db/x' },
      /^BRIDGE_STORE_URL: must be a postgres:\/\/ URL \(got a mysql: URL\)/,
    ],
    ['not a URL', { store: { url: 'db:5432' } }, {}, /^store\.url: must be a postgres:\/\/ URL/],
    [
      'a password file that does not exist',
      {},
      { BRIDGE_STORE_URL: 'postgres://b@db/x', BRIDGE_STORE_PASSWORD_FILE: join(dir, 'nope') },
      /^BRIDGE_STORE_PASSWORD_FILE: .*nope does not exist$/,
    ],
    ['a lease under a second', { store: { url: 'postgres://b@db/x', lease: '500ms' } }, {}, /^store\.lease: /],
    ['an unknown key', { store: { uri: 'postgres://b@db/x' } }, {}, /^store\.uri: unknown key/],
  ])('refuses %s in one line naming the key', (_name, raw, env, message) => {
    const err = (() => {
      try {
        parseStoreConfig(raw, env);
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(err?.name).toBe('ConfigError');
    expect(err?.message).toMatch(message);
  });

  it('names the replica: BRIDGE_REPLICA_ID, else host name + pid; refuses a bad name', () => {
    expect(replicaId({ BRIDGE_REPLICA_ID: 'bridge-0' })).toEqual({ id: 'bridge-0', explicit: true });
    expect(replicaId({}).id).toMatch(new RegExp(`-${process.pid}$`));
    expect(() => replicaId({ BRIDGE_REPLICA_ID: 'a b' })).toThrow(/letters, digits/);
  });

  it('the replica is the service.instance.id of what it exports when named or sharing a store', () => {
    expect(buildConfig({}, { ...base, BRIDGE_REPLICA_ID: 'r7' }).resource.instanceId).toBe('r7');
    expect(buildConfig({}, { ...base, BRIDGE_STORE_URL: 'postgres://b@db/x' }).resource.instanceId).toMatch(/-\d+$/);
    expect(buildConfig({}, base).resource.instanceId).toBeUndefined();
  });

  it.each([
    ['in the user-info', 'postgres://bridge:hunter2@db:5432/bridge', 'postgres://bridge:REDACTED@db:5432/bridge'],
    [
      'in the query string (pg accepts it there too)',
      'postgres://bridge@db:5432/bridge?password=hunter2&sslmode=require',
      'postgres://bridge@db:5432/bridge?password=REDACTED&sslmode=require',
    ],
    ['nowhere', 'postgres://bridge@db/bridge', 'postgres://bridge@db/bridge'],
  ])('a store URL is shown with its user and without its password %s', (_where, url, shown) => {
    expect(displayStoreUrl(url)).toBe(shown);
  });
});
