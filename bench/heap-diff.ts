// What grew between two heap snapshots of one process, and what holds it: the tool that found the
// leaks a minutes-long run shows and a 60 s benchmark does not (docs/benchmarks.md "Memory over
// time").
//
//   npx tsx bench/heap-diff.ts BEFORE.heapsnapshot AFTER.heapsnapshot [--top 25] [--holders NAME] [--paths 3]
//
// Take the snapshots from a running bridge: start it with `--heapsnapshot-signal=SIGUSR2
// --diagnostic-dir=DIR` (the benchmark passes BENCH_BRIDGE_NODE_FLAGS to the bridge alone), then
// `kill -USR2 <pid>` twice, minutes apart. Writing a snapshot costs the process about its heap's
// size in RSS, so a run snapshotted is not one to read RSS from.
//
// Prints the node kinds (type and constructor name) whose self size grew most, with their counts
// before and after; with --holders NAME (a substring of "type:name", e.g. "object:SpanMirror" or
// "JSArrayBufferData"), the shortest path from the GC roots to a few of the nodes of that kind that
// are new in AFTER (by snapshot id), which names the field that keeps them.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** One snapshot, indexed: node i is at nodes[i * nodeFields]. */
class Heap {
  readonly count: number;
  private readonly nf: number;
  private readonly ef: number;
  private readonly firstEdge: Int32Array;
  private readonly f: Record<'type' | 'name' | 'id' | 'self' | 'edges' | 'eType' | 'eName' | 'eTo', number>;

  constructor(private readonly s: Snapshot) {
    const m = s.snapshot.meta;
    this.nf = m.node_fields.length;
    this.ef = m.edge_fields.length;
    this.f = {
      type: m.node_fields.indexOf('type'),
      name: m.node_fields.indexOf('name'),
      id: m.node_fields.indexOf('id'),
      self: m.node_fields.indexOf('self_size'),
      edges: m.node_fields.indexOf('edge_count'),
      eType: m.edge_fields.indexOf('type'),
      eName: m.edge_fields.indexOf('name_or_index'),
      eTo: m.edge_fields.indexOf('to_node'),
    };
    this.count = s.nodes.length / this.nf;
    this.firstEdge = new Int32Array(this.count);
    let e = 0;
    for (let n = 0; n < this.count; n++) {
      this.firstEdge[n] = e;
      e += s.nodes[n * this.nf + this.f.edges]! * this.ef;
    }
  }

  type(n: number): string {
    return this.s.snapshot.meta.node_types[0][this.s.nodes[n * this.nf + this.f.type]!]!;
  }

  name(n: number): string {
    return this.s.strings[this.s.nodes[n * this.nf + this.f.name]!]!;
  }

  id(n: number): number {
    return this.s.nodes[n * this.nf + this.f.id]!;
  }

  self(n: number): number {
    return this.s.nodes[n * this.nf + this.f.self]!;
  }

  /** "type:name", strings and code by type alone (their names are their contents). */
  kind(n: number): string {
    const t = this.type(n);
    if (t === 'string' || t === 'concatenated string' || t === 'sliced string' || t === 'code') return t;
    return `${t}:${this.name(n).slice(0, 60)}`;
  }

  /** The node's edges that keep their target alive: [edge type, edge name, target node]. */
  *strongEdges(n: number): Generator<[string, string, number]> {
    const types = this.s.snapshot.meta.edge_types[0];
    const start = this.firstEdge[n]!;
    const edges = this.s.nodes[n * this.nf + this.f.edges]!;
    for (let k = 0; k < edges; k++) {
      const o = start + k * this.ef;
      const et = types[this.s.edges[o + this.f.eType]!]!;
      if (et === 'weak' || et === 'shortcut') continue;
      const raw = this.s.edges[o + this.f.eName]!;
      const name = et === 'element' || et === 'hidden' ? String(raw) : this.s.strings[raw]!;
      yield [et, name, this.s.edges[o + this.f.eTo]! / this.nf];
    }
  }
}

function load(file: string): Heap {
  return new Heap(JSON.parse(readFileSync(file, 'utf8')) as Snapshot);
}

