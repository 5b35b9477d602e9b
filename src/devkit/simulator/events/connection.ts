// connection category: cdp_connect / cdp_disconnect (States → Remote-debugging proxy connection)
// and live_view_connect / live_view_disconnect (States → Live view connection).
import type { GenResult, GenState } from './context.js';
import { clip128 } from './context.js';

export function cdpConnect(g: GenState): GenResult {
  const id = clip128(`conn_${g.rng.hex(16)}`);
  g.connection = { id, openedAt: Date.now(), messages: 0, excluded: 0 };
  return {
    data: { connection_id: id },
    source: { kind: 'cdp_proxy', event: 'connect', metadata: { remote_addr: '10.0.3.17' } },
  };
}

export function cdpDisconnect(g: GenState): GenResult {
  const { rng } = g;
  const conn = g.connection ?? {
    id: `conn_${rng.hex(16)}`,
    openedAt: Date.now() - rng.int(1000, 600000),
    messages: rng.int(10, 5000),
    excluded: 0,
  };
  g.connection = undefined;
  const data: Record<string, unknown> = {
    duration_ms: Math.max(1, Date.now() - conn.openedAt) + rng.float(0, 1, 3),
    message_count: conn.messages * 2 + rng.int(0, 40),
    reason: rng.pick(['client_close', 'client_close', 'upstream_changed', 'upstream_error', 'context_cancelled']),
    connection_id: conn.id,
    telemetry_excluded: conn.excluded + g.excludedCommands,
  };
  g.excludedCommands = 0;
  // Absent on events from an older browser image, which is not the same as zero.
  if (rng.chance(0.8)) data.telemetry_dropped = rng.chance(0.9) ? 0 : rng.int(1, 25);
  return { data, source: { kind: 'cdp_proxy', event: 'disconnect' } };
}

export function liveViewConnect(g: GenState): GenResult {
  // The id is stable across reconnects: a transient interruption yields a second connect with it.
  const id = g.liveView && g.rng.chance(0.3) ? g.liveView.id : `lv_${g.rng.hex(12)}`;
  g.liveView = { id, openedAt: Date.now() };
  return { data: { session_id: id }, source: { kind: 'live_view', event: 'connect' } };
}

export function liveViewDisconnect(g: GenState): GenResult {
  const lv = g.liveView ?? { id: `lv_${g.rng.hex(12)}`, openedAt: Date.now() - g.rng.int(1000, 90000) };
  g.liveView = undefined;
  return {
    data: { session_id: lv.id, duration_ms: Math.max(1, Date.now() - lv.openedAt) + g.rng.float(0, 1, 3) },
    source: { kind: 'live_view', event: 'disconnect' },
  };
}
