// The settings a stranger reads about are the settings the code has, both ways:
//   - every environment variable the bridge reads (BRIDGE_*, BROWSER_*, OTEL_*, LOG_LEVEL) is named
//     in README.md or docs/, and every such variable the documents name is read by the code (an
//     OTLP variable's _LOGS_/_TRACES_ form counts when its generic form is read: the code builds
//     those names, config/otlp-endpoint.ts signalVar);
//   - every file key of README's configuration table is a key of the configuration file
//     (src/config/config-keys.ts; that the example file shows every key is example-config.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_FILE, type KeyNode } from '../../../src/config/config-keys.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const read = (f: string): string => readFileSync(join(ROOT, f), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

const NAME = '(?:BRIDGE|BROWSER|OTEL)_[A-Z0-9_]*[A-Z0-9]|LOG_LEVEL';

/** Variables the code reads: quoted names, and `env.NAME` / `env['NAME']`. */
function readByCode(): Set<string> {
  const found = new Set<string>();
  const quoted = new RegExp(`['"\`](${NAME})['"\`]`, 'g');
  const member = new RegExp(`env(?:\\?)?\\.(${NAME})\\b`, 'g');
  for (const f of sources('src')) {
    const text = read(f);
    for (const m of text.matchAll(quoted)) found.add(m[1]!);
    for (const m of text.matchAll(member)) found.add(m[1]!);
  }
  return found;
}

const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) => f.endsWith('.md'));

/** Variables the documents name (in backticks or code blocks alike). */
function named(): Map<string, string> {
  const where = new Map<string, string>();
  const re = new RegExp(`\\b(${NAME})\\b`, 'g');
  for (const f of DOCS) for (const m of read(f).matchAll(re)) if (!where.has(m[1]!)) where.set(m[1]!, f);
  return where;
}

const code = readByCode();
const docs = named();

describe('environment variables', () => {
  it('finds both sides', () => {
    expect(code.has('BROWSER_API_URL')).toBe(true);
    expect(docs.has('BRIDGE_STATE_DIR')).toBe(true);
  });

  it('every variable the code reads is documented', () => {
    expect([...code].filter((v) => !docs.has(v)).sort()).toEqual([]);
  });

  it('every variable the documents name is read by the code', () => {
    const generic = (v: string): string => v.replace(/^OTEL_EXPORTER_OTLP_(?:LOGS|TRACES)_/, 'OTEL_EXPORTER_OTLP_');
    const unknown = [...docs].filter(([v]) => !code.has(v) && !code.has(generic(v))).map(([v, f]) => `${v} (${f})`);
    expect(unknown.sort()).toEqual([]);
  });
});

/** Whether a dotted path is a key of the configuration file. */
function isKey(path: string): boolean {
  let node: KeyNode = CONFIG_FILE;
  for (const part of path.split('.')) {
    if (node.kind === 'list' && node.items.kind === 'either') node = node.items;
    if (node.kind === 'either') node = node.options.find((o) => o.kind === 'section') ?? node;
    if (node.kind !== 'section' || !(part in node.keys)) return false;
    node = node.keys[part]!;
  }
  return true;
}

describe("README's configuration table", () => {
  const rows = read('README.md')
    .split('\n')
    .filter((l) => /^\| `(?:BRIDGE_|BROWSER_|OTEL_|HTTPS_PROXY|LOG_LEVEL)/.test(l))
    .map((l) => l.split('|').map((c) => c.trim()));
  // Column 2 lists file keys; `key_file` after `exporter.tls.cert_file` is that section's.
  const keys = rows.flatMap((cells) => {
    const names = [...(cells[2] ?? '').matchAll(/`([a-z_.]+)`/g)].map((m) => m[1]!);
    let parent = '';
    return names.map((n) => {
      if (n.includes('.')) {
        parent = n.slice(0, n.lastIndexOf('.'));
        return n;
      }
      return parent ? `${parent}.${n}` : n;
    });
  });

  it('has rows', () => expect(keys.length).toBeGreaterThan(20));

  it('names only keys the configuration file has', () => {
    expect(keys.filter((k) => !isKey(k))).toEqual([]);
  });
});

describe('the control API error codes', () => {
  it('every code the HTTP surface answers with is listed in docs/operations.md', () => {
    const codes = new Set<string>();
    for (const f of sources('src/server')) {
      for (const m of read(f).matchAll(/(?:\b[45]\d\d,\s*|code:\s*)'([a-z_]+)'/g)) codes.add(m[1]!);
      // new HttpError(404, 'unknown_session', …) spans lines after Prettier.
      for (const m of read(f).matchAll(/HttpError\(\s*\d{3},\s*'([a-z_]+)'/g)) codes.add(m[1]!);
    }
    const ops = read('docs/operations.md');
    const list = ops.slice(ops.indexOf('Errors use the session service'), ops.indexOf('### Following a session'));
    expect(codes.size).toBeGreaterThan(8);
    expect([...codes].filter((c) => !list.includes(`\`${c}\``)).sort()).toEqual([]);
  });
});
