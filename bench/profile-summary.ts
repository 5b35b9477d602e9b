// Where a scenario's CPU time went, from the .cpuprofile files `npm run bench -- --cpu-prof DIR`
// writes (one per scenario process): self time by function and by file or package, as shares of
// the busy time. Idle time (the event loop waiting) is reported apart: a pipeline that idles while
// work is waiting is held up somewhere, which a share of busy time would hide. Pure summarise() plus a small command:
//
//   npx tsx bench/profile-summary.ts DIR/CPU.….cpuprofile [--top 20]

/** The parts of V8's .cpuprofile format read here. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

export interface Share {
  name: string;
  ms: number;
  /** 0..1 of all sampled time. */
  share: number;
}

/** "node_modules/better-sqlite3/…" → "better-sqlite3"; a repository file → its path from src/ or bench/; V8 internals as named. */
export function placeOf(url: string): string {
  if (url === '') return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  // The benchmark runs a compiled copy (bench/compiled.ts): its files are named by their sources.
  const m = /\/((?:src|bench|test)\/.*)$/.exec(url);
  if (m) return url.includes('/.bench-build/') ? m[1]!.replace(/\.js$/, '.ts') : m[1]!;
  return url.startsWith('node:') ? url : url.replace(/^file:\/\//, '');
}

function top(map: Map<string, number>, total: number, n: number): Share[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({ name, ms: Math.round(us / 1000), share: total > 0 ? us / total : 0 }));
}

/** Self time by function (name, place, line) and by place, the `n` largest of each; idle apart. */
export function summarise(
  profile: CpuProfile,
  n = 20,
): { busyMs: number; idleMs: number; functions: Share[]; places: Share[] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const fns = new Map<string, number>();
  const places = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const frame = byId.get(profile.samples[i]!);
    const us = profile.timeDeltas[i] ?? 0;
    if (!frame) continue;
    if (frame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    total += us;
    const place = placeOf(frame.url);
    const fn = `${frame.functionName || '(anonymous)'} ${place}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
    places.set(place, (places.get(place) ?? 0) + us);
  }
  return {
    busyMs: Math.round(total / 1000),
    idleMs: Math.round(idle / 1000),
    functions: top(fns, total, n),
    places: top(places, total, n),
  };
}

function format(title: string, rows: Share[]): string {
  return (
    `${title}\n` +
    rows
      .map((r) => `  ${(r.share * 100).toFixed(1).padStart(5)} %  ${String(r.ms).padStart(7)} ms  ${r.name}`)
      .join('\n') +
    '\n'
  );
}

if (import.meta.filename === process.argv[1]) {
  const { readFileSync } = await import('node:fs');
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const n = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 20;
  if (args.length === 0 || !Number.isInteger(n) || n < 1) {
    process.stderr.write('usage: profile-summary <file.cpuprofile>… [--top N]\n');
    process.exit(2);
  }
  for (const file of args) {
    let s;
    try {
      s = summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, n);
    } catch (err) {
      process.stderr.write(`profile-summary: ${file}: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    }
    const idleShare = s.idleMs / Math.max(1, s.idleMs + s.busyMs);
    process.stdout.write(
      `${file}: ${s.busyMs} ms busy, ${s.idleMs} ms idle (${(idleShare * 100).toFixed(0)} % of the main thread's time); shares are of busy time\n` +
        format('self time by function', s.functions) +
        format('self time by file or package', s.places) +
        '\n',
    );
  }
}
