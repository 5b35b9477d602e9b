// The service's session list, GET /browsers (not in spec/; read from the public SDKs and CLI): a
// bare JSON array of sessions, paged by headers. The body is untrusted: each item is validated
// once here into a ListedSession, and discovery reads only that. An item without a usable
// `session_id` is skipped and counted, never followed; a member of the wrong type is ignored.
//
// Paging (the SDKs' OffsetPagination): `X-Has-More: true` means another page; `X-Next-Offset` is the
// absolute start of that page (0 on the last page, and the route may omit it). The Node SDK computes
// the next offset as X-Next-Offset + items, the Go SDK uses X-Next-Offset as is; the service's own
// comment says absolute, so it is used as is, and a missing one falls back to offset + items.
import { poolRefProblem, sessionIdProblem, validSessionId } from '../config/sessions.js';
import { quotedExcerpt } from '../util/printable.js';
import { isRecord } from '../util/guards.js';
import { parseSessionExport, type SessionExport } from './session-export.js';

/** `status`: active (the service's default), deleted, or both. */
export type ListStatus = 'active' | 'deleted' | 'all';

export interface BrowserListQuery {
  /** 1..100 (the service's bound; its default is 20). */
  limit: number;
  offset: number;
  status?: ListStatus;
  /** Substring of the session id, name, profile, proxy id or pool name. */
  query?: string;
  /** The session's region (`us-east`, `eu-west`); absent: every region. */
  region?: string;
  /** Every pair must match (the service ANDs them); sent as tags[k]=v. */
  tags?: Record<string, string>;
}

/** One session of the list, as discovery needs it. */
export interface ListedSession {
  id: string;
  name?: string;
  /** As the service states them (RFC 3339); epoch ms when parseable. */
  createdAt?: number;
  /** Set on deleted sessions only. */
  deletedAt?: number;
  tags: Record<string, string>;
  /** Only references that can be requested (config/sessions.ts poolRefProblem). */
  pool?: { id?: string; name?: string };
  /**
   * Why the pool the service named is not looked up: neither its id nor its name can be requested.
   * Said once, as the session's error; before, the lookup was refused at the client and retried
   * for ever as a network error.
   */
  poolProblem?: string;
  /** `telemetry.export.otlp`: the session delivering OTLP itself (session-export.ts). */
  otlpExport?: SessionExport;
}

/** A listed session whose id no request can carry: never followed, said once (discovery-loop.ts). */
export interface RefusedListing {
  id: string;
  /** One line naming the id (quoted printable, cut) and why. */
  problem: string;
}

export interface ListPage {
  sessions: ListedSession[];
  /** Items dropped because they had no usable session id. */
  invalid: number;
  /** Those of them that named an id, with why it cannot be requested. */
  refused?: RefusedListing[];
  /** Absolute offset of the next page; undefined on the last one. */
  nextOffset: number | undefined;
}

/** The query string of one page request. */
export function listSearchParams(q: BrowserListQuery): URLSearchParams {
  const p = new URLSearchParams();
  p.set('limit', String(q.limit));
  if (q.offset > 0) p.set('offset', String(q.offset));
  if (q.status !== undefined) p.set('status', q.status);
  if (q.query !== undefined && q.query !== '') p.set('query', q.query);
  if (q.region !== undefined && q.region !== '') p.set('region', q.region);
  // The SDKs serialise nested query objects with brackets: tags[team]=a.
  for (const [k, v] of Object.entries(q.tags ?? {})) p.set(`tags[${k}]`, v);
  return p;
}

/**
 * Validates a page. `hasMore`/`nextOffset` are the raw header values; `offset` and the item count
 * decide the fallback when X-Next-Offset is absent. A next offset that does not move forward is the
 * last page: a service answering the same page forever must not hold discovery in a loop.
 */
export function parseListPage(
  body: unknown,
  offset: number,
  hasMore: string | undefined,
  nextOffset: string | undefined,
): ListPage | { error: string } {
  if (!Array.isArray(body)) return { error: 'the session list is not a JSON array' };
  const sessions: ListedSession[] = [];
  const refused: RefusedListing[] = [];
  let invalid = 0;
  for (const item of body) {
    const s = parseListedSession(item);
    if (s) sessions.push(s);
    else {
      invalid++;
      const id = isRecord(item) ? item.session_id : undefined;
      // An empty id is no id at all: counted only.
      const problem = typeof id === 'string' && id !== '' ? sessionIdProblem(id) : undefined;
      if (typeof id === 'string' && problem !== undefined)
        refused.push({ id, problem: `session id ${quotedExcerpt(id)} cannot be requested: ${problem}; not followed` });
    }
  }
  const more = (hasMore ?? '').trim().toLowerCase() === 'true';
  let next: number | undefined;
  if (more && body.length > 0) {
    const n = nextOffset !== undefined && /^\s*\d+\s*$/.test(nextOffset) ? Number(nextOffset.trim()) : NaN;
    next = Number.isSafeInteger(n) && n > 0 ? n : offset + body.length;
    if (next <= offset) next = undefined;
  }
  return { sessions, invalid, nextOffset: next, ...(refused.length > 0 ? { refused } : {}) };
}

export function parseListedSession(v: unknown): ListedSession | undefined {
  if (!isRecord(v)) return undefined;
  const id = v.session_id;
  // The id becomes a URL path segment and a store key: the rule the control API and the
  // configuration apply (`..` would be a dot-segment, and a PUT of it is refused too).
  if (typeof id !== 'string' || !validSessionId(id)) return undefined;
  const out: ListedSession = { id, tags: {} };
  if (typeof v.name === 'string' && v.name !== '') out.name = v.name;
  const created = time(v.created_at);
  if (created !== undefined) out.createdAt = created;
  const deleted = time(v.deleted_at);
  if (deleted !== undefined) out.deletedAt = deleted;
  if (isRecord(v.tags)) {
    for (const [k, t] of Object.entries(v.tags)) if (typeof t === 'string') out.tags[k] = t;
  }
  if (isRecord(v.pool)) {
    const pool: { id?: string; name?: string } = {};
    const refused: string[] = [];
    for (const member of ['id', 'name'] as const) {
      const ref = v.pool[member];
      if (typeof ref !== 'string' || ref === '') continue;
      const problem = poolRefProblem(ref);
      if (problem === undefined) pool[member] = ref;
      else refused.push(`pool ${member} ${quotedExcerpt(ref)} cannot be requested: ${problem}`);
    }
    if (pool.id !== undefined || pool.name !== undefined) out.pool = pool;
    else if (refused.length > 0) out.poolProblem = `${refused.join('; ')}; its records go without pool attributes`;
  }
  const otlpExport = parseSessionExport(v);
  if (otlpExport !== undefined) out.otlpExport = otlpExport;
  return out;
}

function time(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}
