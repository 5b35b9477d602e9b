// The bridge as a sidecar runs it: `browser-telemetry-bridge run` in a process of its own, with
// nothing of the benchmark in it, so its RSS and CPU are the daemon's alone (read from /proc, which
// this Linux-only benchmark already relies on for the machine's load). Used where the process
// itself is what is measured (the sidecar); the in-process BridgeUnderTest stays for the scenarios
// whose figures are about throughput.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { scriptArgs } from './compiled.js';
import { storageWriteBytes } from './storage-writes.js';

const PAGE_TICKS = 100; // USER_HZ on Linux: /proc/<pid>/stat counts CPU time in 1/100 s

export interface BridgeProcessOptions {
  simUrl: string;
  sinkUrl: string;
  sessions: string[];
  tmpRoot: string;
  /** The script that runs the CLI (default: the compiled main.js, as `npm start` runs it). */
  entry?: string;
  /** NODE_OPTIONS for the bridge's process, as a manifest sets it (default: none). */
  nodeOptions?: string;
  /** Flags on node's command line before the script, as a manifest's command gives them (default: none). */
  nodeFlags?: string[];
}

export class BridgeProcess {
  /** Highest VmRSS seen, bytes. */
  peak = 0;
  private cpuMarkTicks = 0;
  private readonly timer: NodeJS.Timeout;

  /** The bridge's HTTP surface (health, metrics), on, as a deployment has it. */
  readonly url: string;

  private constructor(
    private readonly child: ChildProcess,
    port: number,
  ) {
    this.timer = setInterval(() => this.sample(), 100);
    this.url = `http://127.0.0.1:${port}`;
  }

  static async start(o: BridgeProcessOptions): Promise<BridgeProcess> {
    const stateDir = mkdtempSync(join(o.tmpRoot, 'state-'));
    // BENCH_BRIDGE_NODE_FLAGS: V8/node flags for the bridge's process alone, to try one (e.g.
    // "--max-semi-space-size=2") without touching the benchmark's own processes; after the
    // manifest's, so that a flag named again there wins.
    const flags = [...(o.nodeFlags ?? []), ...(process.env.BENCH_BRIDGE_NODE_FLAGS ?? '').split(' ').filter(Boolean)];
    // BENCH_BRIDGE_NODE: another node binary for the bridge alone (Node 22 against 24);
    // BENCH_BRIDGE_ENTRY: another entry script, e.g. the bundle (`npm run bundle`: bundle/main.js).
    const node = process.env.BENCH_BRIDGE_NODE ?? process.execPath;
    const script = process.env.BENCH_BRIDGE_ENTRY ?? o.entry;
    const entry = script !== undefined ? [script] : scriptArgs('src/cli/main.ts');
    const port = await freePort();
    const child = spawn(node, [...flags, ...entry, 'run'], {
      env: {
        ...process.env,
        BROWSER_API_URL: o.simUrl,
        BROWSER_API_KEY: 'sim-key',
        BRIDGE_SESSIONS: o.sessions.join(','),
        BRIDGE_STATE_DIR: stateDir,
        BRIDGE_LISTEN: `127.0.0.1:${port}`,
        OTEL_EXPORTER_OTLP_ENDPOINT: o.sinkUrl,
        LOG_LEVEL: 'warn',
        NODE_OPTIONS: o.nodeOptions ?? '',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    return new BridgeProcess(child, port);
  }

  /** The process's resident set now, bytes (0 once it is gone). */
  sample(): number {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.child.pid}/status`, 'utf8'));
      const rss = m ? Number(m[1]) * 1024 : 0;
      if (rss > this.peak) this.peak = rss;
      return rss;
    } catch {
      return 0;
    }
  }

  private cpuTicks(): number {
    try {
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(f[11]) + Number(f[12]);
    } catch {
      return 0;
    }
  }

  /** Bytes the bridge's process caused to be written to storage so far (/proc/<pid>/io). */
  writtenBytes(): number {
    return this.child.pid === undefined ? 0 : storageWriteBytes(this.child.pid);
  }

  markCpu(): void {
    this.cpuMarkTicks = this.cpuTicks();
  }

  /** CPU seconds (user + system, every thread) of the bridge's process since markCpu(). */
  cpuSeconds(): number {
    return (this.cpuTicks() - this.cpuMarkTicks) / PAGE_TICKS;
  }

  /** SIGTERM, as a container runtime stops it; SIGKILL if it is not gone in 15 s. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const t = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await gone;
    clearTimeout(t);
  }
}

/** A port free now (the bridge listens on it; the default 9464 may be taken on a shared machine). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
