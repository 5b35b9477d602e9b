// monitor_* events (docs/service-api.md "Event types and categories") and the
// monitor_screenshot of the opt-in screenshot category ("Capture rules" 3).
import type { GenResult, GenState } from './context.js';
import { monitorSource } from './context.js';
import { screenshotsBase64 } from './png.js';

/** Some service versions put monitor events under `system` (docs/service-api.md "Envelope"). */
function legacyCategory(g: GenState): { category?: string } {
  return g.rng.chance(0.1) ? { category: 'system' } : {};
}

/**
 * The service does not take screenshots on a timer: a main-frame Page.loadEventFired or a
 * Runtime.exceptionThrown triggers one, at most one per 2 s (event-factory.ts keeps that cadence).
 * Its source is the capture process, named after the trigger, with the page's nav context.
 */
export function monitorScreenshot(g: GenState, trigger = 'Page.loadEventFired', png?: string): GenResult {
  return {
    data: { png: png ?? g.rng.pick(screenshotsBase64()) },
    source: {
      kind: 'local_process',
      event: trigger,
      metadata: { target_id: g.page.targetId, frame_id: g.page.frameId, loader_id: g.page.loaderId, url: g.page.url },
    },
  };
}

/** Least time between two screenshots of one session, in microseconds (the service's rate limit). */
export const SCREENSHOT_INTERVAL_MICROS = 2_000_000;

export function monitorDisconnected(g: GenState): GenResult {
  return {
    data: { reason: 'chrome_restarted' },
    source: monitorSource(g, 'monitor_disconnected'),
    ...legacyCategory(g),
  };
}

export function monitorReconnected(g: GenState): GenResult {
  return {
    data: { reconnect_duration_ms: g.rng.int(150, 9000) },
    source: monitorSource(g, 'monitor_reconnected'),
    ...legacyCategory(g),
  };
}

export function monitorReconnectFailed(g: GenState): GenResult {
  return {
    data: { reason: 'reconnect_exhausted' },
    source: monitorSource(g, 'monitor_reconnect_failed'),
    ...legacyCategory(g),
  };
}

export function monitorInitFailed(g: GenState): GenResult {
  return {
    data: { step: g.rng.pick(['Target.setAutoAttach', 'Network.enable', 'Runtime.addBinding', 'attach_to_browser']) },
    source: monitorSource(g, 'monitor_init_failed'),
    ...legacyCategory(g),
  };
}
