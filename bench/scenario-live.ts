// Live: many sessions producing steadily (the simulator stamps each event's ts when it produces it)
// for a fixed time, then a drain. Measures event→collector latency (production → decoded by the
// sink), peak RSS, CPU, and that every produced event arrived. When the bridge cannot keep up the
// drain is cut off at a deadline and the shortfall is reported as missing, rather than waiting on.
import { peerCpuSeconds, simControl, simProduced, sinkStats, sinkSteady } from './peers.js';
import { produce, startLive } from './live-sessions.js';
import { mib } from './rss-sampler.js';
import { BENCH_SESSION, type ScenarioContext, type SessionKind } from './scenario-context.js';
import type { ScenarioResult } from './report.js';
import { until } from './wait.js';
import { startCpuProfile } from './cpu-profile.js';
import { storageWriteBytes } from './storage-writes.js';
import { startGcTally } from './gc-tally.js';

export interface LiveOptions {
  sessions: number;
  ratePerSession: number;
  seconds: number;
  drainTimeoutS: number;
  /** What the sessions capture (default: every category but screenshots). */
  kind?: SessionKind;
}

/** The steady-state CPU window starts this long after production did (half a shorter run). */
const STEADY_CPU_AFTER_MS = 10_000;

/** The bridge's CPU seconds so far (the whole process; the main thread) and the events the sink has. */
interface CpuPoint {
  cpu: number;
  main: number | null;
  unique: number;
}

async function cpuPoint(
  bridge: { cpuSeconds(): number; mainThreadCpuSeconds(): number | null },
  sinkUrl: string,
): Promise<CpuPoint> {
  const cpu = bridge.cpuSeconds();
  const main = bridge.mainThreadCpuSeconds();
  return { cpu, main, unique: (await sinkStats(sinkUrl)).unique };
}

/** µs of CPU per event received between two points; null without both or without events. */
function perEvent(
  from: CpuPoint | undefined,
  to: CpuPoint | undefined,
  cpu: (p: CpuPoint) => number | null,
): number | null {
  if (from === undefined || to === undefined || to.unique <= from.unique) return null;
  const a = cpu(from);
  const b = cpu(to);
  if (a === null || b === null) return null;
  return +(((b - a) * 1e6) / (to.unique - from.unique)).toFixed(1);
}

