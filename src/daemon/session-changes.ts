// The followed set's changes while the daemon runs: PUT and DELETE of the control API (and a
// reload, which uses them), what discovery finds, a session's end, and (shared store) a session
// given up by ownership. PUT, DELETE and discovery run in the session's chain (session-ops.ts), so a
// PUT racing a DELETE, a reload or a discovery pass of the same id runs in order.
//
//   PUT     followed: its spec replaced │ shared store: recorded, its owner (maybe this replica)
//           claims it │ waiting for room: its spec replaced │ from the configuration or discovery:
//           recorded, then followed or waiting │ a new one: followed while there is room, counted
//           from the check on (session-room.ts), else SessionLimitError (429)
//   DELETE  followed: stopped (what was read is still delivered), the removal written once its
//           records are safe (lifecycle-recorder.ts) │ waiting: removed at once, its owed spans
//           closed from the stored state │ shared store, owned elsewhere: its owner stops at its
//           next pass │ unknown: false
//   discovered: recorded when the store knows it in no lifecycle, then followed or waiting
//   ended   (its stream answered 404) the end written once its records are safe; its last status
//           kept, without the error its end caused │ unknown to the service: kept as `unknown`
//   unfollowed (shared store) stopped: handed over or lost, or finished by a removal elsewhere
import type { SessionSpec } from '../config/schema.js';
import type { SessionRow, SessionSource, Store } from '../store/store.js';
import type { FollowedSession } from '../session/session-pipeline.js';
import { initialStatus, type SessionStatus } from '../session/session-status.js';
import type { FollowedSessions } from './followed-sessions.js';
import type { LifecycleRecorder } from './lifecycle-recorder.js';
import type { SessionRoom } from './session-room.js';
import { SessionOps } from './session-ops.js';
import type { OwnedStatus, SharedSessions } from './shared-sessions.js';

export interface SessionChangesDeps {
  store: Store;
  active: FollowedSessions;
  room: SessionRoom;
  lifecycles: Pick<LifecycleRecorder, 'record'>;
  /** The shared store's side; absent with the embedded store. */
  shared: SharedSessions | undefined;
  /**
   * Sends the spans stored ended or removed sessions still owe (session/finished-session-spans.ts);
   * absent with the shared store, where the replica that claims them sends them.
   */
  finishedSpans: ((rows: Iterable<SessionRow>) => void) | undefined;
  /**
   * Traces on: a session finished here has its stored span state dropped once the spans it offered
   * settle (lifecycle-recorder.ts), whichever store.
   */
  tracesOn: boolean;
  /** The daemon is stopping: nothing new is followed. */
  stopping: () => boolean;
  /** Follows a row now (counted at once). */
  follow: (row: SessionRow) => FollowedSession;
  /** Follows each row while there is room; the rest wait for it. */
  followOrWait: (rows: readonly SessionRow[]) => void;
  /** A followed session left: room for the waiting ones, and maybe the end of the run. */
  left: () => void;
}

export class SessionChanges {
  /** Per-session chain of changes. */
  private readonly ops = new SessionOps();

  constructor(private readonly d: SessionChangesDeps) {}

  /** PUT /v1/sessions/{id}: follow (or re-follow) a session; it survives restarts. */
  add(spec: SessionSpec, source: SessionSource = 'api'): Promise<{ created: boolean; status: OwnedStatus }> {
    return this.ops.serial(spec.id, () => this.addNow(spec, source));
  }

  /** DELETE /v1/sessions/{id}: stop following. Records already read are still delivered. */
  remove(id: string): Promise<boolean> {
    return this.ops.serial(id, () => this.removeNow(id));
  }

