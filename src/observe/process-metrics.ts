// The standard process and Node.js runtime metrics, under the names (and help texts) prom-client's
// collectDefaultMetrics gave them, which dashboards and alert rules expect. Read at scrape time:
//
//   process_cpu_user_seconds_total, process_cpu_system_seconds_total,
//   process_cpu_seconds_total          counters   process.cpuUsage()
//   process_start_time_seconds         gauge      now − uptime, whole seconds
//   process_resident_memory_bytes      gauge      VmRSS of /proc/self/status (elsewhere memoryUsage().rss)
//   process_virtual_memory_bytes       gauge      VmSize  (Linux only)
//   process_heap_bytes                 gauge      VmData  (Linux only)
//   process_open_fds                   gauge      entries of /proc/self/fd (Linux only)
//   process_max_fds                    gauge      soft "Max open files" of /proc/self/limits (Linux only)
//   nodejs_eventloop_lag_seconds       gauge      how late a setImmediate queued by the scrape runs
//   nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds
//                                      gauges     perf_hooks.monitorEventLoopDelay (10 ms resolution, so
//                                                 an idle loop reads ~0.010) since the previous scrape;
//                                                 NaN when it holds no sample yet
//   nodejs_active_handles_total, nodejs_active_requests_total, nodejs_active_resources_total
//                                      gauges     libuv handles, requests; resources keeping the loop alive
//   nodejs_heap_size_total_bytes, nodejs_heap_size_used_bytes, nodejs_external_memory_bytes
//                                      gauges     process.memoryUsage()
//   nodejs_version_info{version,major,minor,patch}  gauge, always 1
//   nodejs_gc_duration_seconds{kind}   histogram  PerformanceObserver on 'gc'; kind major, minor,
//                                                 incremental, weakcb, each present from the start
//
// Not carried over from prom-client: the per-type breakdowns nodejs_active_handles{type},
// nodejs_active_requests{type}, nodejs_active_resources{type} and the per-space
// nodejs_heap_space_size_{total,used,available}_bytes{space}.
import { readFileSync, readdirSync } from 'node:fs';
import { PerformanceObserver, constants, monitorEventLoopDelay, type PerformanceEntry } from 'node:perf_hooks';
import type { Counter, Registry } from './prom-registry.js';

const LINUX = process.platform === 'linux';
const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/** Undocumented but long-standing counts (prom-client reads the same). */
const internals = process as NodeJS.Process & {
  _getActiveHandles?: () => unknown[];
  _getActiveRequests?: () => unknown[];
};

/** VmRSS, VmSize and VmData of /proc/self/status, in bytes; {} where there is no procfs. */
export function procStatus(text: string): { VmRSS?: number; VmSize?: number; VmData?: number } {
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^(VmRSS|VmSize|VmData):\s*(\d+) kB$/gm)) out[m[1]!] = Number(m[2]) * 1024;
  return out;
}

