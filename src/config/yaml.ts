// The YAML parser, loaded on first use: a daemon configured by its environment alone (a sidecar)
// never reads YAML, and the parser is about 9 MiB of resident memory it would otherwise carry.
// Loaded synchronously (the yaml package ships CommonJS too) so configuration loading stays sync.
import { createRequire } from 'node:module';

type Parse = (text: string) => unknown;
let parse: Parse | undefined;

export function parseYaml(text: string): unknown {
  parse ??= (createRequire(import.meta.url)('yaml') as { parse: Parse }).parse;
  return parse(text);
}
