// The span builder's open state as it is stored with a checkpoint (traces/span-state.ts wraps it):
// plain JSON, versioned, and written in one pass without a copy of the state first.
import type { DocState, ReqState } from './span-shapes.js';

/** The builder's open state as plain JSON (versioned: it is stored with checkpoints). */
export interface SpanBuilderState {
  v: 1;
  docs: DocState[];
  /** frame id → its current (committed) loader. */
  frames: Array<[string, string]>;
  requests: ReqState[];
  /** Recently closed loaders, oldest first. */
  closed: string[];
  /**
   * Recently finished requests (key, last hop), oldest first: absent in a state an older bridge
   * wrote, which then knows none.
   */
  closedRequests?: Array<[string, number]>;
  /**
   * Loaders committed again after they were left (a page restored from the back/forward cache),
   * with their latest visit: absent in a state an older bridge wrote, and when there are none.
   */
  visits?: Array<[string, number]>;
  /** The visit (from 1 on) of recently finished requests made in a restored page's later visit. */
  closedVisits?: Array<[string, number]>;
}

/**
 * The same text as JSON.stringify of the state, with the JSON of the documents untouched since the
 * last call reused from `docJson`: the open documents with their span events are most of the state,
 * and an event changes one or two of them. The builder forgets a document's entry whenever it
 * changes it.
 */
export function openStateJson(
  docs: Iterable<DocState>,
  docJson: WeakMap<DocState, string>,
  frames: ReadonlyMap<string, string>,
  requests: Iterable<ReqState>,
  closed: readonly string[],
  closedRequests: ReadonlyMap<string, number>,
  visits: ReadonlyMap<string, number>,
  closedVisits: ReadonlyMap<string, number>,
): string {
  let docsText = '';
  for (const doc of docs) {
    let text = docJson.get(doc);
    if (text === undefined) {
      text = JSON.stringify(doc);
      docJson.set(doc, text);
    }
    docsText += docsText === '' ? text : ',' + text;
  }
  const frameList = JSON.stringify([...frames.entries()]);
  const requestList = JSON.stringify([...requests]);
  const finished = JSON.stringify([...closedRequests.entries()]);
  let revisited = visits.size === 0 ? '' : `,"visits":${JSON.stringify([...visits.entries()])}`;
  if (closedVisits.size > 0) revisited += `,"closedVisits":${JSON.stringify([...closedVisits.entries()])}`;
  return `{"v":1,"docs":[${docsText}],"frames":${frameList},"requests":${requestList},"closed":${JSON.stringify(closed)},"closedRequests":${finished}${revisited}}`;
}
