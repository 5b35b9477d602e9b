// Per-session sequence bookkeeping, pure: decides for each envelope whether it is new, a duplicate,
// preceded by a gap, or the start of a new service epoch.
//
// Rules (docs/service-api.md "Stream telemetry events"; docs/upstream-differences.md "The stream"):
// - `seq` is counted in memory by the in-VM API process and restarts at 1 with it; every event
//   carries `source.metadata.telemetry_session_id`, which changes with the process. A different
//   source id than the epoch's is therefore a new epoch, whatever the seq: this catches a restart
//   across a dropped connection both when the service stays silent until seq passes the old
//   Last-Event-ID and when it replays from 1 (which would otherwise look like duplicates forever).
// - Without a source id to go by, seq going backwards after at least one accepted event on the SAME
//   connection is a new epoch too; at the start of a connection it is a replay (duplicates).
// - A connection that resumed with Last-Event-ID N must only ever see seqs above N in the same epoch
//   (docs/service-api.md "Stream telemetry events" rule 3). A first event at or below N means the service lost the position (it restarted and
//   replays its oldest retained events, numbering from 1 again): a new epoch, whether or not the
//   events carry a source id, and whatever id they carry. Taking them as duplicates would drop every
//   new event until seq passed N again, and reconnecting would only be answered the same way.
// - seq ≤ last accepted (same epoch) → duplicate, dropped and counted;
// - seq > last + 1 → the events in between are missing: a gap [last+1, seq-1] precedes the event;
// - with no position yet: start `oldest` expects seq 1 (a later first seq is history evicted before
//   the bridge followed); start `latest` takes the first seq as the baseline.

export interface SequencerState {
  lastSeq: number;
  epoch: number;
  /** The telemetry_session_id of the current epoch, when known. */
  sourceId?: string;
}

export type SeqDecision =
  { kind: 'accept'; gapFirst?: number; gapLast?: number; newEpoch?: EpochChange } | { kind: 'duplicate' };

export interface EpochChange {
  /** What showed the restart. */
  why: 'source_changed' | 'seq_backwards' | 'resume_ignored';
  /** The epoch that ended, where the bridge left it. */
  previous: { epoch: number; lastSeq: number; sourceId?: string };
  /** The first frames after a reconnect: what the old epoch sent after lastSeq was not seen. */
  acrossReconnect: boolean;
}

export class Sequencer {
  lastSeq: number;
  epoch: number;
  sourceId: string | undefined;
  /** Frames accepted on the current connection; 0 means a backwards seq is a replay, not a restart. */
  private acceptedOnConnection = 0;
  /** The Last-Event-ID the current connection resumed after (lastSeq when it opened), 0 for none. */
  private resumedAfter = 0;
  /** Baseline rule for a session that has no position yet. */
  private baselineOnFirst: boolean;

  constructor(state: SequencerState, start: 'oldest' | 'latest' | number) {
    this.lastSeq = state.lastSeq;
    this.epoch = state.epoch;
    this.sourceId = state.sourceId;
    this.baselineOnFirst = state.lastSeq === 0 && start === 'latest';
  }

  /** Called when a new connection starts streaming. */
  newConnection(): void {
    this.acceptedOnConnection = 0;
    this.resumedAfter = this.lastSeq;
  }

  /** True until the first event (or a baseline) gives the session a position. */
  get unpositioned(): boolean {
    return this.lastSeq === 0 && this.epoch === 0;
  }

  /** `latest`: the position "now" is known (e.g. from the archive) before any event arrived. */
  setBaseline(seq: number, sourceId?: string): void {
    this.lastSeq = seq;
    if (sourceId !== undefined) this.sourceId = sourceId;
    this.baselineOnFirst = false;
  }

  decide(seq: number, sourceId?: string): SeqDecision {
    if (sourceId !== undefined && this.sourceId !== undefined && sourceId !== this.sourceId) {
      return this.accept(seq, sourceId, this.newEpoch('source_changed'));
    }
    if (seq <= this.lastSeq) {
      if (this.acceptedOnConnection === 0) {
        const ignoredResume = this.resumedAfter > 0 && seq <= this.resumedAfter;
        if (!ignoredResume) return { kind: 'duplicate' };
        return this.accept(seq, sourceId, this.newEpoch('resume_ignored'));
      }
      return this.accept(seq, sourceId, this.newEpoch('seq_backwards'));
    }
    if (this.baselineOnFirst && this.unpositioned) {
      // `latest`: whatever came before the first event we see is history we were told to skip.
      this.lastSeq = seq - 1;
    }
    this.baselineOnFirst = false;
    return this.accept(seq, sourceId, undefined);
  }

  private newEpoch(why: EpochChange['why']): EpochChange {
    const change: EpochChange = {
      why,
      previous: {
        epoch: this.epoch,
        lastSeq: this.lastSeq,
        ...(this.sourceId !== undefined ? { sourceId: this.sourceId } : {}),
      },
      acrossReconnect: this.acceptedOnConnection === 0,
    };
    this.epoch++;
    this.lastSeq = 0;
    this.sourceId = undefined;
    return change;
  }

  private accept(seq: number, sourceId: string | undefined, newEpoch: EpochChange | undefined): SeqDecision {
    const d: SeqDecision = { kind: 'accept' };
    if (seq > this.lastSeq + 1) {
      d.gapFirst = this.lastSeq + 1;
      d.gapLast = seq - 1;
    }
    if (newEpoch) d.newEpoch = newEpoch;
    this.lastSeq = seq;
    // Every event carries its own copy of the same id: keeping the one held already lets the new
    // copy die young instead of being promoted, at 1,000 sessions, as a long-lived string each time.
    if (sourceId !== undefined && sourceId !== this.sourceId) this.sourceId = sourceId;
    this.acceptedOnConnection++;
    return d;
  }
}
