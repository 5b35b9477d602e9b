// Shared by the live and outage scenarios: a simulator with many sessions that produce steadily,
// a sink, and the bridge following all of them.
import { BridgeUnderTest } from './bridge-under-test.js';
import { BENCH_SESSION, formatPeerArgs, type ScenarioContext, type SessionKind } from './scenario-context.js';
import { simControl, simGet, simProduced, startPeer, type Peer } from './peers.js';
import { until } from './wait.js';

export interface LiveSetup {
  sim: Peer;
  sink: Peer;
  bridge: BridgeUnderTest;
  ids: string[];
  /** Stops the bridge, then the peers; idempotent enough for a finally block. */
  stop(): Promise<void>;
}

/**
 * Starts the peers and the bridge, creates `sessions` idle sessions and waits until the bridge
 * streams every one, so production (started by the caller) is measured from its first event.
 * `bufferEvents` must hold everything a session produces in the run: an event evicted before the
 * bridge read it would be a gap, i.e. missing.
 */
export async function startLive(
  ctx: ScenarioContext,
  sessions: number,
  bufferEvents: number,
  kind: SessionKind = BENCH_SESSION,
): Promise<LiveSetup> {
  const peers: Peer[] = [];
  let bridge: BridgeUnderTest | undefined;
  const stop = async (): Promise<void> => {
    await bridge?.stop();
    for (const p of peers.reverse()) await p.stop();
  };
  try {
    const sim = await startPeer(
      'src/devkit/simulator/main.ts',
      formatPeerArgs({ port: 0, buffer: bufferEvents, 'keepalive-ms': 15_000 }),
    );
    peers.push(sim);
    const sink = await startPeer('bench/sink.ts');
    peers.push(sink);
    const ids = Array.from({ length: sessions }, (_, i) => `live-${i}`);
    for (let i = 0; i < ids.length; i += 50)
      await Promise.all(ids.slice(i, i + 50).map((id) => simControl(sim.url, `/sessions/${id}`, kind)));
    bridge = await BridgeUnderTest.start({
      simUrl: sim.url,
      sinkUrl: sink.url,
      sessions: ids,
      protocol: 'http/protobuf',
      tmpRoot: ctx.tmpRoot,
    });
    const connected = await until(
      async () => (await simGet<{ activeStreams: number }>(sim.url, '/stats')).activeStreams >= sessions,
      120_000,
      250,
    );
    if (!connected) throw new Error(`the bridge did not open all ${sessions} streams within 120 s`);
    return { sim, sink, bridge, ids, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Every session produces `count` events at `rate`/s; the simulator stops each one by itself, so the
 * total is exact even when this process (the bridge's) is too busy to say stop on time. Resolves
 * once all are produced (→ true) or after `timeoutMs` (→ false).
 */
export async function produce(
  simUrl: string,
  sessions: number,
  rate: number,
  count: number,
  timeoutMs: number,
): Promise<boolean> {
  await simControl(simUrl, `/produce?rate=${rate}&count=${count}`);
  return until(async () => (await simProduced(simUrl)) >= sessions * count, timeoutMs, 500);
}
