// page_* events of the catalogue (docs/service-api.md "Event types and categories"). page_navigation
// and friends, whose shape the written specification does not show, live in unlisted.ts.
import type { GenResult, GenState } from './context.js';
import { cdpSource, monitorSource, pageContext, pageOrigin } from './context.js';

/** cdp_timestamp: seconds on the browser's monotonic clock, not Unix epoch (docs/service-api.md, page_load). */
function tick(g: GenState): number {
  g.cdpClock = Math.round((g.cdpClock + g.rng.float(0.01, 2, 6)) * 1e6) / 1e6;
  return g.cdpClock;
}

export function pageDomContentLoaded(g: GenState): GenResult {
  return { data: { ...pageContext(g), cdp_timestamp: tick(g) }, source: cdpSource(g, 'Page.domContentEventFired') };
}

export function pageLoad(g: GenState): GenResult {
  return { data: { ...pageContext(g), cdp_timestamp: tick(g) }, source: cdpSource(g, 'Page.loadEventFired') };
}

export function pageLayoutShift(g: GenState): GenResult {
  const { rng } = g;
  return {
    data: {
      ...pageContext(g),
      duration: 0,
      layout_shift_details: { had_recent_input: rng.chance(0.2), value: rng.float(0.0001, 0.4, 4) },
      source_frame_id: g.page.frameId,
      time: rng.float(100, 8000, 1),
    },
    source: cdpSource(g, 'PerformanceTimeline.timelineEventAdded'),
  };
}

export function pageLcp(g: GenState): GenResult {
  const { rng } = g;
  const crossOrigin = rng.chance(0.25);
  const loadTime = rng.float(200, 4000, 1);
  return {
    data: {
      ...pageContext(g),
      lcp_details: {
        element_id: rng.pick(['hero', '', 'main-image', 'headline']),
        load_time: loadTime,
        node_id: rng.int(5, 900),
        // 0 for cross-origin images served without Timing-Allow-Origin.
        render_time: crossOrigin ? 0 : loadTime + rng.float(1, 300, 1),
        size: rng.int(2000, 400000),
        url: crossOrigin ? 'https://images.cdn-example.com/hero.webp' : pageOrigin(g) + '/img/hero.jpg',
      },
      source_frame_id: g.page.frameId,
      time: loadTime,
    },
    source: cdpSource(g, 'PerformanceTimeline.timelineEventAdded'),
  };
}

export function pageLayoutSettled(g: GenState): GenResult {
  return { data: pageContext(g), source: monitorSource(g, 'page_layout_settled') };
}

export function pageCrashed(g: GenState): GenResult {
  const { page, rng } = g;
  return {
    data: { target_id: page.targetId, target_type: rng.pick(['page', 'page', 'iframe']), url: page.url },
    // Reported on the crashed page's session, with session and target ids in source.metadata.
    source: {
      kind: 'cdp',
      event: 'Inspector.targetCrashed',
      metadata: { cdp_session_id: page.cdpSessionId, target_id: page.targetId },
    },
  };
}
