// The service's telemetry archive (GET /browsers/{id}/telemetry/events; docs/service-api.md "Archive",
// docs/upstream-differences.md "The archive"): every event of a session, outliving the session, read in
// pages of at most 100 with an opaque offset cursor. The bridge reads it to repair what the stream
// could not deliver (evicted events, frames that did not decode, a service restart, the tail of a
// session that ended unseen).
//
// A 404 means one of two things: the service has no such route (an older service: no archive for
// anyone) or it has no such session (its id was wrong; every other session still has its archive).
// The reader asks GET /browsers/{id}?include_deleted=true to tell them apart: a session the service
// knows (deleted ones included) whose archive is 404 means no route; a session it does not know is
// that session's problem alone.
//
// State, for the process: available ──404 for a known session──▶ absent, asked again after
// `reprobeMs` (the service may be upgraded; a session read then finds out); `upstream.archive: off`
// is absent for good. Per session: ──404 and the service does not know it──▶ that session alone is
// absent, asked again after `reprobeMs`. When the lookup itself fails, that one read fails and the
// verdict waits for the next one. Other failures (5xx, network, a page cut short, a page that is not
// a list) fail that one read after a few tries; the caller reads again later for a while (a gap is
// owed, not lost, while the archive is only unreadable) before it reports the loss as it would
// without an archive.
//
// Memory: a page may hold 100 screenshots (up to 128 MiB as read). Most pages are small (a tail of a
// few events) and are read at once, however many sessions end together; a page that passes
// LARGE_PAGE_BYTES while it is read waits for one of `concurrentPages` permits per reader (one
// reader per thread) and holds it until it has been handed on.
import type { Logger } from 'pino';
import { ignoreFacts, type Emit } from '../vocabulary/facts.js';
import { validateEnvelope, type Envelope } from './envelope.js';
import type { UpstreamClient } from './client.js';
import { semaphore, type Semaphore } from '../util/concurrency-limit.js';
import { steadyNow } from '../util/steady-clock.js';

export type ArchiveMode = 'auto' | 'off';

/** What one read of the archive gave. */
export type ArchiveRead =
  | { kind: 'ok'; envelopes: Envelope[] }
  /** No archive (off, or the service has no such route): the caller reports the loss. */
  | { kind: 'absent' }
  /** The archive exists but could not be read now. */
  | { kind: 'failed'; detail: string };

export interface ArchiveScan {
  /** RFC 3339 start of the window; the service's default (5 minutes ago) is too short for repair. */
  sinceMicros: number;
  /** Called with each page's valid envelopes; return false to stop reading. */
  onPage(envelopes: Envelope[]): boolean;
}

export interface ArchiveOptions {
  mode: ArchiveMode;
  /** Pages read at most per scan: a bound on what one repair may cost (100 events a page). */
  maxPages?: number;
  /** Tries per page before the read fails. */
  tries?: number;
  retryDelayMs?: number;
  /** How long a verdict of "no route" or "no such session" holds before the archive is asked again (default 10 minutes). */
  reprobeMs?: number;
  /** Where the verdicts go (a fact each: metrics, the log line). */
  emit?: Emit;
  /** Pages read and handed on at once, across every session of this reader (default 2). */
  concurrentPages?: number;
}

const PAGE = 100;
/** Large archive pages in memory at once per reader: each may be as large as 128 MiB. */
export const CONCURRENT_PAGES = 2;
/** A page is large (it needs a permit) past this many bytes: a dozen screenshots. */
export const LARGE_PAGE_BYTES = 8 * 1024 * 1024;
const REPROBE_MS = 10 * 60 * 1000;
/** Sessions remembered as unknown to the archive at most (oldest forgotten first). */
const MAX_UNKNOWN = 10_000;

type PageOutcome = { kind: 'ok'; more: boolean; nextOffset: string | undefined } | Exclude<ArchiveRead, { kind: 'ok' }>;

export class ArchiveReader {
  private readonly off: boolean;
  /** Until when the service is taken to have no archive route (0: it has one, as far as known). */
  private absentUntil = 0;
  /** Sessions the service does not know, until when. */
  private readonly unknown = new Map<string, number>();
  private readonly emit: Emit;
  /** Permits of large pages. */
  private readonly largePages: Semaphore;

  constructor(
    private readonly client: Pick<UpstreamClient, 'listEvents'> & Partial<Pick<UpstreamClient, 'getSession'>>,
    _log: Logger,
    private readonly opts: ArchiveOptions,
  ) {
    this.off = opts.mode === 'off';
    this.emit = opts.emit ?? ignoreFacts;
    this.largePages = semaphore(opts.concurrentPages ?? CONCURRENT_PAGES);
  }

  /** One page read and handed on; a large one holds a permit until it has been handed on. */
  private async heldPage(
    sessionId: string,
    q: Parameters<UpstreamClient['listEvents']>[1],
    signal: AbortSignal | undefined,
    onPage: (envelopes: Envelope[]) => boolean,
  ): Promise<PageOutcome> {
    const held: Array<() => void> = [];
    try {
      const res = await this.page(sessionId, q, signal, held);
      if (res.kind !== 'ok') return res;
      return { kind: 'ok', more: onPage(res.envelopes) && res.hasMore, nextOffset: res.nextOffset };
    } finally {
      for (const release of held.splice(0)) release();
    }
  }

  /** False while the archive is known not to exist (or is switched off). */
  get usable(): boolean {
    return !this.off && steadyNow() >= this.absentUntil;
  }

