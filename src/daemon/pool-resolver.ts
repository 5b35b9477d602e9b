// Pool enrichment (docs/design.md "What it is": the pool resolver). For every followed session
// configured with a pool, the pool is looked up (GET /browser_pools/{id_or_name}) at start and then
// every `refreshMs`, once per distinct pool reference however many sessions share it. A resolved
// pool adds browser.pool.id, browser.pool.name and cloud.region to every later record of its
// sessions, and its telemetry configuration is checked for conditions the operator must know about
// (upstream/browser-pool.ts poolFindings), each reported once per pool until it clears.
//
// Per pool reference:  pending ──ok──▶ resolved ──refresh──▶ …
//                         └──error──▶ error (last good attributes are kept) ──retry──▶ …
// Retry timing: 429 waits Retry-After; 5xx, network errors and invalid bodies back off
// exponentially up to refreshMs; 401/403/404 wait for the next regular refresh (retrying sooner
// cannot fix a key, a permission or a name). A lookup never throws into the pipeline: delivery does
// not depend on it.
//
// Sessions can be added and removed at run time (control API, reload), so the session set is
// re-read every `syncMs`: a new pool reference is looked up at once, a pool nobody uses any more is
// dropped, and known attributes are applied to sessions that appeared since.
import type { Logger } from 'pino';
import type { SessionSpec } from '../config/schema.js';
import type { AttributeValue } from '../vocabulary/log-record.js';
import { describeApiError } from '../upstream/api-error.js';
import type { UpstreamClient } from '../upstream/client.js';
import { parsePool, poolAttributes, poolFindings, type BrowserPool } from '../upstream/browser-pool.js';
import { backoffDelay } from '../util/backoff.js';
import { networkMessage } from '../util/network-message.js';
import { quotedExcerpt } from '../util/printable.js';
import { poolRefProblem } from '../config/sessions.js';

/** The part of the supervisor the resolver needs. */
export interface PoolSessions {
  followed(): Array<{ spec: SessionSpec }>;
  setSessionAttributes(id: string, attrs: Record<string, AttributeValue>): boolean;
}

export interface PoolResolverOptions {
  client: Pick<UpstreamClient, 'getPool' | 'invalidateKey'>;
  sessions: PoolSessions;
  log: Logger;
  refreshMs: number;
  /** How often the followed sessions are re-read; default min(5 s, refreshMs). */
  syncMs?: number;
  /** Backoff for transient lookup failures; capped by refreshMs. */
  retry?: { initialMs: number; maxMs: number };
  /** The local clock, epoch ms, for the times status shows (tests inject one). */
  now?: () => number;
}

export interface PoolLookupError {
  /** HTTP status; absent for network errors. */
  status?: number;
  code: string;
  message: string;
  at: string;
}

/** What status surfaces show per configured pool reference. */
export interface PoolStatus {
  /** The pool id or name as configured on the sessions. */
  ref: string;
  sessions: string[];
  state: 'pending' | 'resolved' | 'error';
  pool?: { id: string; name?: string; region?: string };
  lastLookupAt?: string;
  lastResolvedAt?: string;
  lastError?: PoolLookupError;
  /** Current telemetry-configuration findings of the last resolved pool. */
  findings: Array<{ level: 'warn' | 'info'; message: string }>;
}

interface Entry {
  ref: string;
  sessions: Set<string>;
  pool?: BrowserPool;
  attrs?: Record<string, string>;
  lastLookupAt?: string;
  lastResolvedAt?: string;
  lastError?: PoolLookupError;
  failures: number;
  timer?: NodeJS.Timeout;
  inFlight?: Promise<void>;
}

export class PoolResolver {
  private readonly entries = new Map<string, Entry>();
  /** Finding keys currently reported, per pool id: "once per pool per distinct condition". */
  private readonly reported = new Map<string, Set<string>>();
  private readonly controller = new AbortController();
  private syncTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly syncMs: number;
  private readonly retry: { initialMs: number; maxMs: number };
  private readonly now: () => number;

  constructor(private readonly o: PoolResolverOptions) {
    this.syncMs = o.syncMs ?? Math.min(5000, o.refreshMs);
    this.retry = o.retry ?? { initialMs: 2000, maxMs: o.refreshMs };
    this.now = o.now ?? ((): number => Date.now());
  }

  private stamp(): string {
    return new Date(this.now()).toISOString();
  }

