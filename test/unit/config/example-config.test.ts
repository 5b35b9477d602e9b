// config/bridge.example.yaml: it loads through loadConfig, it mentions every key declared (config-keys.ts),
// and the values it shows as defaults are the defaults. Also the configuration embedded in the
// Kubernetes example's ConfigMap.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { buildConfig, loadConfig } from '../../../src/config/load-config.js';
import type { BridgeConfig } from '../../../src/config/schema.js';
import { CONFIG_FILE, type KeyNode } from '../../../src/config/config-keys.js';

const file = resolve(fileURLToPath(import.meta.url), '../../../../config/bridge.example.yaml');
const text = readFileSync(file, 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'bridge-example-'));
const keyFile = join(dir, 'key');
writeFileSync(keyFile, 'k\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every key the declaration has, as paths (sections by their keys). */
function leafPaths(node: KeyNode, path: string): string[] {
  if (node.kind !== 'section') return [path];
  return Object.entries(node.keys).flatMap(([k, child]) => leafPaths(child, path ? `${path}.${k}` : k));
}
const ALL_KEYS = leafPaths(CONFIG_FILE, '');

function has(doc: unknown, path: string): boolean {
  let node = doc;
  for (const part of path.split('.')) {
    if (typeof node !== 'object' || node === null || !(part in node)) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return true;
}

/** Empty filter lists mean "not set" (mapping/filters.ts); compare them as absent. */
function normalized(c: BridgeConfig): unknown {
  const filters = Object.fromEntries(Object.entries(c.mapping.filters).filter(([, v]) => (v as string[]).length > 0));
  return { ...c, configPath: undefined, mapping: { ...c.mapping, filters } };
}

describe('config/bridge.example.yaml', () => {
  it('loads through loadConfig (with the key file it names replaced by one that exists)', () => {
    const c = loadConfig(file, { BROWSER_API_KEY_FILE: keyFile });
    expect(c.upstream.url).toBe('https://api.example.com');
    expect(c.sessions.map((s) => s.id)).toEqual(['sess_0123456789abcdef', 'sess_fedcba9876543210']);
    expect(c.sessions[1]).toMatchObject({
      pool: 'checkout-agents',
      start: 'oldest',
      attributes: { 'agent.name': 'checkout-bot' },
    });
  });

  it('shows every key of the schema, set or as a commented line', () => {
    const doc = parse(text) as unknown;
    const missing = ALL_KEYS.filter((path) => {
      if (has(doc, path)) return false;
      const leaf = path.split('.').at(-1)!;
      return !new RegExp(`^\\s*#\\s*${leaf}:`, 'm').test(text);
    });
    expect(missing).toEqual([]);
  });

  it('states the defaults truthfully: apart from the example values, loading it equals loading nothing', () => {
    const env = { BROWSER_API_KEY_FILE: keyFile };
    const example = loadConfig(file, env);
    const defaults = buildConfig(
      { upstream: { url: 'https://api.example.com' }, sessions: parse(text).sessions as unknown },
      env,
    );
    expect(normalized(example)).toEqual(normalized(defaults));
  });

  it('the Kubernetes sidecar ConfigMap holds a configuration that loads', () => {
    const manifest = readFileSync(resolve(file, '../kubernetes/sidecar.yaml'), 'utf8');
    const docs = parseAllDocuments(manifest).map(
      (d) => d.toJS() as { kind?: string; data?: Record<string, string> } | null,
    );
    const embedded = docs.find((d) => d?.kind === 'ConfigMap')?.data?.['bridge.yaml'];
    expect(embedded).toBeDefined();
    const path = join(dir, 'sidecar-bridge.yaml');
    writeFileSync(path, embedded!);
    const c = loadConfig(path, { BROWSER_API_URL: 'https://api.example.com', BROWSER_API_KEY_FILE: keyFile });
    expect(c.shutdownGraceMs).toBe(20_000);
  });

  it('the Kubernetes replicas ConfigMap holds a configuration that loads and selects the shared store', () => {
    const manifest = readFileSync(resolve(file, '../kubernetes/replicas.yaml'), 'utf8');
    const docs = parseAllDocuments(manifest).map(
      (d) => d.toJS() as { kind?: string; data?: Record<string, string> } | null,
    );
    const embedded = docs.find((d) => d?.kind === 'ConfigMap')?.data?.['bridge.yaml'];
    expect(embedded).toBeDefined();
    const path = join(dir, 'replicas-bridge.yaml');
    const pw = join(dir, 'db-password');
    writeFileSync(pw, 'pw\n');
    writeFileSync(path, embedded!.replace('/etc/bridge-secrets/db-password', pw));
    const c = loadConfig(path, {
      BROWSER_API_URL: 'https://api.example.com',
      BROWSER_API_KEY_FILE: keyFile,
      BRIDGE_REPLICA_ID: 'bridge-abc',
    });
    expect(c.store).toEqual({
      kind: 'postgres',
      url: 'postgres://bridge@bridge-postgres:5432/bridge',
      password: 'pw',
      leaseMs: 10_000,
    });
    expect(c.resource.instanceId).toBe('bridge-abc');
  });

  it('the two Kubernetes manifests can be applied in one namespace: no kind and name appears in both', () => {
    const named = (f: string): string[] =>
      parseAllDocuments(readFileSync(resolve(file, `../kubernetes/${f}`), 'utf8'))
        .map((d) => d.toJS() as { kind?: string; metadata?: { name?: string } } | null)
        .filter((d) => d?.kind && d.metadata?.name)
        .map((d) => `${d!.kind}/${d!.metadata!.name}`);
    const sidecar = named('sidecar.yaml');
    const replicas = named('replicas.yaml');
    expect(sidecar).toContain('ConfigMap/browser-telemetry-bridge-sidecar');
    expect(replicas).toContain('Secret/browser-telemetry-bridge-replicas');
    expect(sidecar.filter((n) => replicas.includes(n))).toEqual([]);
  });

  it('the sidecar ConfigMap runs without ingest workers, as its memory figures assume', () => {
    const docs = parseAllDocuments(readFileSync(resolve(file, '../kubernetes/sidecar.yaml'), 'utf8')).map(
      (d) => d.toJS() as { kind?: string; data?: Record<string, string> } | null,
    );
    expect(parse(docs.find((d) => d?.kind === 'ConfigMap')!.data!['bridge.yaml']!)).toMatchObject({ workers: 0 });
  });
});
