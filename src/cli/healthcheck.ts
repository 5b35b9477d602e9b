// The container image's HEALTHCHECK: `node bundle/healthcheck.js`. Asks /healthz where
// BRIDGE_LISTEN says the daemon listens (a wildcard address is asked on loopback). With the HTTP
// surface off there is nothing to ask: the check passes and says so, because the container's own
// state already is the daemon's liveness (node is PID 1; when `run` exits, the container stops).
// A `listen:` set only in a configuration file is not seen here: set BRIDGE_LISTEN as well.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HttpClient } from '../util/http-client.js';
import { networkMessage } from '../util/network-message.js';
import { isBlank } from '../config/env-values.js';

export type HealthTarget = { kind: 'url'; url: string } | { kind: 'off' } | { kind: 'invalid'; reason: string };

/** Where to ask, from BRIDGE_LISTEN (default 127.0.0.1:9464 when unset or blank, like `run`: config/env-values.ts). */
export function healthTarget(listen: string | undefined): HealthTarget {
  const v = isBlank(listen) ? '127.0.0.1:9464' : listen!.trim();
  if (v === 'off' || v === 'none') return { kind: 'off' };
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(v);
  if (!m) return { kind: 'invalid', reason: `BRIDGE_LISTEN is not host:port: "${v}"` };
  const host = m[1] ?? (m[2] || '127.0.0.1');
  const wildcard = host === '0.0.0.0' || host === '::';
  const asked = wildcard ? (host === '::' ? '[::1]' : '127.0.0.1') : host.includes(':') ? `[${host}]` : host;
  return { kind: 'url', url: `http://${asked}:${m[3]}/healthz` };
}

async function main(): Promise<number> {
  const t = healthTarget(process.env.BRIDGE_LISTEN);
  if (t.kind === 'off') {
    process.stdout.write('HTTP surface off (BRIDGE_LISTEN=off): healthy while the daemon process runs\n');
    return 0;
  }
  if (t.kind === 'invalid') {
    process.stdout.write(`${t.reason}\n`);
    return 1;
  }
  // The daemon on this host: never through a proxy.
  const http = new HttpClient({ connectTimeoutMs: 4000, headersTimeoutMs: 4000, bodyTimeoutMs: 4000, env: {} });
  try {
    const res = await http.request(t.url, { signal: AbortSignal.timeout(4000) });
    res.body.resume();
    process.stdout.write(`${t.url}: ${res.statusCode}\n`);
    return res.statusCode >= 200 && res.statusCode < 300 ? 0 : 1;
  } catch (err) {
    process.stdout.write(`${t.url}: ${networkMessage(err)}\n`);
    return 1;
  } finally {
    http.close();
  }
}

function isEntryPoint(): boolean {
  try {
    return (
      process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))
    );
  } catch {
    return false;
  }
}

if (isEntryPoint()) void main().then((code) => process.exit(code));
