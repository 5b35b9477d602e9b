// Scripted sessions for property tests: pages with requests (redirect hops, failures, cancels,
// requests left open), extras (console errors, vitals, clicks), each page and each request a lane of
// events that keeps its own order while lanes may interleave.
import fc from 'fast-check';
import { doc, nav, req, type Step } from './script.js';

/** One request: its hops (redirects) and how it ends. */
const requestArb = fc.record({
  hops: fc.integer({ min: 1, max: 3 }),
  end: fc.constantFrom('response', 'failed', 'cancelled', 'open'),
  status: fc.constantFrom(200, 204, 404, 500),
});
export const pageArb = fc.record({
  requests: fc.array(requestArb, { maxLength: 5 }),
  loads: fc.boolean(),
  extras: fc.array(fc.constantFrom('console_error', 'page_lcp', 'page_layout_shift', 'interaction_click'), {
    maxLength: 4,
  }),
});

export type PageSpec = typeof pageArb extends fc.Arbitrary<infer T> ? T : never;

/** Per-thing event lanes: each lane keeps its own order, lanes may interleave. */
export function lanes(pages: Array<PageSpec>): Step[][] {
  const out: Step[][] = [];
  let ms = 0;
  pages.forEach((page, p) => {
    const loader = `L${p}`;
    const url = `https://site${p}.example/page?q=${p}`;
    const pageLane: Step[] = [
      ['network_request', ms++, doc(loader, url)],
      ['network_response', ms++, { ...doc(loader, url), status: 200 }],
      ['page_navigation', ms++, nav(loader, url)],
    ];
    for (const extra of page.extras) {
      const data: Record<string, unknown> = { frame_id: 'F1', loader_id: loader, text: 'boom' };
      if (extra === 'page_lcp') data.lcp_details = { render_time: 1200 + p, load_time: 0, size: 10 };
      if (extra === 'page_layout_shift') data.layout_shift_details = { value: 0.02, had_recent_input: false };
      pageLane.push([extra, ms++, data]);
    }
    if (page.loads) pageLane.push(['page_load', ms++, { frame_id: 'F1', loader_id: loader }]);
    out.push(pageLane);
    page.requests.forEach((r, i) => {
      const id = `${p}.${i}`;
      const lane: Step[] = [];
      for (let h = 0; h < r.hops; h++)
        lane.push(['network_request', ms++, req(loader, id, `https://cdn.example/${id}/${h}`)]);
      const last = req(loader, id, `https://cdn.example/${id}/${r.hops - 1}`);
      if (r.end === 'response') lane.push(['network_response', ms++, { ...last, status: r.status }]);
      if (r.end === 'failed') lane.push(['network_loading_failed', ms++, { ...last, error_text: 'net::ERR_FAILED' }]);
      if (r.end === 'cancelled')
        lane.push(['network_loading_failed', ms++, { ...last, error_text: 'net::ERR_ABORTED', canceled: true }]);
      out.push(lane);
    });
  });
  return out;
}