  /** The listed sessions the store does not know in any lifecycle: recorded and followed; resolves with their ids. */
  async discovered(specs: readonly SessionSpec[]): Promise<string[]> {
    const d = this.d;
    if (d.stopping()) return [];
    const rows = await d.store.addSessions(specs, 'discovery');
    // Shared store: the owner (maybe this replica) claims them at its next ownership pass.
    if (!d.shared) {
      // In each session's chain, so a PUT of the same id at the same moment cannot follow it twice.
      await Promise.all(
        rows.map((row) =>
          this.ops.serial(row.spec.id, async () => {
            if (!d.stopping()) d.followOrWait([row]);
          }),
        ),
      );
    }
    return rows.map((r) => r.spec.id);
  }

  /** The session's stream said it ended (404), or the service never knew it. */
  async ended(id: string): Promise<void> {
    const d = this.d;
    const p = d.active.get(id);
    // The session's last records delivered or on disk, and its checkpoint written, before recording
    // the end: a crash in between must not leave an ended session with records nobody will read again
    // (until then the store still says active, and a restart follows it again: the stream ends again).
    d.lifecycles.record(id, 'ended', p && d.tracesOn ? p.spansSettled() : undefined);
    if (p) {
      d.active.delete(id);
      const last = p.status();
      // A session the service never knew stays `unknown`: an error, not an end (run --until-ended names it).
      if (last.state === 'unknown') d.active.remember(last);
      else {
        // An end is not an error: the reset and the 502 the stream got as its session ended are not kept.
        const ended: SessionStatus = { ...last, state: 'ended' };
        delete ended.lastError;
        d.active.remember(ended);
      }
    }
    d.left();
  }

  /**
   * Stops reading a session given up by ownership (handed over, lost: its next owner continues its
   * spans) or `finished` elsewhere (removed: its open spans are flushed).
   */
  async unfollow(id: string, finished = false): Promise<void> {
    const d = this.d;
    d.room.forget(id);
    const p = d.active.get(id);
    if (!p) return;
    d.active.delete(id);
    await p.stop(finished);
    d.active.remember(p.status());
  }

  private async addNow(spec: SessionSpec, source: SessionSource): Promise<{ created: boolean; status: OwnedStatus }> {
    const d = this.d;
    if (d.stopping()) throw new Error('shutting down');
    const existing = d.active.get(spec.id);
    if (existing) {
      await d.store.putSession(spec, source);
      existing.updateSpec(spec);
      return { created: false, status: existing.status() };
    }
    // Followed by whichever replica owns it; the owner (maybe this one) claims it at its next pass.
    if (d.shared) return d.shared.put(spec, source);
    if (d.room.isWaiting(spec.id)) {
      const row = await d.store.putSession(spec, source);
      d.room.update(row);
      return { created: false, status: initialStatus(row) };
    }
    if (source !== 'api' && !d.room.hasRoom()) {
      // Recorded all the same: the configuration's sessions wait for room.
      const row = await d.store.putSession(spec, source);
      d.followOrWait([row]);
      return { created: true, status: initialStatus(row) };
    }
    return d.room.reserve(async () => {
      const row = await d.store.putSession(spec, source);
      if (d.stopping()) throw new Error('shutting down');
      return { created: true, status: d.follow(row).status() };
    });
  }

  private async removeNow(id: string): Promise<boolean> {
    const d = this.d;
    const p = d.active.get(id);
    const waiting = p ? undefined : d.room.forget(id);
    if (waiting) {
      await d.store.setLifecycle(id, 'removed');
      // Not read in this run: its spans open at its checkpoint are closed from the stored state.
      d.finishedSpans?.([{ ...waiting, lifecycle: 'removed' }]);
      return true;
    }
    // Owned elsewhere (or by nobody yet): the owner stops at its next pass.
    if (!p && d.shared) return d.shared.remove(id);
    if (!p) return false;
    d.active.delete(id);
    await p.stop(true);
    // What was read of it is still delivered; on disk or delivered before the removal is recorded.
    d.lifecycles.record(id, 'removed', d.tracesOn ? p.spansSettled() : undefined);
    d.active.remember(p.status());
    d.left();
    return true;
  }
}
