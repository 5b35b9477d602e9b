// config/bridge.schema.json: generated from the one declaration of the keys (config-keys.ts) and
// committed for editors. It cannot drift from the declaration (regenerate with `npm run schema`), it
// accepts every configuration the repository ships, and it refuses what the loader refuses by shape.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { configJsonSchema, configJsonSchemaText } from '../../../src/config/json-schema.js';

const configDir = resolve(fileURLToPath(import.meta.url), '../../../../config');
const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(configJsonSchema());

function embedded(manifest: string): unknown {
  const docs = parseAllDocuments(readFileSync(resolve(configDir, manifest), 'utf8')).map(
    (d) => d.toJS() as { kind?: string; data?: Record<string, string> } | null,
  );
  return parse(docs.find((d) => d?.kind === 'ConfigMap')!.data!['bridge.yaml']!) as unknown;
}

describe('the configuration JSON Schema', () => {
  it('is the committed config/bridge.schema.json (npm run schema regenerates it)', async () => {
    await expect(configJsonSchemaText()).toMatchFileSnapshot(resolve(configDir, 'bridge.schema.json'));
  });

  it('is named by the example file, so editors complete and check it', () => {
    const example = readFileSync(resolve(configDir, 'bridge.example.yaml'), 'utf8');
    expect(example.split('\n')[0]).toBe('# yaml-language-server: $schema=./bridge.schema.json');
  });

  it.each([
    ['bridge.example.yaml', () => parse(readFileSync(resolve(configDir, 'bridge.example.yaml'), 'utf8')) as unknown],
    ['kubernetes/sidecar.yaml', () => embedded('kubernetes/sidecar.yaml')],
    ['kubernetes/replicas.yaml', () => embedded('kubernetes/replicas.yaml')],
  ])('accepts %s', (_name, read) => {
    expect(validate(read()), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['durations, sizes and counts written as the parsers accept them', { upstream: { idle_timeout: '1m30s' } }],
    ['a size with a unit', { spool: { max_bytes: '256MiB', commit_max_records: '5000' } }],
    ['an environment reference for a non-text value', { exporter: { concurrency: '${env:CONCURRENCY:-4}' } }],
    ['a session as an id or a mapping', { sessions: ['s1', { id: 's2', start: 42 }] }],
    ['listen off and workers auto', { listen: false, workers: 'auto', memory_limit: 'off' }],
  ])('accepts %s', (_name, doc) => {
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['an unknown key', { upstream: { urll: 'https://x' } }],
    ['a misspelt enum value', { exporter: { protocol: 'http' } }],
    ['a section written as a scalar', { spool: 5 }],
    ['a duration without a unit it knows', { shutdown: { grace: '10 seconds' } }],
    ['a count out of range', { exporter: { concurrency: 65 } }],
    ['an unknown key in a session entry', { sessions: [{ id: 's', pol: 'p' }] }],
  ])('refuses %s', (_name, doc) => {
    expect(validate(doc)).toBe(false);
  });
});
