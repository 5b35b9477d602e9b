// The shared store's side of a finished session's owed spans (session/finished-session-spans.ts):
// after each ownership pass (the lease just renewed), this replica claims the rows nobody live is
// sending (store/pg-owed-spans.ts) and offers their spans; a row stays held here until its spans all
// settled and its state was dropped. Claims never overlap: a pass that finds one under way skips.
//
//   idle → claiming (one statement) → idle; each claimed row: held → (spans settled, state dropped) → released
//   stop(): no new claim; rows still held stay claimed until this replica's lease is gone, then
//   another replica claims them.
import type { Logger } from 'pino';
import type { PgStore } from '../store/pg-store.js';
import type { SessionRow } from '../store/store.js';

/** Offers rows' owed spans; `done` is told per row once it is finished with it. */
export type SendOwedSpans = (rows: Iterable<SessionRow>, done: (sessionId: string) => void) => void;

export interface OwedSpanClaimsDeps {
  store: Pick<PgStore, 'claimOwedSpans'>;
  send: SendOwedSpans;
  log: Logger;
  /** Sessions this replica finished and whose closing spans it is still sending (lifecycle-recorder.ts). */
  finishing?: () => Iterable<string>;
}

export class OwedSpanClaims {
  /** Rows claimed here whose spans are still out. */
  private readonly held = new Set<string>();
  private claiming: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly d: OwedSpanClaimsDeps) {}

  /** After an ownership pass: claims and sends what nobody live is sending. */
  pass(): void {
    if (this.stopped || this.claiming) return;
    this.claiming = this.claim().finally(() => (this.claiming = undefined));
  }

  private async claim(): Promise<void> {
    let rows: SessionRow[];
    try {
      rows = await this.d.store.claimOwedSpans([...this.held, ...(this.d.finishing?.() ?? [])]);
    } catch (err) {
      // Tried again after the next pass.
      this.d.log.warn({ error: (err as Error).message }, "cannot claim finished sessions' owed spans");
      return;
    }
    if (rows.length === 0 || this.stopped) return;
    for (const r of rows) {
      const id = r.spec.id;
      this.held.add(id);
      try {
        this.d.send([r], (done) => this.held.delete(done));
      } catch (err) {
        // A state this bridge cannot close: held (not claimed again by this process, nor by another
        // while it lives) rather than failed at every pass.
        this.d.log.error({ session: id, error: (err as Error).message }, "cannot send a finished session's owed spans");
      }
    }
  }

  /** Claims no more; waits for a claim under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.claiming;
  }
}
