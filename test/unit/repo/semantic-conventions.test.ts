// Every attribute and event name the bridge emits (records: src/mapping; spans: src/traces) against
// the OpenTelemetry semantic conventions: a name the conventions define is used as they define it
// and is not one they deprecated; any other name is a deliberate departure: in the `browser.*`
// namespace and documented (docs/mapping.md "Semantic conventions", docs/traces.md).
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as stable from '@opentelemetry/semantic-conventions';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const NAME = /'((?:browser|http|url|server|error|exception|code|log)\.[a-z0-9_.]+)'/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Names written as string literals in the code that builds records and spans; prefixes (ending in '.') left out. */
const emitted = [
  ...new Set(
    ['src/mapping', 'src/traces'].flatMap((d) =>
      sources(join(ROOT, d)).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(NAME)].map((m) => m[1]!)),
    ),
  ),
]
  .filter((n) => !n.endsWith('.'))
  .sort();

const conventional = new Set<string>();
for (const mod of [stable, incubating] as Array<Record<string, unknown>>)
  for (const [key, value] of Object.entries(mod))
    if ((key.startsWith('ATTR_') || key.startsWith('EVENT_')) && typeof value === 'string') conventional.add(value);

/** Names the package's declarations mark @deprecated. */
function deprecatedNames(): Set<string> {
  const require = createRequire(import.meta.url);
  const dist = dirname(require.resolve('@opentelemetry/semantic-conventions'));
  const out = new Set<string>();
  for (const file of readdirSync(dist).filter((f) => f.endsWith('_attributes.d.mts') || f.endsWith('_events.d.mts'))) {
    const text = readFileSync(join(dist, file), 'utf8');
    for (const m of text.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*declare const (?:ATTR|EVENT)_\w+: "([^"]+)"/g))
      if (m[1]!.includes('@deprecated')) out.add(m[2]!);
  }
  return out;
}

const docs = ['docs/mapping.md', 'docs/traces.md'].map((d) => readFileSync(join(ROOT, d), 'utf8')).join('\n');

describe('semantic conventions', () => {
  it('finds the names (the scan works)', () => {
    expect(emitted).toContain('http.request.method');
    expect(emitted).toContain('browser.web_vital.value');
    expect(conventional.has('browser.web_vital.value')).toBe(true);
  });

  it('uses no name the conventions deprecated', () => {
    const deprecated = deprecatedNames();
    expect(deprecated.has('code.filepath')).toBe(true);
    expect(emitted.filter((n) => deprecated.has(n))).toEqual([]);
  });

  it('keeps every name outside the conventions in browser.*', () => {
    expect(emitted.filter((n) => !conventional.has(n) && !n.startsWith('browser.'))).toEqual([]);
  });

  it('documents every departure', () => {
    expect(emitted.filter((n) => !conventional.has(n) && !docs.includes(`\`${n}\``))).toEqual([]);
  });
});