export async function runLive(ctx: ScenarioContext, o: LiveOptions): Promise<ScenarioResult> {
  const perSession = Math.round(o.ratePerSession * o.seconds);
  const setup = await startLive(ctx, o.sessions, perSession + 100, o.kind ?? BENCH_SESSION);
  const { sim, sink, bridge } = setup;
  try {
    const rssConnected = bridge.rss.sample();
    const profile = await startCpuProfile();
    bridge.markCpu();
    const simCpu0 = peerCpuSeconds(sim.child);
    const gc = startGcTally();
    const written0 = storageWriteBytes();
    const sink0 = await sinkStats(sink.url);
    const sinkBytes0 = sink0.bytes;
    const t0 = performance.now();
    // RSS while events flow, after the first seconds (the steady figure beside the peak).
    // The first seconds (or the first half of a short run) are the start, not the steady state.
    const warmupMs = Math.min(5000, o.seconds * 500);
    const steady: number[] = [];
    const steadyTimer = setInterval(() => {
      if (performance.now() - t0 > warmupMs) steady.push(bridge.rss.sample());
    }, 500);
    // CPU per event in the steady state too: the whole window's figure also carries what a process
    // pays once, when the flow starts (V8 compiling the per-event path, about 2 s of its helper
    // threads in the heavy mix, and the first reads of a thousand streams). Measured from the end of
    // the warm-up to the end of production, over the events the sink received meanwhile.
    const cpuWarmupMs = Math.min(STEADY_CPU_AFTER_MS, o.seconds * 500);
    let steadyFrom: CpuPoint | undefined;
    const steadyCpuTimer = setTimeout(() => {
      void cpuPoint(bridge, sink.url).then((p) => (steadyFrom = p));
      void sinkSteady(sink.url);
    }, cpuWarmupMs);
    // A simulator that cannot keep the rate (two cores shared with the bridge) takes longer; after
    // twice the nominal time it is stopped and what it produced is what counts.
    if (!(await produce(sim.url, o.sessions, o.ratePerSession, perSession, 2 * o.seconds * 1000)))
      await simControl(sim.url, '/produce?rate=0');
    const t1 = performance.now();
    clearInterval(steadyTimer);
    clearTimeout(steadyCpuTimer);
    const steadyTo = steadyFrom && (await cpuPoint(bridge, sink.url));
    const produced = await simProduced(sim.url);
    const rssEndOfProduction = bridge.rss.sample();
    await until(async () => (await sinkStats(sink.url)).unique >= produced, o.drainTimeoutS * 1000, 100);
    const t2 = performance.now();
    const cpuSeconds = bridge.cpuSeconds();
    const mainCpuSeconds = bridge.mainThreadCpuSeconds();
    const simCpu1 = peerCpuSeconds(sim.child);
    const simCpuSeconds = simCpu0 !== null && simCpu1 !== null ? simCpu1 - simCpu0 : null;
    const mainThreadGc = gc.stop();
    const written = storageWriteBytes() - written0;
    const cpuProfile = await profile.stop(ctx.name);
    const stats = await sinkStats(sink.url);
    const otlpBytes = stats.bytes - sinkBytes0;
    return {
      scenario: ctx.name,
      sessions: o.sessions,
      ratePerSession: o.ratePerSession,
      productionSeconds: +((t1 - t0) / 1000).toFixed(1),
      produced,
      offeredPerSecond: Math.round(produced / ((t1 - t0) / 1000)),
      delivered: stats.unique,
      eventsPerSecond: Math.round(stats.unique / ((t2 - t0) / 1000)),
      drainSeconds: +((t2 - t1) / 1000).toFixed(1),
      drainTimedOut: stats.unique < produced,
      missing: produced - stats.unique,
      duplicates: stats.duplicates,
      recordsWithoutUid: stats.withoutUid,
      latency: stats.latency,
      // The latency of the events produced from the end of the warm-up on (null for a run too short).
      steadyLatency: steadyFrom ? stats.steadyLatency : null,
      peakRssMiB: mib(bridge.rss.peak),
      rssConnectedMiB: mib(rssConnected),
      rssEndOfProductionMiB: mib(rssEndOfProduction),
      rssSteadyMiB: steady.length > 0 ? mib(median(steady)) : null,
      cpuSecondsBridge: +cpuSeconds.toFixed(1),
      // Bridge CPU (every thread of its process) per event that reached the collector.
      cpuMicrosPerEvent: stats.unique > 0 ? +((cpuSeconds * 1e6) / stats.unique).toFixed(1) : null,
      // The same from the end of the warm-up to the end of production (null for a run too short).
      steadyCpuMicrosPerEvent: perEvent(steadyFrom, steadyTo, (p) => p.cpu),
      steadyMainThreadCpuMicrosPerEvent: perEvent(steadyFrom, steadyTo, (p) => p.main),
      // The main thread's part of it (delivery and the spool; not the ingest workers' parsing).
      mainThreadCpuMicrosPerEvent:
        stats.unique > 0 && mainCpuSeconds !== null ? +((mainCpuSeconds * 1e6) / stats.unique).toFixed(1) : null,
      wireBytesPerEvent: stats.unique > 0 && stats.bytes !== undefined ? Math.round(stats.bytes / stats.unique) : null,
      cpuSecondsSink: stats.cpuSeconds,
      // The load generator's CPU over the same window, per event it produced: it shares the cores
      // (and each core's execution units) with the bridge, so what it burns slows the bridge too.
      cpuSecondsSimulator: simCpuSeconds === null ? null : +simCpuSeconds.toFixed(1),
      simulatorCpuMicrosPerEvent:
        simCpuSeconds !== null && produced > 0 ? +((simCpuSeconds * 1e6) / produced).toFixed(1) : null,
      // What the spool cost: bytes the bridge's process wrote to storage per OTLP byte delivered.
      storageWriteBytes: written,
      otlpBytes,
      storageBytesPerOtlpByte: +(written / Math.max(1, otlpBytes)).toFixed(3),
      // How the records travelled: fewer, fuller requests cost the main thread fewer writes and answers.
      mainThreadGc,
      exportRequests: stats.requests - sink0.requests,
      recordsPerRequest: Math.round((stats.records - sink0.records) / Math.max(1, stats.requests - sink0.requests)),
      // Traces on: the span requests (/v1/traces) and their bytes; a request costs the main thread
      // about what a log request does, whatever it carries.
      ...(stats.traces.requests > 0
        ? {
            traceRequests: stats.traces.requests - sink0.traces.requests,
            traceBytes: stats.traces.bytes - sink0.traces.bytes,
          }
        : {}),
      ...(cpuProfile ? { cpuProfile } : {}),
    };
  } finally {
    await setup.stop();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
