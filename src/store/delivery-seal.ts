// When overflow mode seals for delivery, apart from the commit's own triggers.
//
// A record can be sent only once its session's pending records are sealed into a memory segment.
// The commit's triggers (`spool.commit_interval` after the first pending record, or
// `commit_max_records`) made every record wait up to the interval (200 ms by default) even while
// the exporter had nothing to send. Sealing is cheap in overflow mode (no write: the checkpoint
// writes stay batched once per CHECKPOINT_INTERVAL_MS, overflow-writer.ts), so it also runs when a
// deliverer waits with nothing to take: at once, or once DELIVERY_SEAL_SPACING_MS passed since the
// last seal. The spacing keeps segments and requests from shrinking to a record each when the
// exporter is faster than the sessions; while every deliverer is busy, nothing seals early (a
// sealed segment would only wait in the ready queue instead), so the exporter's pace sets the rate.

/**
 * Seals for delivery are at least this far apart (ms). Why 50: a record then waits at most a
 * quarter of the default commit interval for its seal, a small share of the 1 s p99 the heavy mix
 * aims at, while a seal still carries about 900 records at 18,000 events/s and 100 at 2,000; 25 ms
 * was tried first and quadrupled the export requests at 2,000 events/s (each costs a request's
 * framing and an acknowledgement) for no latency a collector could see.
 */
export const DELIVERY_SEAL_SPACING_MS = 50;

export interface SealState {
  /** Records pending, not yet sealed. */
  pendingRecords: number;
  /** A deliverer waits for data and the ready queue is empty. */
  deliveryWaiting: boolean;
  /** Since the last seal that carried records (ms). */
  sinceLastSealMs: number;
  /** Writes are failing: their retries keep their backoff. */
  writeFailing: boolean;
}

/** In how many ms the pending records are sealed for delivery: 0 now, undefined when the commit's triggers decide. */
export function deliverySealIn(s: SealState, spacingMs = DELIVERY_SEAL_SPACING_MS): number | undefined {
  if (s.pendingRecords === 0 || !s.deliveryWaiting || s.writeFailing) return undefined;
  // Clamped both ways: the spool's own clock never goes back (util/steady-clock.ts), but an
  // injected one may, and a step back would otherwise arm a seal as far off as the step.
  return Math.min(spacingMs, Math.max(0, spacingMs - s.sinceLastSealMs));
}