  /** Looks up every configured pool now and keeps them fresh until stop(). */
  start(): void {
    if (this.stopped || this.syncTimer) return;
    this.sync();
    this.syncTimer = setInterval(() => this.sync(), this.syncMs);
    // Enrichment alone must not keep a process alive (e.g. after the daemon decided to exit).
    this.syncTimer.unref();
  }

  /** Re-reads the followed sessions: looks up new pool references, applies known attributes. */
  sync(): void {
    if (this.stopped) return;
    const wanted = new Map<string, string[]>();
    for (const { spec } of this.o.sessions.followed()) {
      if (!spec.pool) continue;
      const ids = wanted.get(spec.pool);
      if (ids) ids.push(spec.id);
      else wanted.set(spec.pool, [spec.id]);
    }
    for (const [ref, entry] of this.entries) {
      if (!wanted.has(ref)) {
        clearTimeout(entry.timer);
        this.entries.delete(ref);
      }
    }
    for (const [ref, ids] of wanted) {
      let entry = this.entries.get(ref);
      if (!entry) {
        entry = { ref, sessions: new Set(ids), failures: 0 };
        this.entries.set(ref, entry);
        // Refs are checked where they enter; a session stored by an older version may still carry
        // one no request can ask for. Refused once here: the client's refusal read as a network
        // error and was retried for ever.
        const problem = poolRefProblem(ref);
        if (problem === undefined) void this.lookup(entry);
        else this.refused(entry, problem);
        continue;
      }
      entry.sessions = new Set(ids);
      // Re-applied every sync: cheap, and it covers a session removed and re-added in between.
      if (entry.attrs) for (const id of ids) this.o.sessions.setSessionAttributes(id, entry.attrs);
    }
  }

