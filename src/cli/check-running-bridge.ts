// `check` on a host where the daemon already runs: its state directory is held (a second `run`
// there would refuse to start), which is what a running daemon looks like, not a fault. The state
// check then reads the running daemon's own HTTP surface (BRIDGE_LISTEN, GET /readyz, open without
// a token) and reports what it says: ready or not, and whether its exports are failing. Only when
// nothing answers there is the busy directory a ✗ (another process holds it, or the surface is off).
import { text } from 'node:stream/consumers';
import { HttpClient } from '../util/http-client.js';
import type { BridgeConfig } from '../config/schema.js';
import type { CheckItem } from './checklist.js';

interface Readiness {
  status?: string;
  problems?: string[];
  exporter?: { failing?: boolean; lastError?: string };
  traces?: { failing?: boolean; lastError?: string; queued?: number };
  spool?: { records?: number };
}

/** The state-dir item for a directory a running bridge holds. */
export async function probeRunningBridge(
  abs: string,
  listen: BridgeConfig['listen'],
  timeoutMs: number,
): Promise<CheckItem> {
  const label = 'state dir';
  const busy = `${abs} is busy: another bridge process holds it, and a second one here would refuse to start`;
  if (!listen)
    return {
      label,
      status: 'fail',
      detail: `${busy} (BRIDGE_LISTEN is off here, so check cannot ask the running one how it is)`,
    };
  // A wildcard bind answers on loopback.
  const host =
    listen.host === '0.0.0.0' || listen.host === ''
      ? '127.0.0.1'
      : listen.host === '::'
        ? '[::1]'
        : listen.host.includes(':')
          ? `[${listen.host}]`
          : listen.host;
  const url = `http://${host}:${listen.port}/readyz`;
  let body: Readiness;
  let statusCode: number;
  // Our own surface on this host: never through a proxy.
  const http = new HttpClient({
    connectTimeoutMs: timeoutMs,
    headersTimeoutMs: timeoutMs,
    bodyTimeoutMs: timeoutMs,
    env: {},
  });
  try {
    const res = await http.request(url, { signal: AbortSignal.timeout(timeoutMs) });
    statusCode = res.statusCode;
    body = await text(res.body)
      .then((t) => JSON.parse(t) as Readiness)
      .catch(() => ({}));
  } catch {
    return {
      label,
      status: 'fail',
      detail: `${busy}; nothing answers at ${url} (BRIDGE_LISTEN), so it is not a bridge this configuration describes`,
    };
  } finally {
    http.close();
  }
  if (statusCode === 200 && body.status === 'ready') {
    // Records and spans have transports of their own: either may fail while the bridge is ready.
    const failing = (what: string, part: { lastError?: string } | undefined, waiting: string) => ({
      level: 'warn' as const,
      text: `the running bridge's ${what} are failing: ${part?.lastError ?? 'unknown error'} (${waiting})`,
    });
    const notes: CheckItem['notes'] = [
      ...(body.exporter?.failing
        ? [failing('exports', body.exporter, `${body.spool?.records ?? '?'} records spooled`)]
        : []),
      ...(body.traces?.failing
        ? [failing('span exports', body.traces, `${body.traces.queued ?? '?'} spans waiting`)]
        : []),
    ];
    return {
      label,
      status: 'ok',
      detail: `${abs} is in use by the running bridge, which reports ready at ${url}`,
      notes,
    };
  }
  const why = body.problems?.join('; ') || `HTTP ${statusCode}`;
  return { label, status: 'fail', detail: `${abs} is in use by a running bridge that is not ready (${url}: ${why})` };
}
