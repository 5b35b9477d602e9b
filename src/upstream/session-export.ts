// A session's own OTLP export (`telemetry.export.otlp` on the session, docs/service-api.md): since
// the service lets a session deliver its telemetry itself, a session the bridge follows may reach
// the backend twice, once from the service and once from the bridge. The pool has the same setting
// (browser-pool.ts poolFindings); this is its per-session counterpart. The session object is
// untrusted: read here, once, into what the warning needs; the destination is masked, as it may be
// a URL with credentials.
import { isRecord } from '../util/guards.js';
import { maskUrlText } from '../util/mask-url-text.js';

export interface SessionExport {
  enabled?: boolean;
  /** The destination's name or URL as the service states it, masked. */
  destination?: string;
}

/** `telemetry.export.otlp` of a session object (GET /browsers/{id}, an item of GET /browsers). */
export function parseSessionExport(session: unknown): SessionExport | undefined {
  if (!isRecord(session) || !isRecord(session.telemetry)) return undefined;
  const exp = session.telemetry.export;
  const otlp = isRecord(exp) ? exp.otlp : undefined;
  if (!isRecord(otlp)) return undefined;
  const out: SessionExport = {};
  if (typeof otlp.enabled === 'boolean') out.enabled = otlp.enabled;
  if (typeof otlp.destination === 'string' && otlp.destination !== '') out.destination = maskUrlText(otlp.destination);
  return out;
}

/** The collector's origin (scheme, host, port), or undefined when `url` is not a URL. */
function origin(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the session's destination is, by its URL, the collector the bridge delivers to. */
export function sameCollector(exp: SessionExport, collectorUrl: string): boolean {
  if (exp.destination === undefined) return false;
  const theirs = origin(exp.destination);
  return theirs !== undefined && theirs === origin(collectorUrl);
}

/** The warning for a followed session that exports itself; undefined when it does not. */
export function sessionExportWarning(exp: SessionExport | undefined, sameAsBridge: boolean): string | undefined {
  if (exp?.enabled !== true) return undefined;
  const dest = exp.destination !== undefined ? ` (destination ${exp.destination})` : '';
  return sameAsBridge
    ? `the session exports its telemetry over OTLP itself${dest}, to the same collector the bridge delivers to: every event arrives there twice`
    : `the session exports its telemetry over OTLP itself${dest}: with the bridge following it too, a backend that receives both gets every event twice`;
}
