// The bridge as the benchmark runs it: in this process (so RSS and CPU are the bridge's own, plus a
// polling loop that costs nothing worth naming), configured like a user would, against the
// simulator and the sink running as child processes. Only the public entry points are used
// (buildConfig, startBridge, shutdown) and delivery is counted by the sink, not read from the
// bridge's internals, so the benchmark survives a rewrite of the pipeline.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { buildConfig } from '../src/config/load-config.js';
import type { OtlpProtocol } from '../src/config/schema.js';
import { startBridge } from '../src/daemon/bridge.js';
import { silentLogger } from '../src/util/logger.js';
import { RssSampler } from './rss-sampler.js';
import { within } from './wait.js';

type Bridge = Awaited<ReturnType<typeof startBridge>>;

export interface BridgeUnderTestOptions {
  simUrl: string;
  sinkUrl: string;
  sessions: string[];
  protocol: OtlpProtocol;
  /** A directory for the state directory; the caller removes it. */
  tmpRoot: string;
}

export class BridgeUnderTest {
  readonly rss = new RssSampler();
  private cpuMark = process.cpuUsage();
  private mainCpuMark = mainThreadCpuSeconds();

  private constructor(
    readonly bridge: Bridge,
    readonly stateDir: string,
  ) {}

  static async start(o: BridgeUnderTestOptions): Promise<BridgeUnderTest> {
    const stateDir = mkdtempSync(join(o.tmpRoot, 'state-'));
    const config = buildConfig(
      {
        sessions: o.sessions,
        exporter: { protocol: o.protocol },
        // Every session the scenario makes is followed, past the bridge's default of 1,000 too
        // (`--live-sessions 2000`: an overload the bridge must bear without losing an event).
        ...(o.sessions.length > 1000 ? { max_sessions: o.sessions.length } : {}),
        // The memory window's size, to weigh it against RSS: BENCH_SPOOL_MEMORY_MAX_BYTES=16MiB npm run bench.
        ...(process.env.BENCH_SPOOL_MEMORY_MAX_BYTES !== undefined
          ? { spool: { memory_max_bytes: process.env.BENCH_SPOOL_MEMORY_MAX_BYTES } }
          : {}),
      },
      {
        BROWSER_API_URL: o.simUrl,
        BROWSER_API_KEY: 'sim-key',
        BRIDGE_STATE_DIR: stateDir,
        BRIDGE_LISTEN: 'off',
        OTEL_EXPORTER_OTLP_ENDPOINT: o.sinkUrl,
        // The bridge's own default (auto) unless the bench is asked to compare: BRIDGE_WORKERS=0 npm run bench.
        ...(process.env.BRIDGE_WORKERS !== undefined ? { BRIDGE_WORKERS: process.env.BRIDGE_WORKERS } : {}),
        // overflow (the default) or always: BRIDGE_SPOOL_MODE=always npm run bench measures the spool-everything mode.
        ...(process.env.BRIDGE_SPOOL_MODE !== undefined ? { BRIDGE_SPOOL_MODE: process.env.BRIDGE_SPOOL_MODE } : {}),
        // Spans beside the records: BRIDGE_TRACES=true npm run bench measures what traces cost.
        ...(process.env.BRIDGE_TRACES !== undefined ? { BRIDGE_TRACES: process.env.BRIDGE_TRACES } : {}),
        // The workers' read pacing (default 200ms): BRIDGE_READ_PACING=0 npm run bench reads as bytes arrive.
        ...(process.env.BRIDGE_READ_PACING !== undefined ? { BRIDGE_READ_PACING: process.env.BRIDGE_READ_PACING } : {}),
      },
    );
    const bridge = await startBridge(config, silentLogger());
    return new BridgeUnderTest(bridge, stateDir);
  }

  /** Starts counting CPU time from now. */
  markCpu(): void {
    this.cpuMark = process.cpuUsage();
    this.mainCpuMark = mainThreadCpuSeconds();
  }

  /**
   * CPU seconds of the main thread alone since the last markCpu() (delivery, the spool, the
   * workers' messages; the ingest workers are not in it), or null where /proc is not there.
   */
  mainThreadCpuSeconds(): number | null {
    const now = mainThreadCpuSeconds();
    return now === null || this.mainCpuMark === null ? null : now - this.mainCpuMark;
  }

  /** CPU seconds (user + system) of this process since the last markCpu(). */
  cpuSeconds(): number {
    const u = process.cpuUsage(this.cpuMark);
    return (u.user + u.system) / 1e6;
  }

  /** The bridge's own `bridge_spool_bytes` gauge (operator contract), or null if it is gone. */
  async spoolBytes(): Promise<number | null> {
    const family = await this.bridge.metrics.registry.family('bridge_spool_bytes');
    const value = family?.samples[0]?.value;
    return typeof value === 'number' ? value : null;
  }

  /** Bytes the state directory takes on disk (store files, WAL included). */
  stateDirBytes(): number {
    let total = 0;
    for (const name of readdirSync(this.stateDir)) {
      try {
        total += statSync(join(this.stateDir, name)).size;
      } catch {
        // removed between readdir and stat (a WAL checkpoint)
      }
    }
    return total;
  }

  /** Shuts the bridge down (bounded: a hung shutdown must not hang the benchmark). */
  async stop(): Promise<void> {
    this.rss.stop();
    await within(this.bridge.shutdown(Date.now() + 2000), 30_000, 'bridge shutdown').catch((err: unknown) => {
      process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
    });
  }
}

/** User + system CPU of this process's main thread (its task id is the pid), from /proc; clock ticks at 100 Hz. */
function mainThreadCpuSeconds(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces, hence the last ')'): utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}
