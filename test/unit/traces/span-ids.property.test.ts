// Exactly the same spans after any crash, and the same span ids in any interleaving (docs/traces.md
// "Ids"): the builder's state is saved as JSON at an arbitrary point, a new builder restored from it
// finishes the stream, and what both emit together is what one uninterrupted builder emits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSpanBuilder, type SpanBuilderState } from '../../../src/traces/span-builder.js';
import type { Envelope } from '../../../src/upstream/envelope.js';
import type { BridgeSpan, SpanRef } from '../../../src/vocabulary/span.js';
import { SESSION, doc, envelopes, mapped, nav, req, type Step } from './script.js';

/** One request: its hops (redirects) and how it ends. */
const requestArb = fc.record({
  hops: fc.integer({ min: 1, max: 3 }),
  end: fc.constantFrom('response', 'failed', 'cancelled', 'open'),
  status: fc.constantFrom(200, 204, 404, 500),
});
const pageArb = fc.record({
  requests: fc.array(requestArb, { maxLength: 5 }),
  loads: fc.boolean(),
  extras: fc.array(fc.constantFrom('console_error', 'page_lcp', 'page_layout_shift', 'interaction_click'), {
    maxLength: 4,
  }),
});

type PageSpec = typeof pageArb extends fc.Arbitrary<infer T> ? T : never;

/** Per-thing event lanes: each lane keeps its own order, lanes may interleave. */
function lanes(pages: Array<PageSpec>): Step[][] {
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

interface Output {
  spans: BridgeSpan[];
  refs: Array<SpanRef | undefined>;
}

function feed(envs: readonly Envelope[], restored?: SpanBuilderState, stopAt = envs.length) {
  const builder = createSpanBuilder(SESSION, restored);
  const out: Output = { spans: [], refs: [] };
  for (const env of envs.slice(0, stopAt)) {
    const o = builder.observe(env, mapped(env));
    out.refs.push(o.ref);
    out.spans.push(...o.finished);
  }
  return { builder, out };
}

function whole(envs: readonly Envelope[]): Output {
  const { builder, out } = feed(envs);
  out.spans.push(...builder.end());
  return out;
}

describe('span ids', () => {
  it('a crash at any point, with the state saved as JSON, gives exactly the spans and refs of an uninterrupted run', () => {
    fc.assert(
      fc.property(fc.array(pageArb, { minLength: 1, maxLength: 4 }), fc.nat(), (pages, cut) => {
        const envs = envelopes(lanes(pages).flat());
        const k = cut % (envs.length + 1);
        const expected = whole(envs);
        const before = feed(envs, undefined, k);
        const saved = JSON.parse(JSON.stringify(before.builder.snapshot())) as SpanBuilderState;
        const after = feed(envs.slice(k), saved);
        after.out.spans.push(...after.builder.end());
        expect([...before.out.spans, ...after.out.spans]).toEqual(expected.spans);
        expect([...before.out.refs, ...after.out.refs]).toEqual(expected.refs);
      }),
      { numRuns: 150 },
    );
  });

  it('any interleaving of pages and requests gives the same set of span ids', () => {
    fc.assert(
      fc.property(
        fc.array(pageArb, { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { minLength: 200, maxLength: 200 }),
        (pages, picks) => {
          const ordered = lanes(pages);
          const queues = ordered.map((l) => [...l]);
          const shuffled: Step[] = [];
          let i = 0;
          while (queues.some((q) => q.length > 0)) {
            const open = queues.filter((q) => q.length > 0);
            shuffled.push(open[(picks[i++ % picks.length] ?? 0) % open.length]!.shift()!);
          }
          const ids = (o: Output) => new Set(o.spans.map((s) => `${s.traceId}/${s.spanId}/${s.parentSpanId ?? ''}`));
          expect(ids(whole(envelopes(shuffled)))).toEqual(ids(whole(envelopes(ordered.flat()))));
        },
      ),
      { numRuns: 150 },
    );
  });
});
