// PLACEHOLDER CONTRACT — replaced by the mapping work (issue 3); the signatures below are fixed.
import type { Envelope } from '../stream/envelope.js';
import type { BridgeLogRecord, SessionContext } from './log-record.js';

export interface Mapper {
  /** Maps one validated envelope; returns null when a filter excludes it (it still advances the checkpoint). */
  map(envelope: Envelope, ctx: SessionContext, observedMicros: number): BridgeLogRecord | null;
}
