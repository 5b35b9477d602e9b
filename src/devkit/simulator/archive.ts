// A session's telemetry archive, as the real service keeps one (GET /browsers/{id}/telemetry/events):
// every event the session sent, across service restarts, outliving the session, bounded by a
// generous cap (the oldest go first). A view on the session's frame log (frame-log.ts): the last
// `cap` entries of the log, the same bytes the stream sent. A query scans the ts and category the
// log keeps beside each frame, and decodes only the frames of the page it answers.
//
// Paging follows the service: at most 100 per page, oldest first from `since` (default: 5 minutes
// ago) or from the opaque `offset` cursor of the previous page's X-Next-Offset while X-Has-More is
// true; `until` is exclusive; `order=desc` reads newest first (and rejects `since`); `category` may
// repeat and filters within the page, so a filtered page may be empty while more remain. A cursor is
// a log index, so it stays valid while the oldest entries are dropped.
import type { FrameLog } from './frame-log.js';
import { frameData } from './sse-format.js';

export interface ArchivePage {
  /** JSON text of the page: a list of envelopes. */
  body: string;
  hasMore: boolean;
  nextOffset?: string;
}

export type ArchiveQueryResult = { ok: true; page: ArchivePage } | { ok: false; message: string };

const DEFAULT_WINDOW_MICROS = 5 * 60 * 1_000_000;

export class SessionArchive {
  constructor(
    private readonly log: FrameLog,
    private readonly cap: number,
  ) {
    if (!Number.isInteger(cap) || cap < 1) throw new RangeError('archiveSize must be a positive integer');
    if (cap > log.retain) throw new RangeError('the frame log must retain at least the archive');
  }

  /** Log index of the oldest archived frame. */
  private get base(): number {
    return Math.max(this.log.first, this.log.end - this.cap);
  }

  get size(): number {
    return this.log.end - this.base;
  }

  query(params: URLSearchParams, nowMicros: number): ArchiveQueryResult {
    const limitText = params.get('limit') ?? '100';
    const limit = Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      return { ok: false, message: 'limit must be an integer from 1 to 100' };
    const order = params.get('order') ?? 'asc';
    if (order !== 'asc' && order !== 'desc') return { ok: false, message: 'order must be asc or desc' };
    if (order === 'desc' && params.has('since'))
      return { ok: false, message: 'since cannot be combined with order=desc' };
    // A category no frame ever had matches nothing (-1 is never a code).
    const categories = params.getAll('category').map((c) => this.log.codeOf(c));
    const until = params.has('until') ? parseTime(params.get('until') as string, nowMicros) : Infinity;
    if (until === undefined) return { ok: false, message: 'until must be an RFC 3339 time or a duration like 5m' };
    let cursor: number | undefined;
    const offset = params.get('offset');
    if (offset !== null) {
      cursor = decodeCursor(offset);
      if (cursor === undefined) return { ok: false, message: 'offset is not a cursor this service issued' };
    }
    const log = this.log;
    const base = this.base;
    const end = log.end;
    const picked: string[] = [];
    const keep = (i: number): void => {
      if (log.ts(i) >= until) return;
      if (categories.length > 0 && !categories.includes(log.category(i))) return;
      picked.push(frameData(log.frame(i).toString()));
    };
    if (order === 'desc') {
      const top = Math.min(cursor ?? end, end);
      const from = Math.max(base, top - limit);
      for (let i = top - 1; i >= from; i--) keep(i);
      return { ok: true, page: page(picked, from > base, from) };
    }
    let start: number;
    if (cursor !== undefined) start = Math.max(cursor, base);
    else {
      const since = params.has('since')
        ? parseTime(params.get('since') as string, nowMicros)
        : nowMicros - DEFAULT_WINDOW_MICROS;
      if (since === undefined) return { ok: false, message: 'since must be an RFC 3339 time or a duration like 5m' };
      start = base;
      while (start < end && log.ts(start) < since) start++;
    }
    const stop = Math.min(end, start + limit);
    for (let i = start; i < stop; i++) keep(i);
    return { ok: true, page: page(picked, stop < end, stop) };
  }
}

function page(datas: string[], hasMore: boolean, next: number): ArchivePage {
  const p: ArchivePage = { body: '[' + datas.join(',') + ']', hasMore };
  if (hasMore) p.nextOffset = encodeCursor(next);
  return p;
}

// Opaque to clients: they must pass it back as it came, never compute one.
function encodeCursor(i: number): string {
  return Buffer.from(`sim:${i}`).toString('base64url');
}

function decodeCursor(s: string): number | undefined {
  const m = /^sim:(\d+)$/.exec(Buffer.from(s, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : undefined;
}

/** An RFC 3339 time, or a duration like 90s, 5m, 2h meaning that long ago; Unix microseconds. */
export function parseTime(text: string, nowMicros: number): number | undefined {
  const d = /^(\d+)(ms|s|m|h)$/.exec(text.trim());
  if (d) {
    const unit = { ms: 1_000, s: 1_000_000, m: 60_000_000, h: 3_600_000_000 }[d[2] as 'ms' | 's' | 'm' | 'h'];
    return nowMicros - Number(d[1]) * unit;
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms * 1000;
}
