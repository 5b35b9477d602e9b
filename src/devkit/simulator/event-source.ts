// The provenance the real service puts on every event: `source.kind` is one of cdp, kernel_api,
// extension or local_process; `source.metadata` holds strings only and always carries the
// `telemetry_session_id` of the in-VM process that produced the event (it changes when that process
// restarts, and is how a client recognises a new epoch across a reconnect). The generators in
// events/ describe sources in their own, older vocabulary; they are normalised here, once per
// generated event (the bulk path's templates are generated events, normalised before they are kept).
//
// `truncated: true` has one meaning on the real service: the whole envelope passed 1,000,000 bytes
// and `data` became null. Long strings are cut with `...[truncated]` without the flag, so the flag
// the generators set for a cut string is dropped here, and capEnvelope applies the real rule.
import { isRecord } from '../../util/guards.js';

/** Envelope size above which the service drops `data` and sets `truncated` (bytes of JSON). */
export const ENVELOPE_CAP_BYTES = 1_000_000;

/** The envelope JSON as the service would send it: over the cap, data null and truncated true. */
export function capEnvelope(json: string): string {
  // Characters never outnumber bytes: below the cap in characters may still be above it in bytes.
  if (json.length <= ENVELOPE_CAP_BYTES / 4 || Buffer.byteLength(json) <= ENVELOPE_CAP_BYTES) return json;
  const env = JSON.parse(json) as { seq: number; event: Record<string, unknown> };
  env.event.data = null;
  env.event.truncated = true;
  return JSON.stringify(env);
}

const KINDS: Record<string, string> = {
  cdp: 'cdp',
  monitor: 'cdp',
  cdp_proxy: 'kernel_api',
  live_view: 'kernel_api',
  api: 'kernel_api',
  kernel_api: 'kernel_api',
  extension: 'extension',
  local_process: 'local_process',
};

/** Normalises `event.source` in place. */
export function normaliseSource(event: { source?: unknown }, telemetrySessionId: string): void {
  const src = isRecord(event.source) ? event.source : {};
  const kind = KINDS[typeof src.kind === 'string' ? src.kind : ''] ?? 'kernel_api';
  const metadata: Record<string, string> = {};
  if (isRecord(src.metadata)) {
    for (const [k, v] of Object.entries(src.metadata)) {
      if (v === undefined || v === null) continue;
      metadata[k] = typeof v === 'string' ? v : JSON.stringify(v);
    }
  }
  metadata.telemetry_session_id = telemetrySessionId;
  const out: Record<string, unknown> = { kind };
  if (src.event !== undefined) out.event = src.event;
  out.metadata = metadata;
  event.source = out;
}
