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

/**
 * How benchmark sessions are created in the simulator: every category a realistic agent session
 * produces (the service captures control, connection, system and captcha by default; console,
 * network, page, interaction and platform are opted in here, as a team exporting telemetry would),
 * but not screenshots: those are opt-in in the service too, and at a thousand sessions their PNGs
 * would measure the network, not the bridge.
 */
export const BENCH_SESSION = { categories: ['console', 'network', 'page', 'interaction', 'platform'] };

/**
 * Sessions as heavy agent sessions are: every category, screenshots included (the simulator's are
 * real-sized PNGs, 20–40 KB of base64 and more, taken after page loads and uncaught exceptions at
 * the service's cadence), console texts of several KB among the short ones.
 */
export const REALISTIC_SESSION = { categories: 'all' };

/**
 * The heavy agent session of the `live-heavy` scenario: every category, and the simulator's heavy
 * mix (src/devkit/simulator/events/mix.ts): 3 % screenshots of 20–40 KB of base64, console texts of
 * several KB, about 1.8 KB an event on the wire.
 */
export const HEAVY_SESSION = { categories: 'all', mix: 'heavy' };

export type SessionKind = typeof BENCH_SESSION | typeof REALISTIC_SESSION | typeof HEAVY_SESSION;
