// Discovery: follows every session of the service's list that matches the configured selector,
// without anyone naming it, however short it lived. There are no webhooks: the list is polled.
//
// State machine (one loop per bridge process):
//   start() → claim: ask the store for this interval's poll (store.claimDiscoveryPoll). Refused
//     (another replica of the shared store polled within the interval) → wait one interval.
//   → poll: two walks, each handing its pages to the host, which inserts the sessions the store
//     does not know and follows them (the shared store's ownership gives each to one replica):
//       the newest (recent-sessions.ts): `status=all`, live and deleted together, down to a cutoff:
//         the newest created_at this process saw at its last successful poll minus LIST_LAG_MS (the
//         service's own clock), or else the store's last success minus CLOCK_MARGIN_MS. A session
//         created and deleted between two polls is there, and is read from the archive by the
//         ordinary pipeline. Skipped at the very first poll of a store (nothing was missed).
//       the whole live list: at the first poll of the process and every FULL_WALK_MS after, for
//         the sessions older than any cutoff (and a count of what the selector matches).
//     All done → record the poll's start as the last success (durable) → wait one interval.
//     A service that refuses `status=all` is read as `active` and `deleted` apart, or as the
//     default list alone (recent-sessions.ts); each step down is said once (list-shape.ts), as is
//     a list that turns out not to be newest first (every walk then reads the whole list).
//   → a failed walk records nothing and waits: Retry-After on 429, backoff on 5xx and network
//     errors, the long auth backoff on 401/403, and a long pause on 404 (a service without the
//     list: configured and PUT sessions are followed as before).
//   stop() → aborts a request in flight and resolves when the loop has ended. Idempotent.
//
// A session is never stopped because it left the list: the stream's end decides, as for any session.
import { sameCollector } from '../upstream/session-export.js';
import type { BackoffConfig, DiscoveryConfig, SessionSpec } from '../config/schema.js';
import type { Store } from '../store/store.js';
import type { ListedSession, RefusedListing } from '../upstream/browser-list.js';
import { backoffDelay } from '../util/backoff.js';
import { once } from '../util/lifecycle.js';
import type { DiscoveryOutcome, Emit } from '../vocabulary/facts.js';
import { walkList, type ListClient, type WalkResult } from './list-sessions.js';
import { ListShape } from './list-shape.js';
import { walkNewest } from './recent-sessions.js';

/**
 * The service's created_at and the store's clock are different clocks: when only the store's last
 * success is known (a new process), sessions created up to this long before it are read too
 * (adding a known session is a no-op).
 */
export const CLOCK_MARGIN_MS = 5 * 60_000;
/**
 * A session may enter the list a little after its created_at (the record is written as the browser
 * starts): the walk of the newest reaches this far below the newest session it saw last time.
 */
export const LIST_LAG_MS = 60_000;
/** The whole live list is read this often (and at each process's first poll). */
export const FULL_WALK_MS = 5 * 60_000;
/** A service without the list is asked again this often at most (it may be upgraded). */
const NO_ROUTE_RETRY_MS = 5 * 60_000;
/** Refused listed ids remembered (and so not said again) at most. */
const REFUSED_KEPT = 10_000;

export interface DiscoveryHost {
  /** Follows the sessions the store does not know yet; resolves with the ids it added. */
  discovered(specs: readonly SessionSpec[]): Promise<readonly string[]>;
}

export interface DiscoveryLoopDeps {
  config: DiscoveryConfig;
  client: ListClient;
  store: Pick<Store, 'claimDiscoveryPoll' | 'recordDiscoveryPoll'>;
  host: DiscoveryHost;
  emit: Emit;
  /** upstream.backoff: the same policy the streams use against the same service. */
  backoff: BackoffConfig;
  /** The local clock (tests inject one). */
  now?: () => number;
  /** Where the bridge delivers: a session exporting there itself is said to double every event. */
  collectorUrl?: string;
}

/** What one pass decided, and how long to wait before the next. */
export interface PollOutcome {
  outcome: DiscoveryOutcome;
  delayMs: number;
}

