// When a session's open span state is captured, and where its stored row sits: one of CAPTURE_PHASES
// phases, a function of the session id alone, so every thread and the store agree on it.
//
// A session captures its state when its clock crosses one of its phase's lines (every
// `traces.state_interval`, shifted by the phase's share of it): the sessions of one phase capture
// together, in the same checkpoint write, and the SQLite store keeps their rows side by side
// (store/sqlite-span-states.ts). With each session captured at its own moment, a checkpoint write
// carried a fifth of the states, spread over every page of the table, and SQLite rewrote each of
// those 64 KiB pages whole, in the WAL and again in the database: five to eight bytes written per
// byte of state (docs/benchmarks.md "Span states captured by phase"). Five phases a second apart at
// the default interval keep the writes as even over time as before.
import { fnv1a32 } from '../util/fnv1a.js';

/** How many phases the sessions are spread over. */
export const CAPTURE_PHASES = 5;

/** The session's phase, 0 ≤ phase < CAPTURE_PHASES (FNV-1a over its UTF-16 code units). */
export function capturePhase(sessionId: string): number {
  return fnv1a32(sessionId) % CAPTURE_PHASES;
}
