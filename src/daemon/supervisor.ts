// Owns the set of followed sessions and the shared machinery (store, spool writer, exporter).
//
// Lifecycle: start() → running: config sessions and sessions stored by earlier runs (added through
// the control API) are followed; PUT/DELETE add and remove at run time; a session whose stream
// answers 404 is marked ended → stopReading(): every stream stops → (the bridge commits, delivers
// until its deadline and spills what is left) → handOver(): ends recorded, sessions given up. The
// whole order is daemon/stop-bridge.ts. Whatever was not delivered stays spooled for the next
// start. Both steps are idempotent.
//
// max_sessions bounds what this process follows, wherever a session comes from (session-room.ts):
// a PUT of one more is refused; a configured, discovered or claimed session is recorded and waits
// for room, followed as others end (from its checkpoint, or the archive once it ended).
//
// With the shared (PostgreSQL) store the set of followed sessions is driven by ownership instead
// (shared-sessions.ts). Followed sessions, finished ones' status: followed-sessions.ts; PUT, DELETE,
// discovery, ends and hand-overs at run time: session-changes.ts; ends and removals, written once
// their records are safe: lifecycle-recorder.ts; moves between threads (a worker's death, `workers: auto` starting
// them): thread-moves.ts; when the run is over (`run --until-ended`): all-ended.ts.
import type { Logger } from 'pino';
import type { BridgeConfig, SessionSpec } from '../config/schema.js';
import type { Mapper } from '../mapping/mapper.js';
import type { AttributeValue } from '../vocabulary/log-record.js';
import type { Emit } from '../vocabulary/facts.js';
import { once } from '../util/lifecycle.js';
import type { RecordEncoder } from '../wire/encode-record.js';
import type { Spool } from '../store/spool.js';
import type { SessionRow, SessionSource, Store } from '../store/store.js';
import type { UpstreamClient } from '../upstream/client.js';
import type { Delivery } from '../export/delivery.js';
import type { PgStore } from '../store/pg-store.js';
import type { Ownership } from '../cluster/ownership.js';
import type { FollowedSession } from '../session/session-pipeline.js';
import { sessionFactory, type SessionFactory } from '../session/session-factory.js';
import type { SpanTapFactory } from '../session/span-tap.js';
import type { SessionStatus } from '../session/session-status.js';
import { SessionRoom, START_ORDER } from './session-room.js';
import { LifecycleRecorder } from './lifecycle-recorder.js';
import { ThreadMoves } from './thread-moves.js';
import { AllEnded } from './all-ended.js';
import { SessionChanges } from './session-changes.js';
import { reconcileConfigured } from './configured-sessions.js';
import { FollowedSessions } from './followed-sessions.js';
import { SharedSessions, type OwnedSessions, type OwnedStatus } from './shared-sessions.js';
import type { IngestWorkers } from '../ingest/worker-group.js';
import type { WorkerScaling } from './worker-scaling.js';

export type { OwnedSessions, OwnedStatus } from './shared-sessions.js';

/** Said at start when there is nothing to follow and nothing will come unless someone adds it. */
export const NOTHING_TO_FOLLOW =
  'nothing to follow yet: no session is configured or was added earlier, and discovery is off; name sessions (BRIDGE_SESSIONS or sessions:), discover them (BRIDGE_DISCOVER=true), or add one through the control API (PUT /v1/sessions/{id})';

export interface SupervisorDeps {
  config: BridgeConfig;
  store: Store;
  spool: Spool;
  encode: RecordEncoder;
  client: UpstreamClient;
  mapper: Mapper;
  emit: Emit;
  log: Logger;
  delivery: Delivery;
  /** The shared store: follow only the sessions this replica owns. */
  shared?: { store: PgStore; leaseMs: number };
  /** Spans beside the records (traces.enabled): made for the sessions read on this thread. */
  spans?: SpanTapFactory;
  /**
   * Sends the spans stored ended or removed sessions still owe (session/finished-session-spans.ts);
   * `done` is told per row once it is finished with it.
   */
  finishedSpans?: (rows: Iterable<SessionRow>, done?: (sessionId: string) => void) => void;
  /** Ingest workers: sessions are read, mapped and encoded there once they run (absent: on this thread). */
  ingest?: IngestWorkers;
  /** `workers: auto`: when the ingest workers start (worker-scaling.ts); absent, they run from the start. */
  scaling?: WorkerScaling;
}