/** The soft limit of "Max open files" in /proc/self/limits text; undefined if absent or unlimited. */
export function maxOpenFiles(text: string): number | undefined {
  const m = /^Max open files\s+(\d+)/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

function tryRead(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

export function registerProcessMetrics(registry: Registry): void {
  const cpuUser = registry.counter({
    name: 'process_cpu_user_seconds_total',
    help: 'Total user CPU time spent in seconds.',
  });
  const cpuSystem = registry.counter({
    name: 'process_cpu_system_seconds_total',
    help: 'Total system CPU time spent in seconds.',
  });
  registry.counter({
    name: 'process_cpu_seconds_total',
    help: 'Total user and system CPU time spent in seconds.',
    collect() {
      // Microseconds since start, which only grow: each counter moves up to the total it reads.
      const { user, system } = process.cpuUsage();
      const upTo = (c: Counter, total: number) => c.inc(Math.max(0, total - (c.get() ?? 0)));
      upTo(cpuUser, user / 1e6);
      upTo(cpuSystem, system / 1e6);
      upTo(this, (user + system) / 1e6);
    },
  });

  const startTime = Math.round(Date.now() / 1000 - process.uptime());
  registry.gauge({
    name: 'process_start_time_seconds',
    help: 'Start time of the process since unix epoch in seconds.',
    collect() {
      this.set(startTime);
    },
  });

  if (LINUX) {
    registry.gauge({
      name: 'process_resident_memory_bytes',
      help: 'Resident memory size in bytes.',
      collect() {
        // /proc is no disk: a synchronous read never blocks (libuv's memoryUsage().rss reads it too).
        const s = procStatus(tryRead('/proc/self/status') ?? '');
        if (s.VmRSS !== undefined) this.set(s.VmRSS);
        if (s.VmSize !== undefined) virtual.set(s.VmSize);
        if (s.VmData !== undefined) heap.set(s.VmData);
      },
    });
    const virtual = registry.gauge({ name: 'process_virtual_memory_bytes', help: 'Virtual memory size in bytes.' });
    const heap = registry.gauge({ name: 'process_heap_bytes', help: 'Process heap size in bytes.' });
    registry.gauge({
      name: 'process_open_fds',
      help: 'Number of open file descriptors.',
      collect() {
        try {
          this.set(readdirSync('/proc/self/fd').length - 1); // less the one readdir itself opened
        } catch {
          // no procfs
        }
      },
    });
    const maxFds = maxOpenFiles(tryRead('/proc/self/limits') ?? '');
    if (maxFds !== undefined)
      registry.gauge({
        name: 'process_max_fds',
        help: 'Maximum number of open file descriptors.',
        collect() {
          this.set(maxFds);
        },
      });
  } else {
    registry.gauge({
      name: 'process_resident_memory_bytes',
      help: 'Resident memory size in bytes.',
      collect() {
        this.set(process.memoryUsage.rss());
      },
    });
  }

  registry.gauge({
    name: 'nodejs_eventloop_lag_seconds',
    help: 'Lag of event loop in seconds.',
    async collect() {
      const start = process.hrtime.bigint();
      await new Promise<void>((resolve) => setImmediate(resolve));
      this.set(Number(process.hrtime.bigint() - start) / 1e9);
    },
  });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  // One reading of the delay histogram per scrape sets all seven, then starts it afresh: each
  // scrape reports the delays since the one before (the first gauge's collect, as prom-client did).
  const lag: Array<[string, string, () => number]> = [
    ['min', 'The minimum recorded event loop delay.', () => delay.min],
    ['max', 'The maximum recorded event loop delay.', () => delay.max],
    ['mean', 'The mean of the recorded event loop delays.', () => delay.mean],
    ['stddev', 'The standard deviation of the recorded event loop delays.', () => delay.stddev],
    ['p50', 'The 50th percentile of the recorded event loop delays.', () => delay.percentile(50)],
    ['p90', 'The 90th percentile of the recorded event loop delays.', () => delay.percentile(90)],
    ['p99', 'The 99th percentile of the recorded event loop delays.', () => delay.percentile(99)],
  ];
  const lagGauges = lag.map(([stat, help], i) =>
    registry.gauge({
      name: `nodejs_eventloop_lag_${stat}_seconds`,
      help,
      collect:
        i > 0
          ? undefined
          : () => {
              lag.forEach(([, , read], j) => lagGauges[j]!.set(delay.count === 0 ? NaN : read() / 1e9));
              delay.reset();
            },
    }),
  );

  registry.gauge({
    name: 'nodejs_active_handles_total',
    help: 'Total number of active handles.',
    collect() {
      this.set(internals._getActiveHandles?.().length ?? NaN);
    },
  });
  registry.gauge({
    name: 'nodejs_active_requests_total',
    help: 'Total number of active requests.',
    collect() {
      this.set(internals._getActiveRequests?.().length ?? NaN);
    },
  });
  registry.gauge({
    name: 'nodejs_active_resources_total',
    help: 'Total number of active resources.',
    collect() {
      this.set(process.getActiveResourcesInfo().length);
    },
  });

  registry.gauge({
    name: 'nodejs_heap_size_total_bytes',
    help: 'Process heap size from Node.js in bytes.',
    collect() {
      const memory = process.memoryUsage();
      this.set(memory.heapTotal);
      heapUsed.set(memory.heapUsed);
      external.set(memory.external);
    },
  });
  const heapUsed = registry.gauge({
    name: 'nodejs_heap_size_used_bytes',
    help: 'Process heap size used from Node.js in bytes.',
  });
  const external = registry.gauge({
    name: 'nodejs_external_memory_bytes',
    help: 'Node.js external memory size in bytes.',
  });

  const [major = '', minor = '', patch = ''] = process.versions.node.split('.');
  registry
    .gauge({
      name: 'nodejs_version_info',
      help: 'Node.js version info.',
      labelNames: ['version', 'major', 'minor', 'patch'],
    })
    .set({ version: process.version, major, minor, patch }, 1);

  const gc = registry.histogram({
    name: 'nodejs_gc_duration_seconds',
    help: 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
    labelNames: ['kind'],
    buckets: [0.001, 0.01, 0.1, 1, 2, 5],
  });
  for (const kind of ['major', 'minor', 'incremental', 'weakcb']) gc.zero({ kind });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as Array<PerformanceEntry & { detail?: { kind?: number } }>) {
      const kind = GC_KINDS[entry.detail?.kind ?? -1];
      if (kind) gc.observe({ kind }, entry.duration / 1000);
    }
  }).observe({ entryTypes: ['gc'] });
}
