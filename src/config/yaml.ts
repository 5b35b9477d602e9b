// The YAML parser, loaded on first use: a daemon configured by its environment alone (a sidecar)
// never reads YAML, and the parser is about 9 MiB of resident memory it would otherwise carry.
// Loaded synchronously (the yaml package ships CommonJS too) so configuration loading stays sync.
import { createRequire } from 'node:module';

type Parse = (text: string) => unknown;
let parse: Parse | undefined;

/** The document as plain values; throws on invalid YAML, and on an alias that contains itself. */
export function parseYaml(text: string): unknown {
  parse ??= (createRequire(import.meta.url)('yaml') as { parse: Parse }).parse;
  const doc = parse(text);
  refuseCycles(doc, '', []);
  return doc;
}

/**
 * YAML lets an alias name the node it sits in (`x: &x {y: *x}`), and the parser hands back an
 * object that contains itself. Every later walk of the configuration (substitution, the shape
 * check) then recursed until "Maximum call stack size exceeded": a bare error and exit code 1
 * instead of a line naming the file and the key, exit 2.
 */
function refuseCycles(v: unknown, path: string, ancestors: object[]): void {
  if (typeof v !== 'object' || v === null) return;
  if (ancestors.includes(v))
    throw new Error(`the alias at ${path || 'the top'} refers to a mapping or list that contains it`);
  ancestors.push(v);
  const entries = Array.isArray(v) ? v.map((item, i) => [`[${i}]`, item] as const) : Object.entries(v);
  for (const [k, item] of entries)
    refuseCycles(item, Array.isArray(v) ? `${path}${k}` : path ? `${path}.${k}` : k, ancestors);
  ancestors.pop();
}
