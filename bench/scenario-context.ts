// What every scenario gets from the runner (bench/throughput.ts).

export interface ScenarioContext {
  /** Scenario name, reported as `scenario`. */
  name: string;
  /** A temporary directory the runner removes after the scenario, however it ended. */
  tmpRoot: string;
}

/** {port: 0, buffer: 10} → ['--port', '0', '--buffer', '10'] */
export function formatPeerArgs(flags: Record<string, string | number>): string[] {
  return Object.entries(flags).flatMap(([k, v]) => [`--${k}`, String(v)]);
}
