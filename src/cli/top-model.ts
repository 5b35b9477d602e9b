// What `top` shows, computed from two successive reads of the bridge's HTTP surface (GET
// /v1/sessions and GET /metrics): per-session state, rate, lag, gaps and last error; the exporter's
// delivery and failure rates and the spool's fill. Pure: the command does the fetching.
//
// A session that ended is not a failure: the real service ends one by resetting the connection and
// answering 502 until the 404 that says it ended, so the errors on its way out are not its last
// word. An ended row carries no error and sorts below the live ones (top-render.ts). With the
// shared store, a session another replica reads shows that replica as its owner, not as idle here.
import { printable } from '../util/printable.js';

/** The fields of one GET /v1/sessions entry that `top` reads (server/http-server.ts). */
export interface SessionStatusView {
  id: string;
  state: string;
  /** config, api or discovery (absent from older bridges). */
  source?: string;
  lastReceivedSeq: number;
  lastDeliveredSeq: number;
  received: number;
  gaps: number;
  missingEvents: number;
  reconnects: Record<string, number>;
  lastError?: string;
  /** The gap it waits on while the archive cannot be read (absent from older bridges). */
  owedGap?: { firstSeq: number; lastSeq?: number; detail: string; until: string };
  /** The replica that reads it (shared store only; null while nobody does). */
  owner?: string | null;
}

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One read of the surface, at `atMs`. */
export interface Snapshot {
  atMs: number;
  sessions: SessionStatusView[];
  metrics: PromSample[];
  /** This bridge's replica id, when it shares a store with others (GET /v1/sessions `replica`). */
  replica?: string;
  /** Why the exporter fails, when it does (GET /readyz `exporter.lastError`). */
  exporterError?: string;
  /** Why the span exporter fails, when it does (GET /readyz `traces.lastError`). */
  tracesError?: string;
  /**
   * The store did not answer in time, so the other replicas' sessions are its last answer, this old
   * (GET /v1/sessions `othersStale.ageMs`; null: it never answered, only this replica's are listed).
   */
  othersStaleMs?: number | null;
}

export interface SessionRow {
  id: string;
  state: string;
  /** Where the session came from: config, api or discovery; '-' when the bridge does not say. */
  source: string;
  /** Events received per second since the previous read; undefined on the first read. */
  rate: number | undefined;
  /** Events received but not yet acknowledged by the collector (seq difference). */
  lag: number;
  gaps: number;
  missing: number;
  reconnects: number;
  lastError: string;
  /** The replica that reads it; '-' without a shared store or while nobody does. */
  owner: string;
  /** It ended (or the service never knew it): shown below the sessions that are still read. */
  done: boolean;
}

export interface TopModel {
  version: string | undefined;
  sessions: SessionRow[];
  exporter: {
    deliveredRate: number | undefined;
    receivedRate: number | undefined;
    failureRate: number | undefined;
    failures: number;
    spoolBytes: number;
    spoolCapacity: number | undefined;
    spoolRecords: number;
    oldestAgeSeconds: number;
    /** Why it fails, when it does. */
    lastError: string | undefined;
    /** Why the spans' export fails, when it does (traces.enabled). */
    tracesError: string | undefined;
  };
  /** Whether the bridge shares its store with other replicas (the OWNER column is shown). */
  replicated: boolean;
  /** Snapshot.othersStaleMs: the other replicas' sessions are not current (undefined: they are). */
  othersStaleMs: number | null | undefined;
}

