// `npm run bench`: how fast the bridge moves events from session streams into OTLP requests, and
// how much memory it needs doing so. Scenarios (pick with `npm run bench -- <name>`; default all):
//   burst     10 sessions with 20 000 events each waiting in the service's buffer (replay=all):
//             end-to-end events/s (received, spooled, exported, acknowledged) and peak RSS
//   sessions  1000 concurrent session streams, 20 events each: start-up and per-session memory
// The simulator and the OTLP sink run in child processes; the bridge runs in this process, so the
// numbers are the bridge's own (on a 2-core machine the peers take the other core).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConfig } from '../src/config/load-config.js';
import { startBridge } from '../src/pipeline/bridge.js';
import { silentLogger } from '../src/util/logger.js';
import { simControl, startPeer } from './peers.js';

interface Scenario {
  sessions: number;
  eventsPerSession: number;
  protocol: 'http/protobuf' | 'http/json';
}

const SCENARIOS: Record<string, Scenario> = {
  burst: { sessions: 10, eventsPerSession: 20_000, protocol: 'http/protobuf' },
  'burst-json': { sessions: 10, eventsPerSession: 10_000, protocol: 'http/json' },
  sessions: { sessions: 1000, eventsPerSession: 20, protocol: 'http/protobuf' },
};

async function run(name: string, sc: Scenario): Promise<void> {
  const total = sc.sessions * sc.eventsPerSession;
  const sim = await startPeer('src/simulator/main.ts', ['--port', '0', '--buffer', String(sc.eventsPerSession + 10), '--keepalive-ms', '15000']);
  const sink = await startPeer('bench/sink.ts');
  const ids = Array.from({ length: sc.sessions }, (_, i) => `bench-${i}`);
  for (const id of ids) {
    await simControl(sim.url, `/sessions/${id}`, {});
    await simControl(sim.url, `/sessions/${id}/emit?count=${sc.eventsPerSession}`);
  }
  const stateDir = mkdtempSync(join(tmpdir(), 'bridge-bench-'));
  const config = buildConfig({ sessions: ids, exporter: { protocol: sc.protocol } }, {
    BROWSER_API_URL: sim.url, BROWSER_API_KEY: 'sim-key', BRIDGE_STATE_DIR: stateDir, BRIDGE_LISTEN: 'off',
    OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
  });
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const bridge = await startBridge(config, silentLogger());
  let firstAllReceived = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      const received = bridge.supervisor.status().reduce((n, s) => n + s.received, 0);
      if (!firstAllReceived && received >= total) firstAllReceived = performance.now();
      if (bridge.delivery.deliveredTotal >= total) {
        clearInterval(timer);
        resolve();
      }
    }, 50);
  });
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await bridge.shutdown(1000);
  await sim.stop();
  await sink.stop();
  rmSync(stateDir, { recursive: true, force: true });
  const line = {
    scenario: name,
    sessions: sc.sessions,
    events: total,
    protocol: sc.protocol,
    seconds: +seconds.toFixed(2),
    eventsPerSecond: Math.round(total / seconds),
    readSeconds: +((firstAllReceived - t0) / 1000).toFixed(2),
    cpuSecondsBridge: +((cpu.user + cpu.system) / 1e6).toFixed(2),
    eventsPerCpuSecond: Math.round(total / ((cpu.user + cpu.system) / 1e6)),
    peakRssMiB: +(peakRss / 1048576).toFixed(0),
    rssGrowthMiB: +((peakRss - rssBefore) / 1048576).toFixed(0),
  };
  process.stdout.write(JSON.stringify(line) + '\n');
}

const wanted = process.argv.slice(2);
for (const name of wanted.length ? wanted : Object.keys(SCENARIOS)) {
  const sc = SCENARIOS[name];
  if (!sc) {
    process.stderr.write(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}\n`);
    process.exit(2);
  }
  await run(name, sc);
}
