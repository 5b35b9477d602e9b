// What a scenario reports (one JSON line each) and the short human table printed after all of them.

/** The fields the table reads; every scenario adds its own beyond these. */
export interface ScenarioResult {
  scenario: string;
  /** Events delivered to the sink per second (the scenario says over which interval). */
  eventsPerSecond?: number;
  /** bridge ÷ parse-only ceiling (burst scenarios). */
  ratio?: number;
  latency?: { p50Ms: number | null; p99Ms: number | null; maxMs: number | null; count: number };
  peakRssMiB?: number;
  /** Produced events the sink never received. */
  missing?: number;
  error?: string;
  [key: string]: unknown;
}

const seconds = (ms: number | null | undefined): string =>
  ms === null || ms === undefined ? '-' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;

/** A fixed-width table: scenario, events/s, ratio, p50/p99, peak RSS, missing. */
export function formatTable(results: ScenarioResult[]): string {
  const rows = [['scenario', 'events/s', 'ratio', 'p50 / p99', 'peak RSS', 'missing']];
  for (const r of results) {
    if (r.error !== undefined) {
      rows.push([r.scenario, `FAILED: ${r.error}`, '', '', '', '']);
      continue;
    }
    rows.push([
      r.scenario,
      r.eventsPerSecond === undefined ? '-' : r.eventsPerSecond.toLocaleString('en-US'),
      r.ratio === undefined ? '-' : r.ratio.toFixed(2),
      r.latency && r.latency.count > 0 ? `${seconds(r.latency.p50Ms)} / ${seconds(r.latency.p99Ms)}` : '-',
      r.peakRssMiB === undefined ? '-' : `${r.peakRssMiB} MiB`,
      r.missing === undefined ? '-' : String(r.missing),
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  return (
    rows
      .map((row) =>
        row
          .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}
