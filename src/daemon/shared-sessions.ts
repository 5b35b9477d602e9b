// The supervisor's side of the shared (PostgreSQL) store: the set of followed sessions is driven by
// ownership instead of by this process (cluster/ownership.ts). Every replica records the configured
// sessions and PUT/DELETE in the store, and follows only the sessions it owns; a PUT or DELETE on a
// replica that does not own the session is picked up by the owner at its next ownership pass
// (within a fifth of a lease). GET /v1/sessions lists every replica's sessions with their owner.
// The spans finished sessions still owe are sent by one replica at a time (owed-span-claims.ts).
import type { Logger } from 'pino';
import type { SessionSpec } from '../config/schema.js';
import type { Emit } from '../vocabulary/facts.js';
import type { Spool } from '../store/spool.js';
import type { SessionSource, Store } from '../store/store.js';
import type { PgStore } from '../store/pg-store.js';
import type { Delivery } from '../export/delivery.js';
import { readOwners } from '../cluster/ownership-view.js';
import { Ownership, type OwnedSessionsHost } from '../cluster/ownership.js';
import type { FollowedSessions } from './followed-sessions.js';
import { initialStatus, type SessionStatus } from '../session/session-status.js';
import type { SessionRow } from '../store/store.js';
import { lastKnown } from '../util/cached.js';
import { OwedSpanClaims, type SendOwedSpans } from './owed-span-claims.js';

/** A session's status with the replica that owns it (shared store; null: none right now). */
export type OwnedStatus = SessionStatus & { owner?: string | null };

/**
 * Every session, with its owner. `othersStale`: the store did not answer within OTHERS_WAIT_MS, so
 * the other replicas' sessions are its last answer, `ageMs` old (null: it never answered; only the
 * sessions followed here are listed).
 */
export interface OwnedSessions {
  sessions: OwnedStatus[];
  othersStale?: { ageMs: number | null };
}

/**
 * How long GET /v1/sessions waits for the store's view of the other replicas' sessions: a store that
 * does not answer (PostgreSQL stopped, a cut network) gives a query up only at its timeout, and `top`
 * or an operator's curl would hang until then.
 */
const OTHERS_WAIT_MS = 1000;

export interface SharedSessionsDeps {
  shared: { store: PgStore; leaseMs: number };
  store: Store;
  spool: Spool;
  delivery: Delivery;
  emit: Emit;
  log: Logger;
  /** Traces on: offers the spans of the finished sessions this replica claimed (finished-session-spans.ts). */
  sendOwedSpans?: SendOwedSpans | undefined;
  /** Sessions this replica finished and whose closing spans it is still sending: never claimed here. */
  finishing?: () => Iterable<string>;
}

export class SharedSessions {
  readonly ownership: Ownership;
  private readonly owedSpans: OwedSpanClaims | undefined;
  /** Every request reads the store afresh (ttl 0); a read out longer than OTHERS_WAIT_MS is not waited for. */
  private readonly others = lastKnown(() => this.readOthers(), { ttlMs: 0, waitMs: OTHERS_WAIT_MS });

  constructor(
    private readonly d: SharedSessionsDeps,
    host: OwnedSessionsHost,
  ) {
    const owed = d.sendOwedSpans
      ? new OwedSpanClaims({
          store: d.shared.store,
          send: d.sendOwedSpans,
          log: d.log,
          ...(d.finishing ? { finishing: d.finishing } : {}),
        })
      : undefined;
    this.owedSpans = owed;
    this.ownership = new Ownership({
      store: d.shared.store,
      spool: d.spool,
      leaseMs: d.shared.leaseMs,
      emit: d.emit,
      log: d.log,
      // Claimed only after a pass, so with the lease just renewed: the others see the claimer live.
      host: owed
        ? {
            ...host,
            ticked: () => {
              host.ticked?.();
              owed.pass();
            },
          }
        : host,
    });
    // After a pause, nothing is sent for a session before the lease was checked.
    d.delivery.gateWith(this.ownership.sendGate);
  }

  /** Starts taking part in ownership; `active` sessions are recorded in the store. */
  start(active: number): void {
    this.ownership.start();
    this.d.log.info(
      { sessions: active, replica: this.d.shared.store.replicaId },
      'sharing sessions with the other replicas of the store',
    );
  }

  /** Claims no more owed spans (the stop's first step; ownership stops beside it). */
  async stop(): Promise<void> {
    await this.owedSpans?.stop();
  }

  /** PUT of a session not followed here: followed by whichever replica owns it; the owner (maybe this one) claims it at its next pass. */
  async put(spec: SessionSpec, source: SessionSource): Promise<{ created: boolean; status: OwnedStatus }> {
    const before = (await readOwners(this.d.shared.store.db, [spec.id])).get(spec.id);
    const row = await this.d.store.putSession(spec, source);
    return {
      created: before?.lifecycle !== 'active',
      status: { ...initialStatus(row), owner: before?.owner ?? null },
    };
  }

  /** DELETE of a session not followed here: owned elsewhere (or by nobody yet), the owner stops at its next pass. */
  async remove(id: string): Promise<boolean> {
    const row = (await readOwners(this.d.shared.store.db, [id])).get(id);
    if (row?.lifecycle !== 'active') return false;
    await this.d.store.setLifecycle(id, 'removed');
    return true;
  }

  /**
   * Every active session of every replica with its owner, the ones followed here included, and the
   * ones that finished while this replica read them: GET /v1/sessions.
   */
  /** `settling`: sessions read no more whose end or removal waits to be recorded (still this replica's). */
  async statusWithOwners(followed: FollowedSessions, settling: ReadonlySet<string>): Promise<OwnedSessions> {
    const known = await this.others();
    const me = this.d.shared.store.replicaId;
    const out: OwnedStatus[] = followed.all().map((p) => ({ ...p.status(), owner: me }));
    if (known !== undefined) {
      const { owners, rows } = known.value;
      for (const [id, o] of owners) {
        if (followed.has(id) || settling.has(id) || o.lifecycle !== 'active') continue;
        const row = rows.get(id);
        if (row) out.push({ ...initialStatus(row), owner: o.owner });
      }
    }
    // The sessions that ended or were stopped while this replica read them, with their final status,
    // as a single bridge lists them; not one that is active again (a PUT after a DELETE) elsewhere.
    for (const s of followed.finishedStatus()) {
      if (known?.value.owners.get(s.id)?.lifecycle === 'active') continue;
      out.push({ ...s, owner: me });
    }
    const sessions = out.sort((a, b) => a.id.localeCompare(b.id));
    // A value older than the wait predates the read still out: the store did not answer in time.
    if (known === undefined) return { sessions, othersStale: { ageMs: null } };
    if (known.ageMs >= OTHERS_WAIT_MS) return { sessions, othersStale: { ageMs: Math.round(known.ageMs) } };
    return { sessions };
  }

  private async readOthers(): Promise<{
    owners: Awaited<ReturnType<typeof readOwners>>;
    rows: Map<string, SessionRow>;
  }> {
    // Active rows only, each through the index of active rows: finished ones are most of the table.
    const owners = await readOwners(this.d.shared.store.db);
    const rows = new Map((await this.d.shared.store.activeSessions()).map((r) => [r.spec.id, r]));
    return { owners, rows };
  }
}