  private absentFor(sessionId: string): boolean {
    if (!this.usable) return true;
    const until = this.unknown.get(sessionId);
    if (until === undefined) return false;
    if (steadyNow() < until) return true;
    this.unknown.delete(sessionId);
    return false;
  }

  /** Pages through the archive oldest first from `sinceMicros`, until onPage says stop or nothing is left. */
  async scan(sessionId: string, scan: ArchiveScan, signal?: AbortSignal): Promise<ArchiveRead> {
    if (this.absentFor(sessionId)) return { kind: 'absent' };
    const maxPages = this.opts.maxPages ?? 2000;
    let offset: string | undefined;
    const since = new Date(Math.max(0, Math.floor(scan.sinceMicros / 1000))).toISOString();
    for (let page = 0; page < maxPages; page++) {
      const res = await this.heldPage(
        sessionId,
        offset === undefined ? { limit: PAGE, since } : { limit: PAGE, offset },
        signal,
        (envelopes) => scan.onPage(envelopes),
      );
      if (res.kind !== 'ok') return res;
      if (!res.more || res.nextOffset === undefined) return { kind: 'ok', envelopes: [] };
      offset = res.nextOffset;
    }
    return { kind: 'failed', detail: `archive longer than ${maxPages} pages from the gap on` };
  }

  /** The newest archived event, if any (`start: latest` takes its seq as the baseline). */
  async newest(sessionId: string, signal?: AbortSignal): Promise<ArchiveRead> {
    if (this.absentFor(sessionId)) return { kind: 'absent' };
    // desc reads from the newest archived event back; the service rejects `since` with it.
    const res = await this.page(sessionId, { limit: 1, order: 'desc' }, signal);
    if (res.kind !== 'ok') return res;
    return { kind: 'ok', envelopes: res.envelopes.slice(0, 1) };
  }

  private async page(
    sessionId: string,
    q: Parameters<UpstreamClient['listEvents']>[1],
    signal?: AbortSignal,
    held?: Array<() => void>,
  ): Promise<
    { kind: 'ok'; envelopes: Envelope[]; hasMore: boolean; nextOffset?: string } | Exclude<ArchiveRead, { kind: 'ok' }>
  > {
    const tries = this.opts.tries ?? 3;
    let detail = '';
    for (let attempt = 0; attempt < tries; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, (this.opts.retryDelayMs ?? 200) * attempt));
      // A failed try gives its permit back before the next: two repairs retrying cannot deadlock.
      for (const release of held?.splice(0) ?? []) release();
      const gate =
        held === undefined
          ? undefined
          : {
              aboveBytes: LARGE_PAGE_BYTES,
              enter: async (): Promise<void> => {
                held.push(await this.largePages.acquire());
              },
            };
      let res;
      try {
        res = await this.client.listEvents(sessionId, q, signal, gate);
      } catch (err) {
        detail = (err as Error).message;
        continue;
      }
      if (res.kind === 'ok') {
        const envelopes: Envelope[] = [];
        for (const item of res.items) {
          const v = validateEnvelope(item);
          if (v.ok) envelopes.push(v.envelope);
        }
        return {
          kind: 'ok',
          envelopes,
          hasMore: res.hasMore,
          ...(res.nextOffset !== undefined ? { nextOffset: res.nextOffset } : {}),
        };
      }
      if (res.status === 404) return this.notFound(sessionId, signal);
      detail = `HTTP ${res.status}: ${res.error.message}`;
      if (res.status < 500 && res.status !== 429) break;
    }
    return { kind: 'failed', detail };
  }

  /** A 404 on the archive: no route (for everyone) or no such session (for this one)? */
  private async notFound(sessionId: string, signal?: AbortSignal): Promise<Exclude<ArchiveRead, { kind: 'ok' }>> {
    // The steady clock: a wall clock stepped back must not keep a verdict for the step's length.
    const reprobe = steadyNow() + (this.opts.reprobeMs ?? REPROBE_MS);
    let known: boolean;
    if (!this.client.getSession) {
      known = true;
    } else {
      try {
        const r = await this.client.getSession(sessionId, signal);
        if (r.kind !== 'ok' && r.status !== 404) {
          const detail = `archive answered 404 and the session lookup ${r.status}: ${r.error.message}`;
          this.emit({ f: 'archive_probed', session: sessionId, verdict: 'undecided', detail });
          return { kind: 'failed', detail };
        }
        known = r.kind === 'ok';
      } catch (err) {
        const detail = `archive answered 404 and the session lookup failed: ${(err as Error).message}`;
        this.emit({ f: 'archive_probed', session: sessionId, verdict: 'undecided', detail });
        return { kind: 'failed', detail };
      }
    }
    if (known) {
      this.absentUntil = reprobe;
      this.emit({
        f: 'archive_probed',
        session: sessionId,
        verdict: 'no_route',
        detail: 'the service knows the session but has no telemetry archive (404 on /telemetry/events)',
      });
    } else {
      if (this.unknown.size >= MAX_UNKNOWN) this.unknown.delete(this.unknown.keys().next().value as string);
      this.unknown.set(sessionId, reprobe);
      this.emit({
        f: 'archive_probed',
        session: sessionId,
        verdict: 'no_session',
        detail: 'the service does not know this session (GET /browsers/{id}?include_deleted=true is 404)',
      });
    }
    return { kind: 'absent' };
  }
}