export class Supervisor {
  /** The followed sessions, and the last status of those that finished during this run. */
  private readonly active = new FollowedSessions();
  private stopping = false;
  /** Ends and removals waiting for the session's records to be safe before they are written. */
  private readonly lifecycles: LifecycleRecorder;
  /** When the run is over, and who waits for it (`run --until-ended`: until-ended.ts). */
  readonly allEnded: AllEnded;
  /** max_sessions, shared by every way a session comes in. */
  private readonly room: SessionRoom;
  /** PUT, DELETE, discovery, ends and hand-overs while the daemon runs. */
  private readonly changes: SessionChanges;
  /** Sessions followed on this thread (without ingest workers). */
  private readonly newSession: SessionFactory;
  /** The shared store's side (ownership); present with the shared store. */
  private readonly shared: SharedSessions | undefined;
  /** Present with the shared store. */
  readonly ownership: Ownership | undefined;
  /** Sessions followed again after a worker's death, or moved to the workers once they start. */
  private readonly moves: ThreadMoves;

  constructor(private readonly d: SupervisorDeps) {
    this.lifecycles = new LifecycleRecorder({
      spool: d.spool,
      store: d.store,
      log: d.log,
      isFollowed: (id) => this.active.has(id),
      settled: () => this.allEnded.check(),
    });
    this.room = new SessionRoom({
      limit: d.config.maxSessions,
      followed: () => this.active.size,
      isFollowed: (id) => this.active.has(id) || this.lifecycles.has(id),
      emit: d.emit,
    });
    this.newSession = sessionFactory({
      config: d.config,
      client: d.client,
      mapper: d.mapper,
      spool: d.spool,
      encode: d.encode,
      emit: d.emit,
      log: d.log,
      ...(d.spans ? { spans: d.spans } : {}),
    });
    // What the components downstream settle comes back here through their watchers: the
    // components know nothing of the supervisor.
    d.scaling?.watch(() => this.moves.toWorkers());
    d.delivery.watch({
      delivered: (segments) => this.active.delivered(segments),
      settled: () => this.allEnded.check(),
    });
    // The spool is idle only once its last commit (deletes, checkpoints) is done, or the last delete
    // that failed and was retried in the background, which may come after the last delivery and the
    // last end settled: without this a run over then never said so.
    d.spool.watchCommitsDone(() => this.allEnded.check());
    d.ingest?.watch({
      ended: (id) => this.changes.ended(id),
      lost: (ids) => {
        this.moves
          .refollow(ids)
          .catch((err: unknown) =>
            d.log.error({ error: (err as Error).message }, 'cannot follow the sessions of a lost ingest worker again'),
          );
      },
    });
    if (d.shared) {
      const { store, spool, delivery, emit, log } = d;
      this.shared = new SharedSessions(
        {
          shared: d.shared,
          store,
          spool,
          delivery,
          emit,
          log,
          sendOwedSpans: d.finishedSpans,
          finishing: () => this.lifecycles.holdingSpans,
        },
        {
          follow: (row) => {
            if (!this.stopping) this.followOrWait([row]);
          },
          unfollow: (id, finished) => this.changes.unfollow(id, finished),
          isFollowed: (id) => this.active.has(id) || this.lifecycles.has(id),
          respecify: (row) => this.active.get(row.spec.id)?.updateSpec(row.spec),
          ticked: () => this.allEnded.ownershipPassed(),
        },
      );
      this.ownership = this.shared.ownership;
    }
    const ownership = this.ownership;
    this.allEnded = new AllEnded({
      // A session between two threads is still followed: no thread reads it for that moment only.
      followed: () => this.active.size + this.active.moving,
      settling: () => this.lifecycles.size,
      spoolIdle: () => d.spool.idle,
      ...(ownership ? { activeAnywhere: () => ownership.activeSessions } : {}),
    });
    this.changes = new SessionChanges({
      store: d.store,
      active: this.active,
      room: this.room,
      lifecycles: this.lifecycles,
      shared: this.shared,
      // Shared store: one replica at a time sends them, the one that claimed them (shared-sessions.ts).
      finishedSpans: this.shared ? undefined : d.finishedSpans,
      tracesOn: d.finishedSpans !== undefined,
      stopping: () => this.stopping,
      follow: (row) => this.follow(row),
      followOrWait: (rows) => this.followOrWait(rows),
      left: () => {
        this.fillRoom();
        this.allEnded.check();
      },
    });
    this.moves = new ThreadMoves({
      active: this.active,
      spool: d.spool,
      store: d.store,
      ingest: d.ingest,
      stopping: () => this.stopping,
      owned: this.ownership !== undefined,
      followOrWait: (rows) => this.followOrWait(rows),
      moved: () => this.allEnded.check(),
    });
  }

