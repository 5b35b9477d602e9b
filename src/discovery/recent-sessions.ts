// A walk of the newest sessions: `status=all` (live and deleted together), read until the
// sessions are older than a cutoff. It is how discovery sees a session that was created and
// deleted between two polls (it is in neither poll's live list), at a cost that follows the
// sessions created since the last poll rather than every session the project has.
//
// The list's order is not documented anywhere public: the OpenAPI descriptions behind the SDKs
// (Node, Go), the CLI and the in-VM server say nothing about it, and the list itself is served by
// the hosted API, whose code is not public. So the order is read, never assumed: the walk stops
// early only once what it has read is newest first by `created_at` (at least two distinct times,
// none rising, every session dated); any other order, or an undated session, and it reads the whole
// list, taking the deleted sessions whose creation or deletion is past the cutoff. `status=all`
// only grows at the top when newest first (a deletion keeps the session in it), so its offsets do
// not shift under a walk the way the live list's do.
//
// A service that refuses `status=all` (400 or 422 on a walk's first request; the value came in
// 2026-01, `include_deleted=true` before it) is read as two walks, `active` then `deleted`, each
// down to the cutoff; one that refuses those too, as the default list alone (live sessions only: a
// session created and deleted between two polls is then missed). The mode only goes down, and the
// loop says so once per step (discovery-loop.ts).
import type { ListedSession, ListStatus } from '../upstream/browser-list.js';
import { walkList, type ListClient, type OnPage, type Selector, type WalkResult } from './list-sessions.js';

/** What the pages read so far say about the list's order. */
export interface OrderState {
  /** created_at of the last session read. */
  last: number | undefined;
  /** Two distinct created_at seen: the order has been shown, not only not contradicted. */
  shown: boolean;
  /** A session dated later than the one before it, or undated: not newest first. */
  broken: boolean;
  /** A session dated later than the one before it: the list is shown not to be newest first. */
  risen: boolean;
  /** The latest created_at read (the next poll's watermark). */
  newest: number | undefined;
}

export const initialOrder = (): OrderState => ({
  last: undefined,
  shown: false,
  broken: false,
  risen: false,
  newest: undefined,
});

/**
 * Folds one page into the order state and says whether the next page is wanted: always, unless the
 * list has shown itself newest first and this page already reaches below the cutoff.
 */
export function readOnPast(state: OrderState, page: readonly ListedSession[], cutoff: number): boolean {
  for (const s of page) {
    const t = s.createdAt;
    if (t === undefined) {
      state.broken = true;
      continue;
    }
    if (state.newest === undefined || t > state.newest) state.newest = t;
    if (state.last !== undefined) {
      if (t > state.last) state.broken = state.risen = true;
      else if (t < state.last) state.shown = true;
    }
    state.last = t;
  }
  if (state.broken || !state.shown) return true;
  return state.last === undefined || state.last >= cutoff;
}

/**
 * The sessions of a page discovery takes: every live one (adding a known one is a no-op), and the
 * deleted ones created or deleted since the cutoff; older deleted ones ended before the bridge
 * could have missed them.
 */
export function recentOf(page: readonly ListedSession[], cutoff: number): ListedSession[] {
  return page.filter(
    (s) => s.deletedAt === undefined || s.deletedAt >= cutoff || (s.createdAt !== undefined && s.createdAt >= cutoff),
  );
}

export type RecentWalk = WalkResult & { order?: OrderState };

/** Walks one status (`all`, or undefined for the service's default list) from the newest session down to `cutoff` (epoch ms on the service's clock). */
export async function walkRecent(
  client: ListClient,
  sel: Selector,
  cutoff: number,
  onPage: OnPage,
  status: ListStatus | undefined,
  signal?: AbortSignal,
): Promise<RecentWalk> {
  const order = initialOrder();
  const r = await walkList(
    client,
    sel,
    status,
    async (page, refused) => {
      const take = recentOf(page, cutoff);
      if (take.length > 0 || refused.length > 0) await onPage(take, refused);
    },
    signal,
    (page) => readOnPast(order, page, cutoff),
  );
  return { ...r, order };
}

/** How the newest sessions are read: `status=all`; `active` and `deleted` apart; the default list alone. */
export type ListMode = 'all' | 'split' | 'live';

const STATUSES: { [M in ListMode]: readonly (ListStatus | undefined)[] } = {
  all: ['all'],
  split: ['active', 'deleted'],
  live: [undefined],
};
/** Where a mode goes when the service refuses one of its statuses; `live` sends none, so it has nowhere to go. */
export const FALLBACK: { [M in ListMode]: ListMode | undefined } = { all: 'split', split: 'live', live: undefined };

/** The service refused the status itself: a 400 or 422 on the walk's first request. */
export const refusedStatus = (r: WalkResult): boolean =>
  r.kind === 'error' && r.pages === 1 && (r.status === 400 || r.status === 422);

export type NewestWalk = RecentWalk & {
  /** The mode the walk ended in: lower than the one asked for when the service refused a status. */
  mode: ListMode;
  /** The answer that made the mode go down, for the one warning. */
  refused?: Extract<WalkResult, { kind: 'error' }>;
};

/**
 * Reads the newest sessions in `mode`, going down a mode (and starting over) when the service
 * refuses a status. Pages and the order seen add up over the walks of a mode.
 */
export async function walkNewest(
  client: ListClient,
  sel: Selector,
  cutoff: number,
  onPage: OnPage,
  mode: ListMode,
  signal?: AbortSignal,
): Promise<NewestWalk> {
  let pages = 0;
  let refused: Extract<WalkResult, { kind: 'error' }> | undefined;
  for (let m = mode; ;) {
    const order = initialOrder();
    let matched = 0;
    let invalid = 0;
    let failed: RecentWalk | undefined;
    for (const status of STATUSES[m]) {
      const r = await walkRecent(client, sel, cutoff, onPage, status, signal);
      pages += r.pages;
      if (r.kind === 'error') {
        failed = r;
        break;
      }
      matched += r.matched;
      invalid += r.invalid;
      const o = r.order ?? initialOrder();
      order.risen ||= o.risen;
      order.broken ||= o.broken;
      order.shown ||= o.shown;
      if (o.newest !== undefined && (order.newest === undefined || o.newest > order.newest)) order.newest = o.newest;
    }
    if (failed === undefined)
      return { kind: 'ok', matched, pages, invalid, order, mode: m, ...(refused ? { refused } : {}) };
    const down = FALLBACK[m];
    if (failed.kind === 'error' && refusedStatus(failed) && down !== undefined) {
      refused = failed;
      m = down;
      continue;
    }
    return { ...failed, pages, mode: m, ...(refused ? { refused } : {}) };
  }
}