/** Reads Prometheus text exposition into samples; comments and unreadable lines are skipped. */
export function parseMetrics(text: string): PromSample[] {
  const out: PromSample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_x, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** GET /v1/sessions `othersStale` (shared store, the store slow to answer), when it says so plainly. */
export function parseOthersStale(v: unknown): Pick<Snapshot, 'othersStaleMs'> {
  if (typeof v !== 'object' || v === null || !('ageMs' in v)) return {};
  const age = v.ageMs;
  if (age === null) return { othersStaleMs: null };
  return typeof age === 'number' && Number.isFinite(age) && age >= 0 ? { othersStaleMs: age } : {};
}

/** Sum of the samples named `name` whose labels pass `keep`; undefined when there are none. */
export function sum(
  samples: readonly PromSample[],
  name: string,
  keep: (labels: Record<string, string>) => boolean = () => true,
): number | undefined {
  let total: number | undefined;
  for (const s of samples) if (s.name === name && keep(s.labels)) total = (total ?? 0) + s.value;
  return total;
}

const perSecond = (now: number | undefined, before: number | undefined, seconds: number): number | undefined =>
  now === undefined || before === undefined || seconds <= 0 ? undefined : Math.max(0, (now - before) / seconds);

const failed = (l: Record<string, string>): boolean => l.outcome !== 'success';

export function buildModel(prev: Snapshot | undefined, cur: Snapshot): TopModel {
  const seconds = prev ? (cur.atMs - prev.atMs) / 1000 : 0;
  const before = new Map(prev?.sessions.map((s) => [s.id, s]));
  const m = cur.metrics;
  const pm = prev?.metrics ?? [];
  const failures = sum(m, 'bridge_export_requests_total', failed) ?? 0;
  return {
    version: ((v) => (v === undefined ? undefined : printable(v)))(
      m.find((s) => s.name === 'bridge_build_info')?.labels.version,
    ),
    // What the daemon reports may quote the service: never let it steer the terminal.
    sessions: cur.sessions.map((s) => sessionRow(s, before.get(s.id), seconds, cur.replica, cur.atMs)),
    exporter: {
      deliveredRate: perSecond(
        sum(m, 'bridge_events_delivered_total'),
        prev && sum(pm, 'bridge_events_delivered_total'),
        seconds,
      ),
      receivedRate: perSecond(
        sum(m, 'bridge_events_received_total'),
        prev && sum(pm, 'bridge_events_received_total'),
        seconds,
      ),
      failureRate: perSecond(failures, prev && (sum(pm, 'bridge_export_requests_total', failed) ?? 0), seconds),
      failures,
      spoolBytes: sum(m, 'bridge_spool_bytes') ?? 0,
      spoolCapacity: sum(m, 'bridge_spool_capacity_bytes') || undefined,
      spoolRecords: sum(m, 'bridge_spool_records') ?? 0,
      oldestAgeSeconds: sum(m, 'bridge_oldest_undelivered_age_seconds') ?? 0,
      lastError: cur.exporterError === undefined ? undefined : printable(cur.exporterError),
      tracesError: cur.tracesError === undefined ? undefined : printable(cur.tracesError),
    },
    replicated: cur.replica !== undefined,
    othersStaleMs: cur.othersStaleMs,
  };
}

function sessionRow(
  s: SessionStatusView,
  before: SessionStatusView | undefined,
  seconds: number,
  replica: string | undefined,
  atMs: number,
): SessionRow {
  const ended = s.state === 'ended';
  // Another replica's session is listed from the store alone: its numbers are that replica's to tell.
  const elsewhere = replica !== undefined && typeof s.owner === 'string' && s.owner !== replica;
  return {
    id: printable(String(s.id)),
    state: elsewhere ? 'elsewhere' : printable(String(s.state)),
    source: printable(String(s.source ?? '-')),
    rate: elsewhere ? undefined : perSecond(s.received, before?.received, seconds),
    lag: Math.max(0, s.lastReceivedSeq - s.lastDeliveredSeq),
    gaps: s.gaps,
    missing: s.missingEvents,
    reconnects: Object.values(s.reconnects ?? {}).reduce((a, b) => a + b, 0),
    lastError: ended ? '' : printable(s.owedGap ? owedGapNote(s.owedGap, atMs) : String(s.lastError ?? '')),
    owner: typeof s.owner === 'string' ? printable(s.owner) : '-',
    done: ended || s.state === 'unknown',
  };
}

/**
 * A session waiting on an owed gap streams nothing and shows no error of its own: this says what
 * it waits for, why, and how long before the gap is recorded as lost (session/owed-gap.ts).
 */
export function owedGapNote(g: NonNullable<SessionStatusView['owedGap']>, atMs: number): string {
  const events =
    g.lastSeq === undefined
      ? `events after #${g.firstSeq - 1}`
      : g.lastSeq === g.firstSeq
        ? `event #${g.firstSeq}`
        : `events #${g.firstSeq}-${g.lastSeq}`;
  const left = Math.max(0, Math.ceil((Date.parse(g.until) - atMs) / 1000));
  const when = Number.isFinite(left) ? `recorded as lost in ${left}s unless read` : 'recorded as lost unless read';
  return `archive unreadable, waiting for ${events}: ${g.detail}; ${when}`;
}