  /** Sessions by state, as GET /v1/sessions lists them (the bridge_sessions gauge). */
  sessionsByState(): Record<string, number> {
    // The same sessions GET /v1/sessions lists: the followed ones and those that ended or were
    // removed during this run.
    const out: Record<string, number> = {};
    for (const { state } of this.status()) out[state] = (out[state] ?? 0) + 1;
    return out;
  }

  /** Sessions waiting on an owed gap, as GET /v1/sessions shows them (the bridge_archive_owed_gaps gauge). */
  sessionsOwingGaps(): number {
    let n = 0;
    for (const s of this.status()) if (s.owedGap) n++;
    return n;
  }

  /** Follows what the configuration lists now plus what was added in earlier runs (configured-sessions.ts). */
  async start(): Promise<void> {
    const { stored, unlisted } = await reconcileConfigured(this.d.store, this.d.config.sessions);
    if (unlisted.length > 0) {
      const detail = { sessions: unlisted.length, sample: unlisted.slice(0, 10) };
      // A replica started with another file than the others' (or before their reload) removes
      // sessions they follow: said as a warning, since that is seldom what was meant.
      if (this.shared)
        this.d.log.warn(
          detail,
          'this configuration no longer lists sessions an earlier one did: removed for every replica of the shared store (their owners stop reading them); give every replica the same sessions',
        );
      else
        this.d.log.info(
          detail,
          'this configuration no longer lists sessions an earlier one did: not followed any more',
        );
    }
    // Shared store: not every replica that starts, but the one that claims them after its lease is
    // renewed (owed-span-claims.ts), and not while the session's live owner still finishes it.
    if (!this.shared) this.d.finishedSpans?.(stored.values());
    await this.d.scaling?.prepare([...stored.values()].filter((r) => r.lifecycle === 'active').length);
    this.d.scaling?.start();
    if (this.shared) {
      this.shared.start([...stored.values()].filter((r) => r.lifecycle === 'active').length);
      return;
    }
    const active = [...stored.values()].filter((r) => r.lifecycle === 'active');
    // Array.sort is stable: within a source, the store's order.
    this.followOrWait(active.sort((a, b) => START_ORDER[a.source] - START_ORDER[b.source]));
    this.d.log.info({ sessions: this.active.size, waiting: this.room.size }, 'following sessions');
    // A daemon started with nothing to do said only "0 configured session(s)" and then nothing at
    // all: a first run with the session variable misspelt looked like a bridge that hangs.
    if (this.active.size === 0 && this.room.size === 0 && !this.d.config.discovery.enabled)
      this.d.log.info(NOTHING_TO_FOLLOW);
  }

  /** Follows each row while there is room; the rest wait for it. */
  private followOrWait(rows: readonly SessionRow[]): void {
    this.room.admit(rows, (row) => this.follow(row));
  }

  /**
   * Room was freed: waiting sessions are followed, oldest first. With the shared store ownership
   * offers them again at its next pass (it knows which are still owned here).
   */
  private fillRoom(): void {
    if (this.ownership || this.stopping) return;
    for (let row = this.room.next(); row; row = this.room.next()) if (!this.active.has(row.spec.id)) this.follow(row);
  }

