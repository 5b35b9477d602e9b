// The service's telemetry archive (GET /browsers/{id}/telemetry/events; docs/service-api.md "Archive",
// docs/upstream-differences.md "The archive"): every event of a session, outliving the session, read in
// pages of at most 100 with an opaque offset cursor. The bridge reads it to repair what the stream
// could not deliver (evicted events, frames that did not decode, a service restart, the tail of a
// session that ended unseen).
//
// State: unknown ──200──▶ available; unknown/available ──404 on the route──▶ absent (remembered for
// the whole process: an older service has no such route, and asking again for every gap helps
// nobody). `upstream.archive: off` starts absent. Other failures (5xx, network, a page that is not a
// list) fail that one read after a few tries; the caller then reports the loss as it would without
// an archive.
import type { Logger } from 'pino';
import { validateEnvelope, type Envelope } from './envelope.js';
import type { UpstreamClient } from './client.js';

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
}

const PAGE = 100;

export class ArchiveReader {
  private absent: boolean;
  private warned = false;

  constructor(
    private readonly client: Pick<UpstreamClient, 'listEvents'>,
    private readonly log: Logger,
    private readonly opts: ArchiveOptions,
  ) {
    this.absent = opts.mode === 'off';
  }

  /** False once the archive is known not to exist (or is switched off). */
  get usable(): boolean {
    return !this.absent;
  }

  /** Pages through the archive oldest first from `sinceMicros`, until onPage says stop or nothing is left. */
  async scan(sessionId: string, scan: ArchiveScan, signal?: AbortSignal): Promise<ArchiveRead> {
    if (this.absent) return { kind: 'absent' };
    const maxPages = this.opts.maxPages ?? 2000;
    let offset: string | undefined;
    const since = new Date(Math.max(0, Math.floor(scan.sinceMicros / 1000))).toISOString();
    for (let page = 0; page < maxPages; page++) {
      const res = await this.page(sessionId, offset === undefined ? { limit: PAGE, since } : { limit: PAGE, offset }, signal);
      if (res.kind !== 'ok') return res;
      if (!scan.onPage(res.envelopes)) return { kind: 'ok', envelopes: [] };
      if (!res.hasMore || res.nextOffset === undefined) return { kind: 'ok', envelopes: [] };
      offset = res.nextOffset;
    }
    return { kind: 'failed', detail: `archive longer than ${maxPages} pages from the gap on` };
  }

  /** The newest archived event, if any (`start: latest` takes its seq as the baseline). */
  async newest(sessionId: string, signal?: AbortSignal): Promise<ArchiveRead> {
    if (this.absent) return { kind: 'absent' };
    // desc reads from the newest archived event back; the service rejects `since` with it.
    const res = await this.page(sessionId, { limit: 1, order: 'desc' }, signal);
    if (res.kind !== 'ok') return res;
    return { kind: 'ok', envelopes: res.envelopes.slice(0, 1) };
  }

  private async page(
    sessionId: string,
    q: Parameters<UpstreamClient['listEvents']>[1],
    signal?: AbortSignal,
  ): Promise<{ kind: 'ok'; envelopes: Envelope[]; hasMore: boolean; nextOffset?: string } | Exclude<ArchiveRead, { kind: 'ok' }>> {
    const tries = this.opts.tries ?? 3;
    let detail = '';
    for (let attempt = 0; attempt < tries; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, (this.opts.retryDelayMs ?? 200) * attempt));
      let res;
      try {
        res = await this.client.listEvents(sessionId, q, signal);
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
        return { kind: 'ok', envelopes, hasMore: res.hasMore, ...(res.nextOffset !== undefined ? { nextOffset: res.nextOffset } : {}) };
      }
      if (res.status === 404) {
        this.absent = true;
        if (!this.warned) {
          this.warned = true;
          this.log.warn({ session: sessionId }, 'the service has no telemetry archive (404 on /telemetry/events): gaps are reported, not repaired');
        }
        return { kind: 'absent' };
      }
      detail = `HTTP ${res.status}: ${res.error.message}`;
      if (res.status < 500 && res.status !== 429) break;
    }
    return { kind: 'failed', detail };
  }
}
