// Outage: sessions stream live while the collector (the sink) refuses every request with 503 for a
// while, then recovers. Memory must stay flat while the spool (and, once the spool is full,
// back-pressure into the service's buffer) absorbs the outage, and everything must arrive after
// recovery. Prints RSS, the bridge's spool gauge and the state directory's size over time.
//
// Phases: before (streaming, sink ok) → outage (sink 503) → after (sink ok, still streaming until
// the simulator has produced rate × (before + outage + after) per session) → drain (until every
// produced event is at the sink, or the deadline).
import { simControl, simProduced, sinkFail, sinkOk, sinkStats } from './peers.js';
import { produce, startLive } from './live-sessions.js';
import { mib } from './rss-sampler.js';
import type { ScenarioContext } from './scenario-context.js';
import type { ScenarioResult } from './report.js';
import { sleep, until } from './wait.js';
import { startCpuProfile } from './cpu-profile.js';

export interface OutageOptions {
  sessions: number;
  ratePerSession: number;
  beforeSeconds: number;
  outageSeconds: number;
  afterSeconds: number;
  drainTimeoutS: number;
  sampleEverySeconds: number;
}

export const SERIES_COLUMNS = ['t_s', 'rss_mib', 'spool_mib', 'state_dir_mib', 'delivered'] as const;

export async function runOutage(ctx: ScenarioContext, o: OutageOptions): Promise<ScenarioResult> {
  const producing = o.beforeSeconds + o.outageSeconds + o.afterSeconds;
  const perSession = Math.round(o.ratePerSession * producing);
  const setup = await startLive(ctx, o.sessions, perSession + 100);
  const { sim, sink, bridge } = setup;
  const series: number[][] = [];
  let sampling: NodeJS.Timeout | undefined;
  try {
    const profile = await startCpuProfile();
    bridge.markCpu();
    const t0 = performance.now();
    const sample = async (): Promise<number[]> => {
      const rss = bridge.rss.sample();
      const spool = await bridge.spoolBytes();
      const row = [
        +((performance.now() - t0) / 1000).toFixed(1),
        mib(rss),
        spool === null ? -1 : mib(spool),
        mib(bridge.stateDirBytes()),
        (await sinkStats(sink.url)).unique,
      ];
      series.push(row);
      return row;
    };
    sampling = setInterval(() => void sample().catch(() => {}), o.sampleEverySeconds * 1000);

    const produced$ = produce(sim.url, o.sessions, o.ratePerSession, perSession, 2 * producing * 1000).catch(
      () => false,
    );
    await sleep(o.beforeSeconds * 1000);
    const atOutage = await sample();
    const peakBeforeOutage = bridge.rss.peak;
    await sinkFail(sink.url, 503);
    bridge.rss.startWindow();
    await sleep(o.outageSeconds * 1000);
    const atRecovery = await sample();
    await sinkOk(sink.url);
    const tRecovered = performance.now();
    const peakDuringOutage = bridge.rss.windowPeak;
    // Production stops by itself after `producing` seconds' worth; give up waiting at twice that.
    if (!(await produced$)) await simControl(sim.url, '/produce?rate=0');
    const tStopped = performance.now();
    const produced = await simProduced(sim.url);
    await until(async () => (await sinkStats(sink.url)).unique >= produced, o.drainTimeoutS * 1000, 100);
    const tDone = performance.now();
    await sample();
    clearInterval(sampling);
    const cpuProfile = await profile.stop(ctx.name);
    const stats = await sinkStats(sink.url);
    return {
      scenario: ctx.name,
      sessions: o.sessions,
      ratePerSession: o.ratePerSession,
      outageSeconds: o.outageSeconds,
      produced,
      delivered: stats.unique,
      eventsPerSecond: Math.round(stats.unique / ((tDone - t0) / 1000)),
      missing: produced - stats.unique,
      duplicates: stats.duplicates,
      refusedRequests: stats.refused,
      drainSeconds: +((tDone - tStopped) / 1000).toFixed(1),
      drainTimedOut: stats.unique < produced,
      recoverySeconds: +((tDone - tRecovered) / 1000).toFixed(1),
      latency: stats.latency,
      peakRssMiB: mib(bridge.rss.peak),
      rssPeakBeforeOutageMiB: mib(peakBeforeOutage),
      rssAtOutageStartMiB: atOutage[1],
      rssPeakDuringOutageMiB: mib(peakDuringOutage),
      rssAtRecoveryMiB: atRecovery[1],
      spoolAtRecoveryMiB: atRecovery[2],
      cpuSecondsBridge: +bridge.cpuSeconds().toFixed(1),
      seriesColumns: SERIES_COLUMNS,
      series,
      ...(cpuProfile ? { cpuProfile } : {}),
    };
  } finally {
    clearInterval(sampling);
    await setup.stop();
  }
}