  isWaiting(id: string): boolean {
    return this.room.isWaiting(id);
  }

  /** Sessions recorded but not followed while max_sessions are (GET /v1/sessions `waiting`). */
  waitingForRoom(): string[] {
    return this.room.ids();
  }

  private follow(row: SessionRow): FollowedSession {
    const onWorker = this.d.ingest?.ready === true;
    const p = this.active.add(
      row.spec.id,
      onWorker ? this.d.ingest!.follow(row) : this.newSession(row, (id) => this.changes.ended(id)),
      onWorker,
    );
    this.room.forget(row.spec.id);
    this.allEnded.sessionFollowed();
    this.d.scaling?.sessionsChanged(this.active.size);
    p.start();
    return p;
  }

  /** PUT /v1/sessions/{id}: follow (or re-follow) a session; it survives restarts (session-changes.ts). */
  add(spec: SessionSpec, source: SessionSource = 'api'): Promise<{ created: boolean; status: OwnedStatus }> {
    return this.changes.add(spec, source);
  }

  /**
   * Discovery (discovery/discovery-loop.ts): the listed sessions the store does not know in any
   * lifecycle are recorded and followed; an ended or removed one stays so. Resolves with the ids added.
   */
  discovered(specs: readonly SessionSpec[]): Promise<string[]> {
    return this.changes.discovered(specs);
  }

  /** DELETE /v1/sessions/{id}: stop following. Records already read are still delivered. */
  remove(id: string): Promise<boolean> {
    return this.changes.remove(id);
  }

  /** Every session with its owner (shared store): GET /v1/sessions. */
  async statusWithOwners(): Promise<OwnedSessions> {
    if (!this.shared) return { sessions: this.status() };
    return this.shared.statusWithOwners(this.active, this.lifecycles.settling);
  }

  /** Sets the enrichment attributes (pool) of every later record of a followed session. */
  setSessionAttributes(id: string, attrs: Record<string, AttributeValue>): boolean {
    return this.active.setAttributes(id, attrs);
  }

  /** Specs of the followed sessions, with where each came from (for reload and pool lookup). */
  followed(): Array<{ spec: SessionSpec; source: SessionSource }> {
    return this.active.specs();
  }

  status(): SessionStatus[] {
    return this.active.status();
  }

  session(id: string): SessionStatus | undefined {
    return this.active.session(id);
  }

  get followedCount(): number {
    return this.active.size;
  }

  /**
   * Resolves once no session is followed any more and everything read was delivered (`run
   * --until-ended`); with `firstSession`, not before a session was followed (until-ended.ts).
   */
  untilAllEnded(o: { firstSession?: boolean } = {}): Promise<void> {
    return this.allEnded.wait(o);
  }

  /** The first step of the stop (stop-bridge.ts): nothing new followed, every stream stops. */
  readonly stopReading = once(async (): Promise<void> => {
    this.stopping = true;
    this.d.scaling?.stop();
    await this.ownership?.stop();
    await this.shared?.stop();
    await Promise.all(this.active.all().map((p) => p.stop()));
  });

  /** A step of the stop once delivery stopped and the spool spilled the rest (stop-bridge.ts). */
  readonly handOver = once(async (drained: boolean): Promise<void> => {
    // finish() spilled what persist() waited for: the ends and removals are recorded now.
    await this.lifecycles.drain();
    // Delivered what it could: the sessions (and what is left of their spool) go to the others now.
    await this.ownership?.close();
    const left = this.d.spool.spooled.records;
    // A deleted or replaced state database keeps nothing for the next start: say what happens instead.
    const gone = this.d.store.stateProblem?.();
    if (gone !== undefined)
      this.d.log.warn(
        { drained, problem: gone },
        'the state database is gone: the next start reads again from the service what was not delivered (checkpoints and sessions added through the API went with it)',
      );
    else
      this.d.log.info(
        { drained, leftInSpool: left },
        drained ? 'spool delivered' : 'grace period over; undelivered records stay spooled for the next start',
      );
  });
}