export class DiscoveryLoop {
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** The latest created_at seen at the last successful poll (the service's clock). */
  private watermark: number | undefined;
  /** When the whole live list was last read (local clock), and how many sessions it matched. */
  private lastFullWalk: number | undefined;
  private matched = 0;
  /** How the newest sessions are read, and what was said of the list. */
  private readonly shape: ListShape;
  private readonly refusedIds = new Set<string>();
  /** Failed polls in a row (backoff attempt, and how often the log repeats itself). */
  private streak = 0;
  private markSettled: () => void = () => {};
  private readonly settledP = new Promise<void>((r) => (this.markSettled = r));
  /** Passes begun so far, and who waits for one that begins after a given count (nextPass). */
  private passes = 0;
  private passWaiters: Array<{ after: number; resolve: () => void }> = [];

  private readonly now: () => number;

  constructor(private readonly d: DiscoveryLoopDeps) {
    this.now = d.now ?? ((): number => Date.now());
    this.shape = new ListShape(d.emit);
  }

  start(): void {
    this.running ??= this.run();
  }

  /**
   * Resolves after the first pass that knows the list's state: a poll that read it, one another
   * replica made, or the service saying it has no list (or at stop). `run --until-ended` waits for
   * it, so a bridge that has not looked yet does not take "nothing followed" for "everything ended".
   */
  settled(): Promise<void> {
    return this.settledP;
  }

  /**
   * Resolves after the next pass that begins after this call and knows the list's state (as
   * settled()), or at stop: a session created before the call is in what that pass read.
   * `run --until-ended` asks it once every followed session ended, before it believes that none is left.
   */
  nextPass(): Promise<void> {
    if (this.abort.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => this.passWaiters.push({ after: this.passes, resolve }));
  }

  readonly stop = once(async (): Promise<void> => {
    this.abort.abort();
    this.wake?.();
    await this.running;
    this.markSettled();
    this.passed(Number.POSITIVE_INFINITY);
  });

  /** Pass `pass` knew the list's state: those waiting for a pass begun after theirs are answered. */
  private passed(pass: number): void {
    const due = this.passWaiters.filter((w) => w.after < pass);
    if (due.length === 0) return;
    this.passWaiters = this.passWaiters.filter((w) => w.after >= pass);
    for (const w of due) w.resolve();
  }

  private async run(): Promise<void> {
    while (!this.abort.signal.aborted) {
      const pass = ++this.passes;
      let next: PollOutcome;
      try {
        next = await this.pollOnce();
      } catch (err) {
        // The store failed (claim or record): nothing recorded, try again after a backoff.
        if (this.abort.signal.aborted) return;
        next = this.failed('failed', undefined, (err as Error).message, 0, 0);
      }
      if (next.outcome === 'ok' || next.outcome === 'skipped' || next.outcome === 'no_route') {
        this.markSettled();
        this.passed(pass);
      }
      await this.sleep(next.delayMs);
    }
  }

  /** One claim-and-poll pass (exported for tests through the class). */
  async pollOnce(): Promise<PollOutcome> {
    const cfg = this.d.config;
    const started = this.now();
    // A little under the interval: replicas whose timers drift do not skip whole intervals.
    const claim = await this.d.store.claimDiscoveryPoll(Math.floor(cfg.intervalMs * 0.8));
    if (!claim.claimed) {
      this.d.emit({ f: 'discovery_polled', outcome: 'skipped', matched: 0, pages: 0, seconds: 0, streak: this.streak });
      return { outcome: 'skipped', delayMs: cfg.intervalMs };
    }
    let newest: number | undefined;
    const saw = (t: number | undefined): void => {
      if (t !== undefined && (newest === undefined || t > newest)) newest = t;
    };
    // A store that never polled missed nothing: only the live list is read.
    const cutoff =
      this.watermark !== undefined
        ? this.watermark - LIST_LAG_MS
        : claim.lastSuccessAt !== null
          ? claim.lastSuccessAt - CLOCK_MARGIN_MS
          : undefined;
    let pages = 0;
    if (cutoff !== undefined) {
      const recent = await walkNewest(
        this.d.client,
        cfg,
        cutoff,
        (page, refused) => this.add(page, refused),
        this.shape.mode,
        this.abort.signal,
      );
      this.shape.note(recent);
      pages += recent.pages;
      if (recent.kind === 'error') return this.walkFailed(recent, started, pages);
      saw(recent.order?.newest);
    }
    if (this.lastFullWalk === undefined || started - this.lastFullWalk >= FULL_WALK_MS) {
      const live = await walkList(
        this.d.client,
        cfg,
        undefined,
        (page, refused) => {
          for (const s of page) saw(s.createdAt);
          return this.add(page, refused);
        },
        this.abort.signal,
      );
      pages += live.pages;
      if (live.kind === 'error') return this.walkFailed(live, started, pages);
      this.lastFullWalk = started;
      this.matched = live.matched;
    }
    if (newest !== undefined && (this.watermark === undefined || newest > this.watermark)) this.watermark = newest;
    await this.d.store.recordDiscoveryPoll(claim.now);
    this.d.emit({
      f: 'discovery_polled',
      outcome: 'ok',
      matched: this.matched,
      pages,
      seconds: (this.now() - started) / 1000,
      streak: this.streak,
    });
    this.streak = 0;
    return { outcome: 'ok', delayMs: cfg.intervalMs };
  }

  private async add(page: readonly ListedSession[], refused: readonly RefusedListing[] = []): Promise<void> {
    for (const r of refused) this.refuse(r);
    if (page.length === 0) return;
    const added = await this.d.host.discovered(page.map((s) => this.specOf(s)));
    if (added.length === 0) return;
    const deleted = new Set(page.filter((s) => s.deletedAt !== undefined).map((s) => s.id));
    const live = added.filter((id) => !deleted.has(id));
    const gone = added.filter((id) => deleted.has(id));
    if (live.length > 0) this.d.emit({ f: 'sessions_discovered', sessions: live, deleted: false });
    if (gone.length > 0) this.d.emit({ f: 'sessions_discovered', sessions: gone, deleted: true });
    // Said once per session, when it is first followed: the list already carries the setting.
    for (const s of page) {
      if (s.poolProblem !== undefined && added.includes(s.id))
        this.d.emit({ f: 'session_pool_refused', session: s.id, problem: s.poolProblem });
      if (s.otlpExport?.enabled !== true || !added.includes(s.id)) continue;
      const same = this.d.collectorUrl !== undefined && sameCollector(s.otlpExport, this.d.collectorUrl);
      this.d.emit({
        f: 'session_exports_otlp',
        session: s.id,
        destination: s.otlpExport.destination,
        sameCollector: same,
      });
    }
  }
  /**
   * A listed id no request can carry is said once for the life of the process, not at every poll
   * that lists it again. Bounded: past REFUSED_KEPT ids the set starts over (a list of ever new bad
   * ids is said again rather than grow it).
   */
  private refuse(r: RefusedListing): void {
    // Kept by a bounded excerpt: a hostile list's ids may be megabytes each (two that share it are
    // said once between them, which costs a log line, not a session).
    const key = r.id.length > 256 ? `${r.id.slice(0, 256)}…${r.id.length}` : r.id;
    if (this.refusedIds.has(key)) return;
    if (this.refusedIds.size >= REFUSED_KEPT) this.refusedIds.clear();
    this.refusedIds.add(key);
    this.d.emit({ f: 'listed_session_refused', problem: r.problem });
  }

  private specOf(s: ListedSession): SessionSpec {
    const pool = s.pool?.id ?? s.pool?.name;
    return {
      id: s.id,
      start: this.d.config.start,
      attributes: {},
      ...(pool !== undefined ? { pool } : {}),
      ...(s.poolProblem !== undefined ? { poolProblem: s.poolProblem } : {}),
    };
  }

  private walkFailed(r: Extract<WalkResult, { kind: 'error' }>, started: number, pages = r.pages): PollOutcome {
    const s = r.status;
    const outcome: DiscoveryOutcome =
      s === 404
        ? 'no_route'
        : s === 429
          ? 'rate_limited'
          : s === 401 || s === 403
            ? 'unauthorized'
            : s !== undefined && s >= 500
              ? 'server_error'
              : 'failed';
    return this.failed(outcome, s, r.detail, pages, (this.now() - started) / 1000, r.retryAfterMs);
  }

  private failed(
    outcome: DiscoveryOutcome,
    status: number | undefined,
    detail: string,
    pages: number,
    seconds: number,
    retryAfterMs?: number,
  ): PollOutcome {
    // A request cut by stop() is not a failure of the service.
    if (this.abort.signal.aborted) return { outcome, delayMs: 0 };
    this.streak++;
    const cfg = this.d.config;
    const delayMs =
      outcome === 'no_route'
        ? Math.max(cfg.intervalMs, NO_ROUTE_RETRY_MS)
        : outcome === 'unauthorized'
          ? this.d.backoff.authMs
          : outcome === 'rate_limited' && retryAfterMs !== undefined
            ? Math.max(retryAfterMs, 100)
            : backoffDelay(this.d.backoff, this.streak - 1);
    this.d.emit({
      f: 'discovery_polled',
      outcome,
      matched: 0,
      pages,
      seconds,
      delayMs,
      detail,
      streak: this.streak,
      ...(status !== undefined ? { status } : {}),
    });
    return { outcome, delayMs };
  }

  private sleep(ms: number): Promise<void> {
    if (this.abort.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        this.wake = undefined;
        resolve();
      };
    });
  }
}
