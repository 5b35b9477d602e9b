// A session's telemetry archive, as the real service keeps one (GET /browsers/{id}/telemetry/events):
// every event the session sent, across service restarts, outliving the session, bounded by a
// generous cap (the oldest go first). Entries are the frames the replay buffer holds (the same
// bytes, so keeping them costs an array slot each); ts and category are read from the JSON only
// when a page is asked for, which is rare next to streaming.
//
// Paging follows the service: at most 100 per page, oldest first from `since` (default: 5 minutes
// ago) or from the opaque `offset` cursor of the previous page's X-Next-Offset while X-Has-More is
// true; `until` is exclusive; `order=desc` reads newest first (and rejects `since`); `category` may
// repeat and filters within the page, so a filtered page may be empty while more remain.
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
  private frames: Buffer[] = [];
  /** Absolute index of frames[0]: cursors stay valid when the oldest entries are dropped. */
  private base = 0;

  constructor(private readonly cap: number) {}

  get size(): number {
    return this.frames.length;
  }

  push(frame: Buffer): void {
    this.frames.push(frame);
    if (this.frames.length > this.cap) {
      // Drop in chunks: one splice per many pushes instead of a shift per push.
      const drop = Math.max(1, Math.floor(this.cap / 10));
      this.frames.splice(0, drop);
      this.base += drop;
    }
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
    const categories = params.getAll('category');
    const until = params.has('until') ? parseTime(params.get('until') as string, nowMicros) : Infinity;
    if (until === undefined) return { ok: false, message: 'until must be an RFC 3339 time or a duration like 5m' };
    let cursor: number | undefined;
    const offset = params.get('offset');
    if (offset !== null) {
      cursor = decodeCursor(offset);
      if (cursor === undefined) return { ok: false, message: 'offset is not a cursor this service issued' };
    }
    const end = this.base + this.frames.length;
    const picked: string[] = [];
    const keep = (i: number): boolean => {
      const data = frameData((this.frames[i - this.base] as Buffer).toString());
      if (until !== Infinity && tsOf(data) >= until) return false;
      if (categories.length > 0 && !categories.includes(categoryOf(data))) return false;
      picked.push(data);
      return true;
    };
    if (order === 'desc') {
      const top = Math.min(cursor ?? end, end);
      const from = Math.max(this.base, top - limit);
      for (let i = top - 1; i >= from; i--) keep(i);
      return { ok: true, page: page(picked, from > this.base, from) };
    }
    let start: number;
    if (cursor !== undefined) start = Math.max(cursor, this.base);
    else {
      const since = params.has('since')
        ? parseTime(params.get('since') as string, nowMicros)
        : nowMicros - DEFAULT_WINDOW_MICROS;
      if (since === undefined) return { ok: false, message: 'since must be an RFC 3339 time or a duration like 5m' };
      start = this.base;
      while (start < end && tsOf(frameData((this.frames[start - this.base] as Buffer).toString())) < since) start++;
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

function tsOf(data: string): number {
  const m = /"ts":(\d+)/.exec(data);
  return m ? Number(m[1]) : 0;
}

function categoryOf(data: string): string {
  const m = /"category":"([^"]*)"/.exec(data);
  return m ? (m[1] as string) : '';
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
