// The session-service simulator: a faithful stand-in for the upstream service's telemetry stream
// and pool lookup, with fault injection, used by `demo`, the integration tests and the benchmark.
export { startSimulator } from './simulator.js';
export type { Faults, SimSession, SimSessionOptions, SimStats, Simulator, SimulatorOptions } from './types.js';
export { TELEMETRY_CATEGORIES, makePool, telemetryConfig } from './pools.js';
export type { SimPool, SimPoolConfig, SimTelemetryConfig, TelemetryCategory } from './pools.js';
export { CDP_METHODS, EVENT_TYPES, LISTED_TYPES, UNLISTED_TYPES, categoryOf } from './events/catalogue.js';
export { defaultFaults } from './faults.js';
export { EVENT_MIXES } from './events/mix.js';
export type { EventMix } from './events/mix.js';
