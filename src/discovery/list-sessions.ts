// Walks the service's session list for one selector, page by page (limit 100, the service's
// maximum), handing each page on as it arrives so a project with thousands of sessions starts
// being followed before the last page is read. The next page is requested while the previous one
// is being handed on (pages are still handed one at a time, in order): a page of 100 new sessions
// costs the walk one round trip, not a round trip plus the time to record and start them all.
// Used by the poll loop (whole walks and walks of the newest sessions, recent-sessions.ts) and by
// `check`.
//
// The list is offset-paged over a set that changes while it is read: a session created or deleted
// between two page requests can shift the offsets, so one walk may miss a session or see one
// twice. Twice is harmless (adding is idempotent); a miss is seen by the next walk, which is why
// the contract is "within two polls".
import type { DiscoveryConfig } from '../config/schema.js';
import type { ApiErrorBody } from '../upstream/api-error.js';
import type { ListedSession, ListStatus, RefusedListing } from '../upstream/browser-list.js';
import type { UpstreamClient } from '../upstream/client.js';
import { networkMessage } from '../util/network-message.js';

/** The service's maximum page size. */
export const PAGE_LIMIT = 100;
/** 100,000 sessions: a service answering "more" forever stops here instead of looping. */
const MAX_PAGES = 1000;

export type WalkResult =
  | { kind: 'ok'; matched: number; pages: number; invalid: number }
  | {
      kind: 'error';
      status: number | undefined;
      error: ApiErrorBody | undefined;
      retryAfterMs?: number;
      detail: string;
      pages: number;
    };

export type ListClient = Pick<UpstreamClient, 'listBrowsers'>;

/** What the service filters the list by, and the project it is read in. */
export type Selector = Pick<DiscoveryConfig, 'tags' | 'query' | 'region' | 'project'>;

/** What a page hands on: its sessions, and the listed ones whose id cannot be requested. */
export type OnPage = (sessions: ListedSession[], refused: readonly RefusedListing[]) => Promise<void>;

/**
 * Reads the pages of the list for `status`, calling `onPage` with each page's sessions in order.
 * `readOn`, when given, sees every page before it is handed on and says whether the next one is
 * wanted (a walk of the newest sessions stops at its cutoff); without it every page is read.
 */
export async function walkList(
  client: ListClient,
  sel: Selector,
  status: ListStatus | undefined,
  onPage: OnPage,
  signal?: AbortSignal,
  readOn?: (sessions: readonly ListedSession[]) => boolean,
): Promise<WalkResult> {
  let offset = 0;
  let matched = 0;
  let invalid = 0;
  // The page being handed on while the next one is read. A handler attached at once: a store that
  // fails mid-walk must surface at the next await, not as an unhandled rejection meanwhile.
  let handing: Promise<void> = Promise.resolve();
  const handOn = (sessions: ListedSession[], refused: readonly RefusedListing[]): void => {
    handing = onPage(sessions, refused);
    handing.catch(() => {});
  };
  for (let pages = 0; pages < MAX_PAGES;) {
    let r;
    try {
      r = await client.listBrowsers(
        {
          limit: PAGE_LIMIT,
          offset,
          tags: sel.tags,
          ...(status !== undefined ? { status } : {}),
          ...(sel.query !== undefined ? { query: sel.query } : {}),
          ...(sel.region !== undefined ? { region: sel.region } : {}),
        },
        { ...(sel.project !== undefined ? { project: sel.project } : {}), ...(signal ? { signal } : {}) },
      );
    } catch (err) {
      await handing;
      return { kind: 'error', status: undefined, error: undefined, detail: networkMessage(err), pages };
    }
    pages++;
    await handing;
    if (r.kind === 'error') {
      return {
        kind: 'error',
        status: r.status,
        error: r.error,
        detail: `${r.status} ${r.error.code}: ${r.error.message}`,
        pages,
        ...(r.retryAfterMs !== undefined ? { retryAfterMs: r.retryAfterMs } : {}),
      };
    }
    matched += r.sessions.length;
    invalid += r.invalid;
    const next = r.nextOffset;
    const wanted = (readOn?.(r.sessions) ?? true) && next !== undefined;
    if (r.sessions.length > 0 || r.refused !== undefined) handOn(r.sessions, r.refused ?? []);
    if (!wanted || next === undefined) {
      await handing;
      return { kind: 'ok', matched, pages, invalid };
    }
    offset = next;
  }
  await handing;
  return {
    kind: 'error',
    status: undefined,
    error: undefined,
    detail: `the list did not end after ${MAX_PAGES} pages`,
    pages: MAX_PAGES,
  };
}
