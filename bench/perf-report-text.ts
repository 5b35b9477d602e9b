// The perf report as a person reads it: a table of processes and their threads (CPU, µs per event,
// where each spent it), then the bridge's threads by innermost JS function with their native leaves.
import type { PerfReport, ProcessReport, ThreadReport } from './perf-attribution.js';
import { CATEGORIES, CATEGORY_TITLES } from './perf-frames.js';

/** What the tool knows about the run beside the samples (all optional: a re-analysis may lack them). */
export interface RunHeader {
  scenario?: string;
  /** The scenario's result line. */
  result?: Record<string, unknown>;
  /** The machine's 1-minute load average before and after the recording. */
  load1m?: [number, number];
  cpus?: number;
  /**
   * CPU seconds per role read from /proc over a window a little longer than perf's (its start and end
   * included): as shares of a CPU, a check on perf's sample counts.
   */
  proc?: { cpuSeconds: Partial<Record<string, number>>; windowSeconds: number };
}

const pct = (x: number): string => (x < 0.005 ? '-' : `${Math.round(x * 100)}%`);
const fixed = (x: number | null, digits: number): string => (x === null ? '-' : x.toFixed(digits));
const num = (x: unknown): string => (typeof x === 'number' ? x.toLocaleString('en-US') : '-');

export function formatPerfReport(report: PerfReport, header: RunHeader = {}): string {
  const out: string[] = [];
  out.push(
    `perf over the whole machine: ${report.seconds} s at ${report.frequency} Hz, ${report.samples.toLocaleString('en-US')} samples` +
      (header.cpus !== undefined ? `, ${header.cpus} CPUs` : '') +
      (header.load1m ? `, load ${header.load1m[0].toFixed(1)} → ${header.load1m[1].toFixed(1)}` : ''),
  );
  const r = header.result;
  if (r) {
    out.push(
      r.error !== undefined
        ? `${header.scenario ?? 'scenario'}: FAILED: ${typeof r.error === 'string' ? r.error : JSON.stringify(r.error)}`
        : `${header.scenario ?? 'scenario'} (whole run): ${num(r.eventsPerSecond)} events/s delivered ` +
            `(${num(r.offeredPerSecond)} offered), bridge ${num(r.cpuMicrosPerEvent)} µs/event ` +
            `(main ${num(r.mainThreadCpuMicrosPerEvent)}), simulator ${num(r.simulatorCpuMicrosPerEvent)} µs/event, ` +
            `p99 ${num((r.latency as { p99Ms?: number } | undefined)?.p99Ms)} ms, missing ${num(r.missing)}` +
            (Array.isArray(r.load1m) ? `, load ${r.load1m.join(' → ')}` : ''),
    );
  }
  if (report.bridgeMicrosPerEventInWindow !== null)
    out.push(
      `bridge in perf's window: ${fixed(report.bridgeMicrosPerEventInWindow, 1)} µs/event ` +
        `(its samples ÷ the offered rate; the µs/event column splits the whole run's figure by thread)`,
    );
  const proc = header.proc;
  if (proc && Object.keys(proc.cpuSeconds).length > 0)
    out.push(
      `of a CPU from /proc over ${proc.windowSeconds.toFixed(1)} s around the recording (perf's): ` +
        Object.entries(proc.cpuSeconds)
          .map(([role, s]) => {
            const perf = report.processes.find((p) => p.role === role)?.cpuShare ?? 0;
            return `${role} ${((s ?? 0) / proc.windowSeconds).toFixed(2)} (${perf.toFixed(2)})`;
          })
          .join(', '),
    );
  out.push('', ...table(report.processes), '');

  for (const p of report.processes.filter((p) => p.role === 'bridge'))
    for (const t of p.threads.filter((t) => t.functions.length > 0)) {
      out.push(
        `bridge ${t.thread}: innermost JS function (share of the thread's samples), native leaves under the top ones`,
      );
      for (const f of t.functions) {
        out.push(`  ${pct(f.share).padStart(4)}  ${f.name}`);
        for (const leaf of f.leaves) out.push(`          ${pct(leaf.share).padStart(4)}  ${leaf.name}`);
      }
      out.push('');
    }
  return out.join('\n');
}

function table(processes: ProcessReport[]): string[] {
  const head = ['process / thread', 'CPU s', 'of a CPU', 'µs/event', ...CATEGORIES.map((c) => CATEGORY_TITLES[c])];
  const rows: string[][] = [head];
  const row = (name: string, x: ProcessReport | ThreadReport): string[] => [
    name,
    x.cpuSeconds.toFixed(2),
    x.cpuShare.toFixed(2),
    fixed(x.microsPerEvent, 1),
    ...CATEGORIES.map((c) => pct(x.categories[c])),
  ];
  for (const p of processes) {
    const pids = ['bridge', 'simulator', 'sink', 'ceiling'].includes(p.role) ? ` (pid ${p.pids.join(', ')})` : '';
    rows.push(row(`${p.role}${pids}`, p));
    // Neighbours and idle: the few busiest names only; the process row has the total.
    const shown = p.role === 'other' || p.role === 'harness' ? p.threads.slice(0, 5) : p.threads;
    for (const t of shown) rows.push(row(`  ${t.thread}${t.threads > 1 ? ` ×${t.threads}` : ''}`, t));
    if (shown.length < p.threads.length) rows.push([`  … ${p.threads.length - shown.length} more names`]);
  }
  const widths = head.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}
