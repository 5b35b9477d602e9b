// The folder tree is the pipeline, one way (docs/design.md, "The tree"). This test reads every
// relative import in src/ (type-only imports included: a type cycle is still two ideas tangled) and
// fails on an import cycle between files, or on an import that runs against the layer order below.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/**
 * The rooms of src/, lowest first. A room may import its own files and the rooms before it, never
 * one after it. The devkit (simulator, receiver, demo) comes after every room of the daemon, so the
 * daemon can never depend on it; only the CLI, which ships its commands, sits above.
 */
export const LAYERS = [
  'vocabulary', // the words every layer shares: categories, event types, the record, facts; imports nothing
  'util',
  'config',
  'upstream', // the session service's wire: HTTP client, envelope validation, archive, browser pools
  'stream', // SSE frames → sequenced items (subscriber state machine)
  'mapping', // event → log record (pure)
  'traces', // events → spans: navigations, requests, api calls (pure, serializable state)
  'wire', // the record's bytes: protobuf encoding, request framing, OTLP/JSON, segment framing
  'store', // the durable spool and checkpoints (SQLite, PostgreSQL)
  'export', // delivery of spooled bytes to the collector
  'observe', // facts → metrics and log lines
  'session', // one session's path, stream → spool
  'ingest', // worker threads running sessions
  'cluster', // replicas on the shared store: leases, placement, ownership
  'discovery', // finding sessions by a selector in the service's list, polled once per interval per cluster
  'daemon', // composition root, supervisor, reload
  'server', // HTTP surface
  'devkit', // simulator, receiver, demo
  'cli',
] as const;

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Relative imports and re-exports of a file, static and dynamic, as src-relative paths. */
export function importsOf(file: string, text: string): Edge[] {
  const out: Edge[] = [];
  const re =
    /(?:^|\n)\s*(import|export)\s+(type\s+)?[^;'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(re)) {
    const spec = (m[3] ?? m[4]) as string;
    const to = relative(SRC, resolve(dirname(file), spec)).replace(/\.js$/, '.ts');
    out.push({ from: relative(SRC, file), to, typeOnly: Boolean(m[2]) });
  }
  return out;
}

const roomOf = (file: string): string => (file.includes(sep) ? file.split(sep)[0]! : '.');

function graph(): Edge[] {
  return sourceFiles(SRC).flatMap((f) => importsOf(f, readFileSync(f, 'utf8')));
}

/** Strongly connected components of more than one file (Tarjan). */
export function cycles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let i = 0;
  const visit = (v: string): void => {
    index.set(v, i);
    low.set(v, i++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** Imports from a room to one that comes later in LAYERS (or to a room LAYERS does not name). */
export function againstTheOrder(edges: readonly Edge[]): string[] {
  const rank = new Map<string, number>(LAYERS.map((l, n) => [l, n]));
  const out: string[] = [];
  for (const e of edges) {
    const a = roomOf(e.from);
    const b = roomOf(e.to);
    if (a === b) continue;
    const ra = rank.get(a);
    const rb = rank.get(b);
    if (ra === undefined || rb === undefined || rb > ra) out.push(`${e.from} → ${e.to}${e.typeOnly ? ' (type)' : ''}`);
  }
  return out;
}

describe('the import graph of src/', () => {
  const edges = graph();

  it('reads a real graph', () => {
    // A broken reader would make the two tests below pass vacuously.
    expect(edges.length).toBeGreaterThan(300);
    expect(new Set(edges.flatMap((e) => [roomOf(e.from), roomOf(e.to)]))).toEqual(new Set(LAYERS));
  });

  it('has no import cycle between files', () => {
    expect(cycles(edges)).toEqual([]);
  });

  it('imports only from the same room or from rooms earlier in the pipeline', () => {
    expect(againstTheOrder(edges)).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it('find a cycle and an import against the order', () => {
    const e = (from: string, to: string): Edge => ({ from, to, typeOnly: false });
    expect(
      cycles([e('a/x.ts', 'a/y.ts'), e('a/y.ts', 'a/z.ts'), e('a/z.ts', 'a/x.ts'), e('a/z.ts', 'b/w.ts')]),
    ).toEqual([['a/x.ts', 'a/y.ts', 'a/z.ts']]);
    expect(
      againstTheOrder([
        e('store/spool.ts', 'export/delivery.ts'),
        e('export/delivery.ts', 'store/spool.ts'),
        e('nowhere/x.ts', 'util/y.ts'),
      ]),
    ).toEqual(['store/spool.ts → export/delivery.ts', 'nowhere/x.ts → util/y.ts']);
  });

  it('read static, type-only, re-export and dynamic imports', () => {
    const f = join(SRC, 'daemon', 'x.ts');
    const text =
      "import type { A } from '../store/a.js';\nimport { B } from './b.js';\nexport { C } from '../wire/c.js';\nconst m = await import('../store/pg-store.js');\n";
    expect(importsOf(f, text)).toEqual([
      { from: join('daemon', 'x.ts'), to: join('store', 'a.ts'), typeOnly: true },
      { from: join('daemon', 'x.ts'), to: join('daemon', 'b.ts'), typeOnly: false },
      { from: join('daemon', 'x.ts'), to: join('wire', 'c.ts'), typeOnly: false },
      { from: join('daemon', 'x.ts'), to: join('store', 'pg-store.ts'), typeOnly: false },
    ]);
  });
});