  /** Looks up every known pool now (tests, and a reload that wants fresh data). */
  async refresh(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => this.lookup(e)));
  }

  poolStatus(): PoolStatus[] {
    return [...this.entries.values()]
      .map((e) => {
        const s: PoolStatus = {
          ref: e.ref,
          sessions: [...e.sessions].sort(),
          state: e.lastError ? 'error' : e.pool ? 'resolved' : 'pending',
          findings: e.pool ? poolFindings(e.pool).map(({ level, message }) => ({ level, message })) : [],
        };
        if (e.pool) {
          s.pool = { id: e.pool.id };
          if (e.pool.name !== undefined) s.pool.name = e.pool.name;
          if (e.pool.region !== undefined) s.pool.region = e.pool.region;
        }
        if (e.lastLookupAt) s.lastLookupAt = e.lastLookupAt;
        if (e.lastResolvedAt) s.lastResolvedAt = e.lastResolvedAt;
        if (e.lastError) s.lastError = { ...e.lastError };
        return s;
      })
      .sort((a, b) => a.ref.localeCompare(b.ref));
  }

  /** Idempotent: cancels timers and lookups in flight, and waits for them to settle. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.syncTimer);
    this.controller.abort();
    const pending: Promise<void>[] = [];
    for (const e of this.entries.values()) {
      clearTimeout(e.timer);
      if (e.inFlight) pending.push(e.inFlight);
    }
    await Promise.all(pending);
  }

  /** One lookup of one pool reference; concurrent calls share the request in flight. */
  private lookup(entry: Entry): Promise<void> {
    if (this.stopped) return Promise.resolve();
    clearTimeout(entry.timer);
    entry.inFlight ??= this.doLookup(entry).finally(() => {
      entry.inFlight = undefined;
    });
    return entry.inFlight;
  }

  private async doLookup(entry: Entry): Promise<void> {
    entry.lastLookupAt = this.stamp();
    let nextMs = this.o.refreshMs;
    try {
      const res = await this.o.client.getPool(entry.ref, this.controller.signal);
      if (this.stopped) return;
      if (res.kind === 'ok') {
        const parsed = parsePool(res.value);
        if (parsed.ok) this.resolved(entry, parsed.pool);
        else
          nextMs = this.failed(entry, {
            status: 200,
            code: 'invalid_pool',
            message: `the answer is not a browser pool: ${parsed.reason}`,
            at: '',
          });
      } else {
        const error: PoolLookupError = { status: res.status, code: res.error.code, message: res.error.message, at: '' };
        nextMs = this.failed(entry, error, res.retryAfterMs);
        // A key file rotated in place is picked up on the next request (api-key.ts).
        if (res.status === 401) this.o.client.invalidateKey();
      }
    } catch (err) {
      if (this.stopped) return;
      nextMs = this.failed(entry, { code: 'network_error', message: networkMessage(err), at: '' });
    }
    if (!this.stopped && this.entries.get(entry.ref) === entry) {
      entry.timer = setTimeout(() => void this.lookup(entry), nextMs);
      entry.timer.unref();
    }
  }

  private refused(entry: Entry, problem: string): void {
    entry.lastError = {
      code: 'invalid_reference',
      message: `cannot be requested: ${problem}`,
      at: this.stamp(),
    };
    this.o.log.warn(
      { pool: quotedExcerpt(entry.ref), sessions: entry.sessions.size },
      `pool ${quotedExcerpt(entry.ref)} cannot be requested (${problem}): never looked up; delivery continues without pool attributes`,
    );
  }

  private resolved(entry: Entry, pool: BrowserPool): void {
    const recovered = entry.lastError !== undefined;
    entry.pool = pool;
    entry.attrs = poolAttributes(pool);
    entry.lastResolvedAt = this.stamp();
    entry.lastError = undefined;
    entry.failures = 0;
    for (const id of entry.sessions) this.o.sessions.setSessionAttributes(id, entry.attrs);
    const fields = { pool: entry.ref, poolId: pool.id, sessions: entry.sessions.size };
    if (recovered) this.o.log.info(fields, 'pool lookup succeeds again');
    if (pool.ignored.length > 0)
      this.o.log.debug({ ...fields, ignored: pool.ignored }, 'pool members with an unexpected type were ignored');
    this.report(pool, fields);
  }

  /** Logs each finding when it appears; forgets it when it clears, so a recurrence is reported again. */
  private report(pool: BrowserPool, fields: Record<string, unknown>): void {
    let seen = this.reported.get(pool.id);
    if (!seen) this.reported.set(pool.id, (seen = new Set()));
    const current = poolFindings(pool);
    const keys = new Set(current.map((f) => f.key));
    for (const k of [...seen]) if (!keys.has(k)) seen.delete(k);
    for (const f of current) {
      if (seen.has(f.key)) continue;
      seen.add(f.key);
      this.o.log[f.level]({ ...fields, condition: f.key.split(':')[0] }, `pool ${pool.name ?? pool.id}: ${f.message}`);
    }
  }

  /** Records and logs a failure; returns the delay before the next attempt. */
  private failed(entry: Entry, error: PoolLookupError, retryAfterMs?: number): number {
    error.at = this.stamp();
    const previous = entry.lastError;
    entry.lastError = error;
    entry.failures++;
    const status = error.status;
    let nextMs: number;
    if (status === 429) nextMs = retryAfterMs ?? backoffDelay(this.retry, entry.failures - 1);
    else if (status === 401 || status === 403 || status === 404) nextMs = this.o.refreshMs;
    else nextMs = backoffDelay(this.retry, entry.failures - 1);
    nextMs = Math.min(nextMs, Math.max(this.o.refreshMs, retryAfterMs ?? 0));
    // The same error again is not news: log it when it first appears or changes.
    const same = previous !== undefined && previous.status === status && previous.code === error.code;
    const text = status !== undefined ? describeApiError(status, error) : `network error: ${error.message}`;
    const fields = {
      pool: entry.ref,
      status,
      code: error.code,
      error: text,
      retryInMs: nextMs,
      sessions: entry.sessions.size,
    };
    const hint = HINTS[status ?? 0] ?? 'enrichment pauses for this pool; delivery continues';
    if (same) this.o.log.debug(fields, `pool lookup failed again: ${hint}`);
    else this.o.log[status === 429 ? 'warn' : 'error'](fields, `pool lookup failed: ${hint}`);
    return nextMs;
  }
}

const HINTS: Record<number, string> = {
  401: 'the API key was rejected; delivery continues without pool attributes',
  403: 'the API key may not read this pool; delivery continues without pool attributes',
  404: 'no pool with this id or name; delivery continues without pool attributes',
  429: 'rate limited; retrying after Retry-After, delivery continues',
};

/** Creates and starts a resolver (the bridge calls this after supervisor.start()). */
export function startPoolResolver(o: PoolResolverOptions): PoolResolver {
  const r = new PoolResolver(o);
  r.start();
  return r;
}
