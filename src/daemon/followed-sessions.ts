// The sessions this process follows, and what GET /v1/sessions shows of them.
//
// A session's entry: followed (on this thread or on an ingest worker) → moving (stopped to be
// followed again on another thread, or after its worker died; its status is kept so the new
// follower's counts add to it, carried-status.ts) → followed again; or → finished (ended or removed
// during this run: its final status stays visible, bounded, oldest forgotten first).
//
// A moving session still counts as followed for "is the run over" (moving): between its stop and
// its next follow no thread reads it, and a run taken as over there (`run --until-ended`) would stop
// with the session neither read to its end nor ended, its open spans never closed.
import type { SessionSpec } from '../config/schema.js';
import type { AttributeValue } from '../vocabulary/log-record.js';
import type { Segment, SessionSource } from '../store/store.js';
import type { FollowedSession } from '../session/session-pipeline.js';
import type { SessionStatus } from '../session/session-status.js';
import { carryCounts } from '../session/carried-status.js';

/** Finished sessions whose last status stays visible in GET /v1/sessions (oldest forgotten first). */
const MAX_FINISHED = 1000;

export class FollowedSessions {
  private readonly active = new Map<string, FollowedSession>();
  /** Followed sessions read on this thread (the rest are on ingest workers). */
  private readonly onMain = new Set<string>();
  /** Final status of sessions that ended or were removed during this run. */
  private readonly finished = new Map<string, SessionStatus>();
  /** Status of sessions stopped to be followed again (moved between threads): their counts carry over. */
  private readonly carried = new Map<string, SessionStatus>();
  /** Sessions stopped by a move and not yet followed again (nor given up by it: moved()). */
  private readonly between = new Set<string>();

  get size(): number {
    return this.active.size;
  }

  has(id: string): boolean {
    return this.active.has(id);
  }

  get(id: string): FollowedSession | undefined {
    return this.active.get(id);
  }

  /** Every followed session. */
  all(): FollowedSession[] {
    return [...this.active.values()];
  }

  /** Records a new follower of a session; its counts start from what earlier followers counted. */
  add(id: string, session: FollowedSession, onWorker: boolean): FollowedSession {
    const p = carryCounts(this.carried.get(id), session);
    this.carried.delete(id);
    this.between.delete(id);
    this.active.set(id, p);
    if (onWorker) this.onMain.delete(id);
    else this.onMain.add(id);
    this.finished.delete(id);
    return p;
  }

  /** The session is no longer followed here; returns its follower, if it had one. */
  delete(id: string): FollowedSession | undefined {
    const p = this.active.get(id);
    this.active.delete(id);
    return p;
  }

  /** The session is followed no more, to be followed again: its counts carry over to the next follower. */
  move(id: string): void {
    const before = this.active.get(id)?.status();
    if (!before) return;
    this.carried.set(id, before);
    this.between.add(id);
    this.active.delete(id);
  }

  /** The move of these sessions is over: those not followed again (ended meanwhile, or the stop began) move no more. */
  moved(ids: readonly string[]): void {
    for (const id of ids) this.between.delete(id);
  }

  /** Sessions between two followers (move() → add() or moved()): the run is not over while one is. */
  get moving(): number {
    return this.between.size;
  }

  /** Followed sessions read on this thread. */
  onThisThread(): string[] {
    return [...this.onMain].filter((id) => this.active.has(id));
  }

  /** Keeps the final status of a finished session for GET /v1/sessions; bounded so churn cannot grow it. */
  remember(status: SessionStatus): void {
    this.finished.delete(status.id);
    this.finished.set(status.id, status);
    if (this.finished.size > MAX_FINISHED) this.finished.delete(this.finished.keys().next().value!);
  }

  /** Segments the collector acknowledged: advances per-session delivered seq. */
  delivered(segments: readonly Segment[]): void {
    for (const s of segments) {
      const epoch = s.epoch ?? 0;
      const p = this.active.get(s.sessionId);
      if (p) {
        p.delivered(s.lastSeq, epoch);
        continue;
      }
      // A session's last records are acknowledged after its end was recorded (the end comes with
      // its stream, the acknowledgement with the collector): its final status moves with them, or
      // it would show them undelivered for the rest of the run.
      const done = this.finished.get(s.sessionId);
      if (done && done.epoch === epoch && s.lastSeq > done.lastDeliveredSeq) done.lastDeliveredSeq = s.lastSeq;
    }
  }

  /** Sets the enrichment attributes (pool) of every later record of a followed session. */
  setAttributes(id: string, attrs: Record<string, AttributeValue>): boolean {
    const p = this.active.get(id);
    if (!p) return false;
    p.setEnrichment(attrs);
    return true;
  }

  /** Specs of the followed sessions, with where each came from. */
  specs(): Array<{ spec: SessionSpec; source: SessionSource }> {
    return [...this.active.values()].map((p) => ({ spec: p.spec, source: p.source }));
  }

  /** The final status of the sessions that finished during this run (the last MAX_FINISHED). */
  finishedStatus(): IterableIterator<SessionStatus> {
    return this.finished.values();
  }

  /** The followed sessions and those that finished during this run, by id. */
  status(): SessionStatus[] {
    const out = [...this.active.values()].map((p) => p.status());
    for (const s of this.finished.values()) out.push(s);
    return out.sort((a, b) => a.id.localeCompare(b.id));
  }

  session(id: string): SessionStatus | undefined {
    return this.active.get(id)?.status() ?? this.finished.get(id);
  }
}
