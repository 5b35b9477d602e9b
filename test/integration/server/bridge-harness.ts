// The bridge as `run` starts it — startBridge + startHttpServer — in this process, on real sockets
// on port 0, against the shared harness's simulator, receiver and temporary state directory
// (test/helpers/harness.ts). Used by the HTTP-surface and reload tests.
import { afterEach, beforeEach } from 'vitest';
import { buildConfig, loadConfig, type Env } from '../../../src/config/load-config.js';
import type { BridgeConfig } from '../../../src/config/schema.js';
import { startBridge, type Bridge } from '../../../src/daemon/bridge.js';
import { startHttpServer, type HttpOptions, type HttpSurface } from '../../../src/server/http-server.js';
import { silentLogger } from '../../../src/util/logger.js';
import { FAST, harness, type Harness } from '../../helpers/harness.js';

export { FAST };
export type World = Harness;

/** Simulator + receiver + temporary state directory. */
export const startWorld = (): Promise<World> => harness();

/** A fresh world for every test of the file, and the bridge a test starts in it stopped after it. */
export interface PerTest {
  world: World;
  running: RunningBridge | undefined;
}

/** Registers the hooks that give each test its own world (call at the top level of a test file). */
export function worldPerTest(): PerTest {
  const t = { running: undefined } as PerTest;
  beforeEach(async () => {
    t.world = await startWorld();
  });
  afterEach(async () => {
    await t.running?.stop(Date.now());
    t.running = undefined;
    await t.world.close();
  });
  return t;
}

/** The environment of a bridge of this world with its HTTP surface on an ephemeral loopback port. */
export function worldEnv(world: World, extra: Env = {}): Env {
  return world.env({ BRIDGE_LISTEN: '127.0.0.1:0', ...extra });
}

export interface RunningBridge {
  bridge: Bridge;
  http: HttpSurface;
  url: string;
  config: BridgeConfig;
  /**
   * Closes the HTTP surface, then shuts the bridge down by `deadline` (epoch ms; the configuration's
   * grace period when not given). A test's teardown passes now: with the collector down or a backlog
   * left, the grace period is seconds spent delivering what no test reads any more.
   */
  stop(deadline?: number): Promise<void>;
}

/** Starts from `raw` (FAST merged in) — or, when `env` names BRIDGE_CONFIG, from that file as `run` does. */
export async function startInProcess(
  world: World,
  raw: Record<string, unknown> = {},
  env: Env = {},
  httpOpts?: Omit<HttpOptions, 'token'>,
): Promise<RunningBridge> {
  // Sessions on this thread unless the test asks for workers (see harness.ts).
  const fullEnv: Env = { BRIDGE_WORKERS: '0', ...worldEnv(world, env) };
  const config = fullEnv.BRIDGE_CONFIG ? loadConfig(undefined, fullEnv) : buildConfig({ ...FAST, ...raw }, fullEnv);
  const log = silentLogger();
  const bridge = await startBridge(config, log);
  const http = await startHttpServer(bridge, config.listen ?? { host: '127.0.0.1', port: 0 }, log, {
    token: config.controlToken,
    allowedHosts: config.controlAllowedHosts,
    ...httpOpts,
  });
  let stopped: Promise<void> | undefined;
  return {
    bridge,
    http,
    url: http.url,
    config,
    stop(deadline) {
      stopped ??= (async () => {
        await http.close();
        await bridge.shutdown(deadline);
      })();
      return stopped;
    },
  };
}

/** Polls `probe` until it returns a value other than undefined. */
export async function eventually<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Session ids the bridge follows now (ended and stopped ones left out), from GET /v1/sessions. */
export async function followedIds(url: string, token?: string): Promise<string[]> {
  const res = await fetch(`${url}/v1/sessions`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const body = (await res.json()) as { sessions: Array<{ id: string; state: string }> };
  return body.sessions
    .filter((s) => s.state !== 'ended' && s.state !== 'stopped')
    .map((s) => s.id)
    .sort();
}
