// Test harness: a simulator, a real OTLP receiver and a bridge (in this process or as a child
// process), all on real sockets on port 0, with a temporary state directory.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildConfig, type Env } from '../../src/config/load-config.js';
import type { BridgeConfig } from '../../src/config/schema.js';
import { startBridge, type Bridge } from '../../src/daemon/bridge.js';
import { startReceiver, type Receiver, type ReceiverOptions } from '../../src/devkit/receiver/server.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/devkit/simulator/index.js';
import { silentLogger } from '../../src/util/logger.js';
import { tallyDelivery, type SessionTally } from '../../src/devkit/demo/delivery-tally.js';
import { sourceEntry } from './compiled-sources.js';

export const REPO = resolve(import.meta.dirname, '../..');

export interface Harness {
  sim: Simulator;
  receiver: Receiver;
  stateDir: string;
  /** Environment for a bridge pointed at this simulator and receiver. */
  env(extra?: Env): Env;
  config(raw?: Record<string, unknown>, extra?: Env): BridgeConfig;
  startBridge(raw?: Record<string, unknown>, extra?: Env): Promise<Bridge>;
  tally(ids: string[]): SessionTally[];
  /** The distinct seqs of a session the receiver holds (duplicates counted once). */
  received(sessionId: string): number;
  close(): Promise<void>;
}

/** Fast timings for tests: quick commits and retries, small batches so several requests are in flight. */
export const FAST: Record<string, unknown> = {
  spool: { commit_interval: '10ms' },
  upstream: { idle_timeout: '3s', backoff: { initial: '20ms', max: '200ms', auth: '300ms' } },
  exporter: { timeout: '2s', batch_max_records: 200, concurrency: 3, backoff: { initial: '20ms', max: '300ms' } },
  shutdown: { grace: '5s' },
};

export async function harness(simOpts: SimulatorOptions = {}, receiverOpts: ReceiverOptions = {}): Promise<Harness> {
  const sim = await startSimulator({ keepaliveMs: 500, seed: 7, ...simOpts });
  const receiver = await startReceiver(receiverOpts);
  const stateDir = mkdtempSync(join(tmpdir(), 'bridge-it-'));
  const bridges: Bridge[] = [];
  const h: Harness = {
    sim,
    receiver,
    stateDir,
    env: (extra = {}) => ({
      BROWSER_API_URL: sim.url,
      BROWSER_API_KEY: 'sim-key',
      BRIDGE_STATE_DIR: stateDir,
      BRIDGE_LISTEN: 'off',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      ...extra,
    }),
    // In this process the sessions run on the test's thread unless a test asks for ingest workers:
    // their status is then exact at any instant. Daemons spawned from h.env() keep the default.
    config: (raw = FAST, extra = {}) => buildConfig(raw, { BRIDGE_WORKERS: '0', ...h.env(extra) }),
    async startBridge(raw = FAST, extra = {}) {
      const b = await startBridge(h.config(raw, extra), silentLogger());
      bridges.push(b);
      return b;
    },
    tally: (ids) => tallyDelivery(receiver.records, ids, (id) => sim.session(id)!.lastSeq),
    received: (id) =>
      new Set(
        receiver.records
          .filter((r) => r.attributes['browser.session.id'] === id)
          .map((r) => r.attributes['browser.telemetry.seq']),
      ).size,
    async close() {
      for (const b of bridges) await b.shutdown(Date.now());
      await sim.close();
      await receiver.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
  return h;
}

/** Runs the real CLI (`run`) as a child process, from the sources (compiled-sources.ts). */
export function spawnDaemon(env: Env, args: string[] = ['run']): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [...sourceEntry('cli/main.ts'), ...args], {
    cwd: REPO,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return Object.assign(child, { output: () => out });
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The daemon's HTTP surface, from its startup line in `output`; undefined before that line. */
export function surfaceUrl(output: string): string | undefined {
  return /HTTP surface listening on (http:\/\/[0-9.]+:\d+)/.exec(output)?.[1];
}

/** Polls until `fn` is true; throws with `what` after `timeoutMs`. */
export async function until(fn: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await sleep(20);
  }
}
