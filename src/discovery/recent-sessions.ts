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
import type { DiscoveryConfig } from '../config/schema.js';
import type { ListedSession } from '../upstream/browser-list.js';
import { walkList, type ListClient, type WalkResult } from './list-sessions.js';

/** What the pages read so far say about the list's order. */
export interface OrderState {
  /** created_at of the last session read. */
  last: number | undefined;
  /** Two distinct created_at seen: the order has been shown, not only not contradicted. */
  shown: boolean;
  /** A session dated later than the one before it, or undated: not newest first. */
  broken: boolean;
  /** The latest created_at read (the next poll's watermark). */
  newest: number | undefined;
}

export const initialOrder = (): OrderState => ({ last: undefined, shown: false, broken: false, newest: undefined });

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
      if (t > state.last) state.broken = true;
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

/** Walks `status=all` from the newest session down to `cutoff` (epoch ms on the service's clock). */
export async function walkRecent(
  client: ListClient,
  sel: Pick<DiscoveryConfig, 'tags' | 'query' | 'project'>,
  cutoff: number,
  onPage: (sessions: ListedSession[]) => Promise<void>,
  signal?: AbortSignal,
): Promise<RecentWalk> {
  const order = initialOrder();
  const r = await walkList(
    client,
    sel,
    'all',
    async (page) => {
      const take = recentOf(page, cutoff);
      if (take.length > 0) await onPage(take);
    },
    signal,
    (page) => readOnPast(order, page, cutoff),
  );
  return { ...r, order };
}
