// monitor_* events (spec: Events → Event types; States → Telemetry monitor connection) and the
// periodic monitor_screenshot of the opt-in screenshot category (Capture rule 3).
import type { GenResult, GenState } from './context.js';
import { monitorSource } from './context.js';
import { SCREENSHOTS_BASE64 } from './png.js';

/** Some service versions put monitor events under `system` (DESIGN.md: "Notes on the event catalogue"). */
function legacyCategory(g: GenState): { category?: string } {
  return g.rng.chance(0.1) ? { category: 'system' } : {};
}

export function monitorScreenshot(g: GenState): GenResult {
  return { data: { png: g.rng.pick(SCREENSHOTS_BASE64) }, source: monitorSource(g, 'Page.captureScreenshot') };
}

export function monitorDisconnected(g: GenState): GenResult {
  return { data: { reason: 'chrome_restarted' }, source: monitorSource(g, 'monitor_disconnected'), ...legacyCategory(g) };
}

export function monitorReconnected(g: GenState): GenResult {
  return {
    data: { reconnect_duration_ms: g.rng.int(150, 9000) },
    source: monitorSource(g, 'monitor_reconnected'),
    ...legacyCategory(g),
  };
}

export function monitorReconnectFailed(g: GenState): GenResult {
  return { data: { reason: 'reconnect_exhausted' }, source: monitorSource(g, 'monitor_reconnect_failed'), ...legacyCategory(g) };
}

export function monitorInitFailed(g: GenState): GenResult {
  return {
    data: { step: g.rng.pick(['Target.setAutoAttach', 'Network.enable', 'Runtime.addBinding', 'attach_to_browser']) },
    source: monitorSource(g, 'monitor_init_failed'),
    ...legacyCategory(g),
  };
}
