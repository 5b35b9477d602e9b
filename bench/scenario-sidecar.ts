// Sidecar: the smallest deployment, one session next to one agent, with the bridge as its own
// process (`run`, defaults; its HTTP surface on, probed and scraped as in a deployment), run as
// config/kubernetes/sidecar.yaml deploys it: the image's bundle and the manifest's NODE_OPTIONS
// (`--sidecar-plain`: dist/ with V8's defaults, as `npm start` runs it).
// Steady RSS (the median while events flow, after the first seconds), peak RSS, CPU per event,
// latency, and that every event arrived.
import { BridgeProcess } from './bridge-process.js';
import { bundleEntry, RUNNING_COMPILED } from './compiled.js';
import { produce } from './live-sessions.js';
import { sidecarCommandFlags, sidecarNodeOptions } from './sidecar-manifest.js';
import { simControl, simGet, simProduced, sinkStats, startPeer, type Peer } from './peers.js';
import { mib } from './rss-sampler.js';
import { formatPeerArgs, REALISTIC_SESSION, type ScenarioContext } from './scenario-context.js';
import type { ScenarioResult } from './report.js';
import { until } from './wait.js';

export interface SidecarOptions {
  ratePerSession: number;
  seconds: number;
  drainTimeoutS: number;
  /** dist/ with V8's defaults instead of the sidecar manifest's bundle and NODE_OPTIONS. */
  plain: boolean;
}

export async function runSidecar(ctx: ScenarioContext, o: SidecarOptions): Promise<ScenarioResult> {
  const peers: Peer[] = [];
  let bridge: BridgeProcess | undefined;
  try {
    const count = Math.round(o.ratePerSession * o.seconds);
    const sim = await startPeer(
      'src/devkit/simulator/main.ts',
      formatPeerArgs({ port: 0, buffer: count + 100, 'keepalive-ms': 15_000 }),
    );
    peers.push(sim);
    const sink = await startPeer('bench/sink.ts');
    peers.push(sink);
    await simControl(sim.url, '/sessions/sidecar-1', REALISTIC_SESSION);
    const entry = o.plain ? undefined : bundleEntry();
    const nodeOptions = o.plain ? '' : sidecarNodeOptions();
    const nodeFlags = o.plain ? [] : sidecarCommandFlags();
    bridge = await BridgeProcess.start({
      simUrl: sim.url,
      sinkUrl: sink.url,
      sessions: ['sidecar-1'],
      tmpRoot: ctx.tmpRoot,
      entry,
      nodeOptions,
      nodeFlags,
    });
    if (
      !(await until(
        async () => (await simGet<{ activeStreams: number }>(sim.url, '/stats')).activeStreams >= 1,
        30_000,
        100,
      ))
    ) {
      throw new Error("the bridge did not open the session's stream within 30 s");
    }
    const rssConnected = bridge.sample();
    bridge.markCpu();
    const written0 = bridge.writtenBytes();
    const sinkBytes0 = (await sinkStats(sink.url)).bytes;
    const t0 = performance.now();
    // The first seconds (or the first half of a short run) are the start, not the steady state.
    const warmupMs = Math.min(5000, o.seconds * 500);
    const steady: number[] = [];
    const b = bridge;
    const timer = setInterval(() => {
      if (performance.now() - t0 > warmupMs) steady.push(b.sample());
    }, 500);
    // As deployed: a kubelet asks /healthz every 10 s, Prometheus scrapes /metrics every 15 s.
    let scrapes = 0;
    const ask = (path: string): void =>
      void fetch(`${b.url}${path}`).then(
        async (r) => {
          await r.text();
          if (r.ok) scrapes++;
        },
        () => undefined,
      );
    const probes = [setInterval(() => ask('/healthz'), 10_000), setInterval(() => ask('/metrics'), 15_000)];
    ask('/metrics');
    await produce(sim.url, 1, o.ratePerSession, count, 2 * o.seconds * 1000);
    clearInterval(timer);
    for (const p of probes) clearInterval(p);
    const produced = await simProduced(sim.url);
    await until(async () => (await sinkStats(sink.url)).unique >= produced, o.drainTimeoutS * 1000, 100);
    const cpuSeconds = bridge.cpuSeconds();
    const written = bridge.writtenBytes() - written0;
    const stats = await sinkStats(sink.url);
    const otlpBytes = stats.bytes - sinkBytes0;
    steady.sort((x, y) => x - y);
    return {
      scenario: ctx.name,
      sessions: 1,
      ratePerSession: o.ratePerSession,
      produced,
      delivered: stats.unique,
      eventsPerSecond: Math.round(stats.unique / ((performance.now() - t0) / 1000)),
      missing: produced - stats.unique,
      duplicates: stats.duplicates,
      latency: stats.latency,
      peakRssMiB: mib(bridge.peak),
      rssConnectedMiB: mib(rssConnected),
      rssSteadyMiB: steady.length > 0 ? mib(steady[Math.floor(steady.length / 2)]!) : null,
      cpuSecondsBridge: +cpuSeconds.toFixed(2),
      cpuMicrosPerEvent: stats.unique > 0 ? Math.round((cpuSeconds * 1e6) / stats.unique) : null,
      wireBytesPerEvent: stats.unique > 0 ? Math.round(stats.bytes / stats.unique) : null,
      // One session: where a write per checkpoint costs the most per byte delivered.
      storageWriteBytes: written,
      otlpBytes,
      storageBytesPerOtlpByte: +(written / Math.max(1, otlpBytes)).toFixed(3),
      process: 'separate',
      bridgeRuns: [
        process.env.BENCH_BRIDGE_ENTRY ?? (entry !== undefined ? 'bundle' : RUNNING_COMPILED ? 'dist' : 'source (tsx)'),
        nodeOptions !== '' ? `NODE_OPTIONS=${nodeOptions}` : '',
        process.env.BENCH_BRIDGE_NODE_FLAGS ?? '',
      ]
        .filter(Boolean)
        .join(', '),
      httpRequestsAnswered: scrapes,
    };
  } finally {
    await bridge?.stop();
    for (const p of peers.reverse()) await p.stop();
  }
}
