// The container image's HEALTHCHECK: `node bundle/healthcheck.js`. Asks /healthz where the daemon
// listens, read as `run` reads it (config/load-config.ts): BRIDGE_LISTEN when set, else the
// configuration file's `listen:` (the file named by --config, as `run` takes it, or BRIDGE_CONFIG),
// else 127.0.0.1:9464; a wildcard address is asked on loopback. With the HTTP surface off there is
// nothing to ask: the check passes and says so, because the container's own state already is the
// daemon's liveness (node is PID 1; when `run` exits, the container stops).
//
// It runs every few seconds: it reads the file and its one key, and loads nothing else of the
// configuration (the rest is `run`'s to judge; a file the daemon refused leaves no daemon to ask).
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HttpClient } from '../util/http-client.js';
import { networkMessage } from '../util/network-message.js';
import { setVariables } from '../config/env-values.js';
import type { Env } from '../config/env-substitution.js';
import { substituteEnv } from '../config/env-substitution.js';
import { parseListen } from '../config/http-surface-keys.js';
import { parseYaml } from '../config/yaml.js';
import { isRecord } from '../util/guards.js';

export type HealthTarget =
  { kind: 'url'; url: string } | { kind: 'off'; why: string } | { kind: 'invalid'; reason: string };

/** The `listen` value `run` would read, and what it came from (for messages). */
function listenSetting(env: Env, configPath: string | undefined, fileKey: string): { value: unknown; from: string } {
  if (env.BRIDGE_LISTEN !== undefined) return { value: env.BRIDGE_LISTEN, from: `BRIDGE_LISTEN=${env.BRIDGE_LISTEN}` };
  if (!configPath) return { value: '127.0.0.1:9464', from: 'default' };
  // A pipe (`/dev/stdin`, a `<(…)` the daemon was given) would be read until the check is killed,
  // and `run` has taken what it held.
  const stat = statSync(configPath);
  if (!stat.isFile())
    throw new Error(
      `${fileKey}: ${configPath} is ${stat.isDirectory() ? 'a directory' : 'not a regular file'}; the health check reads only a regular file (set BRIDGE_LISTEN instead)`,
    );
  const doc = parseYaml(readFileSync(configPath, 'utf8'));
  if (!isRecord(doc) || doc.listen === undefined) return { value: '127.0.0.1:9464', from: 'default' };
  // `listen: ${BRIDGE_PORT_ADDR}` is substituted as `run` substitutes it.
  const value = substituteEnv(doc.listen, env, 'listen');
  return { value, from: `listen: ${JSON.stringify(value)} in ${configPath}` };
}

/**
 * Where to ask, from the environment and the configuration file `configPath` (the --config
 * argument; default BRIDGE_CONFIG), as `run` reads them: blank variables are unset
 * (config/env-values.ts), BRIDGE_LISTEN overrides the file.
 */
export function healthTarget(processEnv: Env, configPath?: string): HealthTarget {
  const env = setVariables(processEnv);
  const path = configPath ?? env.BRIDGE_CONFIG?.trim();
  let setting: { value: unknown; from: string };
  let listen: { host: string; port: number } | null;
  try {
    setting = listenSetting(env, path, configPath !== undefined ? '--config' : 'BRIDGE_CONFIG');
    listen = parseListen(setting.value, env.BRIDGE_LISTEN !== undefined ? 'BRIDGE_LISTEN' : 'listen');
  } catch (err) {
    return { kind: 'invalid', reason: err instanceof Error ? err.message : String(err) };
  }
  if (listen === null) return { kind: 'off', why: setting.from };
  const { host, port } = listen;
  const wildcard = host === '0.0.0.0' || host === '::';
  const asked = wildcard ? (host === '::' ? '[::1]' : '127.0.0.1') : host.includes(':') ? `[${host}]` : host;
  return { kind: 'url', url: `http://${asked}:${port}/healthz` };
}

/** The value of `--config FILE`, `--config=FILE` or `-c FILE` among `args`, as `run` takes it. */
export function configArgument(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--config' || a === '-c') return args[i + 1];
    if (a.startsWith('--config=')) return a.slice('--config='.length);
  }
  return undefined;
}

async function main(): Promise<number> {
  const t = healthTarget(process.env, configArgument(process.argv.slice(2)));
  if (t.kind === 'off') {
    process.stdout.write(`HTTP surface off (${t.why}): healthy while the daemon process runs\n`);
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
