// A replica's lease in the shared store: a row in bridge_replicas whose `lease_until` is set from
// the DATABASE's clock (now() + lease) on every renewal, so replicas never compare their own clocks.
// Other replicas treat the sessions of a replica whose lease ran out as orphans and claim them.
//
// Locally the lease is trusted only until (monotonic time the renewal was SENT) + lease − margin:
// the database set lease_until no earlier than that send, so when the local deadline passes without
// a successful renewal (GC pause, SIGSTOP, partition, database down), the database lease may be
// about to run out and another replica may claim our sessions. Then onExpired() fires once and the
// replica stops reading; fencing in the store rejects whatever was still under way.
//
// States: unheld → held (renewed within the deadline) → expired (deadline passed) → held again
// after a successful renewal (the sessions are then claimed afresh, at a new epoch).
import type pg from 'pg';

export interface LeaseOptions {
  db: pg.Pool;
  replicaId: string;
  leaseMs: number;
  /** Fraction of the lease kept as a safety margin on the local side. */
  marginFraction?: number;
  /** Monotonic milliseconds; performance.now by default. */
  now?: () => number;
  onExpired: () => void;
  onRenewed?: () => void;
  onRenewFailed?: (err: Error) => void;
}

export class Lease {
  private validUntil = 0;
  private held = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private readonly margin: number;

  constructor(private readonly o: LeaseOptions) {
    this.now = o.now ?? (() => performance.now());
    this.margin = Math.round(o.leaseMs * (o.marginFraction ?? 0.25));
  }

  /** True while the lease is held by the local (monotonic) deadline. */
  get valid(): boolean {
    return this.held && this.now() < this.validUntil;
  }

  /** Watches the local deadline between renewals. */
  start(): void {
    const step = Math.max(50, Math.min(250, Math.floor(this.o.leaseMs / 20)));
    this.timer = setInterval(() => this.check(), step);
    this.timer.unref();
  }

  private check(): void {
    if (this.held && this.now() >= this.validUntil) {
      this.held = false;
      this.o.onExpired();
    }
  }

  /** Renews (or takes) the lease; true on success. Never throws. */
  async renew(): Promise<boolean> {
    const sent = this.now();
    try {
      await this.o.db.query(
        `INSERT INTO bridge_replicas (id, lease_until) VALUES ($1, now() + $2 * interval '1 millisecond')
         ON CONFLICT (id) DO UPDATE SET lease_until = excluded.lease_until, renewed_at = now()`,
        [this.o.replicaId, this.o.leaseMs],
      );
    } catch (err) {
      this.o.onRenewFailed?.(err as Error);
      this.check();
      return false;
    }
    // A renewal that took longer than the deadline it would set is no renewal at all.
    const until = sent + this.o.leaseMs - this.margin;
    if (this.now() >= until) {
      this.check();
      return false;
    }
    this.validUntil = until;
    this.held = true;
    this.o.onRenewed?.();
    return true;
  }

  /** Replicas holding a valid lease by the database's clock, sorted. */
  async liveReplicas(): Promise<string[]> {
    const r = await this.o.db.query<{ id: string }>(
      'SELECT id FROM bridge_replicas WHERE lease_until > now() ORDER BY id',
    );
    return r.rows.map((x) => x.id);
  }

  /** Gives the lease up (clean shutdown): the others see this replica gone at once. */
  async drop(): Promise<void> {
    this.stop();
    this.held = false;
    await this.o.db.query('DELETE FROM bridge_replicas WHERE id = $1', [this.o.replicaId]);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
