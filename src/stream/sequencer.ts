// Per-session sequence bookkeeping, pure: decides for each frame whether it is new, a duplicate,
// preceded by a gap, or the start of a new service epoch.
//
// Rules (spec "Stream telemetry events" 1, 5, 6, 8; DESIGN.md "Delivery semantics" 3):
// - seq ≤ last accepted → duplicate (a replay after reconnect), dropped and counted;
// - seq > last + 1 → the events in between were lost (evicted from the service's buffer, or
//   frames that did not decode): a gap [last+1, seq-1] is reported before the event;
// - with no position yet: start `oldest` expects seq 1 (a later first seq is a gap: those events were
//   evicted before the bridge saw them); start `latest` takes the first seq as the baseline;
// - seq going backwards after at least one accepted frame on the SAME connection means the service
//   process restarted and numbers from 1 again: a new epoch begins (log.record.uid then carries it).

export interface SequencerState {
  lastSeq: number;
  epoch: number;
}

export type SeqDecision =
  | { kind: 'accept'; gapFirst?: number; gapLast?: number; newEpoch?: boolean }
  | { kind: 'duplicate' };

export class Sequencer {
  lastSeq: number;
  epoch: number;
  /** Frames accepted on the current connection; 0 means a backwards seq is a replay, not a restart. */
  private acceptedOnConnection = 0;
  /** Baseline rule for a session that has no position yet. */
  private readonly baselineOnFirst: boolean;

  constructor(state: SequencerState, start: 'oldest' | 'latest' | number) {
    this.lastSeq = state.lastSeq;
    this.epoch = state.epoch;
    this.baselineOnFirst = state.lastSeq === 0 && start === 'latest';
  }

  /** Called when a new connection starts streaming. */
  newConnection(): void {
    this.acceptedOnConnection = 0;
  }

  decide(seq: number): SeqDecision {
    if (seq <= this.lastSeq) {
      if (this.acceptedOnConnection === 0) return { kind: 'duplicate' };
      this.epoch++;
      this.lastSeq = 0;
      return this.accept(seq, true);
    }
    if (this.lastSeq === 0 && this.baselineOnFirst && this.epoch === 0) {
      // `latest`: whatever came before the first event we see is history we were told to skip.
      this.lastSeq = seq - 1;
    }
    return this.accept(seq, false);
  }

  private accept(seq: number, newEpoch: boolean): SeqDecision {
    const d: SeqDecision = { kind: 'accept' };
    if (seq > this.lastSeq + 1) {
      d.gapFirst = this.lastSeq + 1;
      d.gapLast = seq - 1;
    }
    if (newEpoch) d.newEpoch = true;
    this.lastSeq = seq;
    this.acceptedOnConnection++;
    return d;
  }
}
