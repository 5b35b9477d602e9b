// Walks the service's session list for one selector, page by page (limit 100, the service's
// maximum), handing each page on as it arrives so a project with thousands of sessions starts
// being followed before the last page is read. Used by the poll loop and by `check`.
//
// The list is offset-paged over a set that changes while it is read: a session created or deleted
// between two page requests can shift the offsets, so one walk may miss a session or see one
// twice. Twice is harmless (adding is idempotent); a miss is seen by the next walk, which is why
// the contract is "within two polls".
import type { DiscoveryConfig } from '../config/schema.js';
import type { ApiErrorBody } from '../upstream/api-error.js';
import type { ListedSession, ListStatus } from '../upstream/browser-list.js';
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

/** Reads every page of the list for `status`, calling `onPage` with each page's sessions in order. */
export async function walkList(
  client: ListClient,
  sel: Pick<DiscoveryConfig, 'tags' | 'query' | 'project'>,
  status: ListStatus | undefined,
  onPage: (sessions: ListedSession[]) => Promise<void>,
  signal?: AbortSignal,
): Promise<WalkResult> {
  let offset = 0;
  let matched = 0;
  let invalid = 0;
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
        },
        { ...(sel.project !== undefined ? { project: sel.project } : {}), ...(signal ? { signal } : {}) },
      );
    } catch (err) {
      return { kind: 'error', status: undefined, error: undefined, detail: networkMessage(err), pages };
    }
    pages++;
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
    if (r.sessions.length > 0) await onPage(r.sessions);
    if (r.nextOffset === undefined) return { kind: 'ok', matched, pages, invalid };
    offset = r.nextOffset;
  }
  return {
    kind: 'error',
    status: undefined,
    error: undefined,
    detail: `the list did not end after ${MAX_PAGES} pages`,
    pages: MAX_PAGES,
  };
}
