// GET /browsers: the real service's session list (not in spec/; docs/upstream-differences.md,
// "The session list"), with the semantics the bridge's discovery relies on:
//   - `status` active (default) | deleted | all; anything else is a 400.
//   - `query`: substring of the session id, name or pool name (the real one also matches profile
//     and proxy ids, which the simulator does not model).
//   - `tags[k]=v`, several ANDed.
//   - `region`: us-east | eu-west (anything else is a 400); absent: every region.
//   - `limit` 1..100 (default 20; outside is a 400), `offset` ≥ 0.
//   - Newest first. Paging in headers: `X-Has-More`, and `X-Next-Offset` = the absolute start of
//     the next page, "0" on the last page.
//   - The body is a bare JSON array; deleted sessions carry `deleted_at`.
// Faults: `listHold` leaves list requests unanswered while set (a paused service);
// `listFailNext` answers the next list requests with an error (429 with Retry-After);
// `listRefusedStatuses` answers those statuses 400, as a service that does not take them;
// `listOrder: 'oldest'` serves the list oldest first. A simulator started with `listRoute: false`
// has no such route (404), as an older service.
import type { ServerResponse } from 'node:http';
import { sendError, sendInjectedFailure, sendJson } from './http-util.js';
import type { Session } from './session.js';
import type { Faults } from './types.js';

/** The regions the service names (SDK BrowserListParams.region). */
export const REGIONS: readonly string[] = ['us-east', 'eu-west'];
const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 20;

export function listBrowsers(sessions: Map<string, Session>, faults: Faults, res: ServerResponse, url: URL): void {
  // A paused service: the request is taken and never answered (the socket closes with the client's timeout).
  if (faults.listHold === true) return;
  const fail = faults.listFailNext?.shift();
  if (fail) return sendInjectedFailure(res, fail);
  const q = url.searchParams;
  const status = q.get('status') ?? 'active';
  if (status !== 'active' && status !== 'deleted' && status !== 'all')
    return sendError(res, 400, 'status must be active, deleted or all', 'invalid_input');
  if (faults.listRefusedStatuses?.includes(status))
    return sendError(
      res,
      400,
      `status must be one of the statuses this service knows (not ${status})`,
      'invalid_input',
    );
  const region = q.get('region');
  if (region !== null && !REGIONS.includes(region))
    return sendError(res, 400, `region must be one of ${REGIONS.join(', ')}`, 'invalid_input');
  const limit = intParam(q.get('limit'), DEFAULT_LIMIT);
  if (limit === undefined || limit < 1 || limit > MAX_LIMIT)
    return sendError(res, 400, `limit must be 1..${MAX_LIMIT}`, 'invalid_input');
  const offset = intParam(q.get('offset'), 0);
  if (offset === undefined) return sendError(res, 400, 'offset must be a non-negative integer', 'invalid_input');
  const text = q.get('query') ?? '';
  const tags: Array<[string, string]> = [];
  for (const [k, v] of q) {
    const m = /^tags\[(.+)\]$/.exec(k);
    if (m) tags.push([m[1]!, v]);
  }
  const matching = [...sessions.values()].filter(
    (s) =>
      (status === 'all' || (status === 'deleted') === s.ended) &&
      (text === '' || [s.id, s.name, s.poolName].some((f) => f !== undefined && f.includes(text))) &&
      tags.every(([k, v]) => s.tags[k] === v) &&
      (region === null || s.region === region),
  );
  // Newest first (or oldest first as a fault); the id breaks ties so paging is stable between two requests.
  const later = faults.listOrder === 'oldest' ? -1 : 1;
  matching.sort((a, b) =>
    a.createdAt === b.createdAt ? a.id.localeCompare(b.id) : a.createdAt < b.createdAt ? later : -later,
  );
  const page = matching.slice(offset, offset + limit);
  const more = offset + page.length < matching.length;
  sendJson(res, 200, page.map(item), {
    'X-Has-More': String(more),
    'X-Next-Offset': String(more ? offset + page.length : 0),
  });
}

function item(s: Session): Record<string, unknown> {
  return {
    session_id: s.id,
    created_at: s.createdAt,
    ...(s.deletedAt !== undefined ? { deleted_at: s.deletedAt } : {}),
    ...(s.name !== undefined ? { name: s.name } : {}),
    tags: s.tags,
    region: s.region,
    ...(s.poolId !== undefined
      ? { pool: { id: s.poolId, ...(s.poolName !== undefined ? { name: s.poolName } : {}) } }
      : {}),
    cdp_ws_url: `wss://simulator.invalid/browsers/${encodeURIComponent(s.id)}/cdp`,
    headless: true,
    stealth: false,
    timeout_seconds: 60,
    telemetry: s.telemetryConfig,
  };
}

function intParam(v: string | null, fallback: number): number | undefined {
  if (v === null || v === '') return fallback;
  return /^\d+$/.test(v) ? Number(v) : undefined;
}