function sizesByKind(h: Heap): Map<string, { count: number; bytes: number }> {
  const out = new Map<string, { count: number; bytes: number }>();
  for (let n = 0; n < h.count; n++) {
    const k = h.kind(n);
    const e = out.get(k) ?? { count: 0, bytes: 0 };
    e.count++;
    e.bytes += h.self(n);
    out.set(k, e);
  }
  return out;
}

/** For every node reachable from the roots (node 0), the edge it was first reached by (breadth first). */
function shortestRetainers(h: Heap): Map<number, [number, string, string]> {
  const parent = new Map<number, [number, string, string]>();
  const queue = [0];
  const seen = new Uint8Array(h.count);
  seen[0] = 1;
  for (let head = 0; head < queue.length; head++) {
    const n = queue[head]!;
    for (const [et, name, to] of h.strongEdges(n)) {
      if (seen[to]) continue;
      seen[to] = 1;
      parent.set(to, [n, et, name]);
      queue.push(to);
    }
  }
  return parent;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    holders: { type: 'string' },
    paths: { type: 'string', default: '3' },
  },
});
if (positionals.length !== 2) {
  process.stderr.write(
    'usage: heap-diff BEFORE.heapsnapshot AFTER.heapsnapshot [--top N] [--holders NAME] [--paths N]\n',
  );
  process.exit(2);
}
const before = load(positionals[0]!);
const after = load(positionals[1]!);
const a = sizesByKind(before);
const b = sizesByKind(after);
let totalA = 0;
let totalB = 0;
for (const v of a.values()) totalA += v.bytes;
for (const v of b.values()) totalB += v.bytes;
const rows = [...new Set([...a.keys(), ...b.keys()])].map((k) => {
  const x = a.get(k) ?? { count: 0, bytes: 0 };
  const y = b.get(k) ?? { count: 0, bytes: 0 };
  return { k, bytes: y.bytes - x.bytes, count: y.count - x.count, was: x.count, now: y.count };
});
rows.sort((p, q) => q.bytes - p.bytes);
const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;
process.stdout.write(`self sizes: ${kb(totalA)} → ${kb(totalB)} (${kb(totalB - totalA)})\n`);
process.stdout.write('   grown    count  (before → after)  kind\n');
for (const r of rows.slice(0, Number(values.top))) {
  process.stdout.write(`${kb(r.bytes).padStart(10)} ${String(r.count).padStart(7)}  (${r.was} → ${r.now})  ${r.k}\n`);
}

if (values.holders !== undefined) {
  const want = values.holders;
  const old = new Set<number>();
  for (let n = 0; n < before.count; n++) old.add(before.id(n));
  const fresh: number[] = [];
  for (let n = 0; n < after.count; n++)
    if (!old.has(after.id(n)) && `${after.type(n)}:${after.name(n)}`.includes(want)) fresh.push(n);
  fresh.sort((x, y) => after.self(y) - after.self(x));
  process.stdout.write(`\n${fresh.length} nodes of "${want}" are new; what holds the largest:\n`);
  const parent = shortestRetainers(after);
  for (const n of fresh.slice(0, Number(values.paths))) {
    const path: string[] = [];
    for (let cur = n; parent.has(cur);) {
      const [p, et, name] = parent.get(cur)!;
      path.push(`${after.kind(p)} --${et}:${name.slice(0, 30)}-->`);
      cur = p;
    }
    // A chain (a promise's reactions, a linked list) is one step repeated: shown once, with its count.
    const steps: Array<{ step: string; times: number }> = [];
    for (const step of path.reverse()) {
      const last = steps[steps.length - 1];
      if (last?.step === step) last.times++;
      else steps.push({ step, times: 1 });
    }
    const lines = steps.map((s) => (s.times > 1 ? `${s.step} (×${s.times})` : s.step));
    process.stdout.write(
      `\n${after.kind(n)} (${after.self(n)} bytes), from the roots:\n  ${lines.slice(-12).join('\n  ')}\n`,
    );
  }
}
