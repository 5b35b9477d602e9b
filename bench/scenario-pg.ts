// PostgreSQL: the burst scenario's workload (N sessions × M realistic events waiting in the
// service, protobuf) delivered once through the embedded SQLite store and once through the shared
// PostgreSQL store (one replica, a real server started for the scenario, fsync on as in
// production), in the same run on the same machine. Reports events per bridge CPU-second for both,
// their ratio, and PostgreSQL's own CPU seconds (the server's processes, read from /proc), so the
// cost moved into the database is visible rather than hidden.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildConfig } from '../src/config/load-config.js';
import { startBridge } from '../src/daemon/bridge.js';
import type { PgStore } from '../src/store/pg-store.js';
import { silentLogger } from '../src/util/logger.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { BridgeUnderTest } from './bridge-under-test.js';
import type { ScenarioContext } from './scenario-context.js';
import { sinkStats, startWaitingPeers, type Peer } from './peers.js';
import type { ScenarioResult } from './report.js';
import { until } from './wait.js';

export interface PgOptions {
  sessions: number;
  eventsPerSession: number;
  timeoutS: number;
}

const TICKS = 100; // USER_HZ on Linux

/** CPU seconds of every process whose command line names this data directory (the server and its backends). */
function serverCpuSeconds(port: number): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = readFileSync(join('/proc', pid, 'cmdline'), 'utf8');
      const comm = readFileSync(join('/proc', pid, 'comm'), 'utf8').trim();
      if (!(comm === 'postgres' && (cmd.includes(`-p ${port}`) || cmd.startsWith('postgres:')))) continue;
      const stat = readFileSync(join('/proc', pid, 'stat'), 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / TICKS;
}

async function run(
  label: string,
  o: PgOptions,
  start: (sim: string, sink: string, ids: string[]) => Promise<{ stop(): Promise<void> }>,
): Promise<{
  events: number;
  seconds: number;
  cpuSeconds: number;
  missing: number;
  duplicates: number;
  otlpBytes: number;
}> {
  const peers: Peer[] = [];
  const ids = Array.from({ length: o.sessions }, (_, i) => `${label}-${i}`);
  const total = o.sessions * o.eventsPerSession;
  let bridge: { stop(): Promise<void> } | undefined;
  try {
    const { sim, sink } = await startWaitingPeers(peers, ids, o.eventsPerSession, {});
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    bridge = await start(sim.url, sink.url, ids);
    await until(async () => (await sinkStats(sink.url)).unique >= total, o.timeoutS * 1000, 50).catch(() => undefined);
    const seconds = (performance.now() - t0) / 1000;
    const c = process.cpuUsage(cpu0);
    const stats = await sinkStats(sink.url);
    return {
      events: stats.unique,
      seconds,
      cpuSeconds: (c.user + c.system) / 1e6,
      missing: total - stats.unique,
      duplicates: stats.duplicates,
      otlpBytes: stats.bytes,
    };
  } finally {
    await bridge?.stop();
    for (const p of peers.reverse()) await p.stop();
  }
}

export async function runPg(ctx: ScenarioContext, o: PgOptions): Promise<ScenarioResult> {
  const sqlite = await run('sqlite', o, async (sim, sink, ids) => {
    const b = await BridgeUnderTest.start({
      simUrl: sim,
      sinkUrl: sink,
      sessions: ids,
      protocol: 'http/protobuf',
      tmpRoot: ctx.tmpRoot,
    });
    return { stop: () => b.stop() };
  });
  const server = await startPostgres({ durable: true });
  try {
    const url = await server.createDatabase('bench');
    let serverCpu = 0;
    let walBytes = 0;
    const pg = await run('pg', o, async (sim, sink, ids) => {
      const cpu0 = serverCpuSeconds(server.port);
      const config = buildConfig(
        { sessions: ids },
        {
          BROWSER_API_URL: sim,
          BROWSER_API_KEY: 'sim-key',
          BRIDGE_LISTEN: 'off',
          OTEL_EXPORTER_OTLP_ENDPOINT: sink,
          BRIDGE_STORE_URL: url,
          BRIDGE_REPLICA_ID: 'bench',
          BRIDGE_STATE_DIR: join(ctx.tmpRoot, 'pg-state'),
          ...(process.env.BRIDGE_SPOOL_MODE !== undefined ? { BRIDGE_SPOOL_MODE: process.env.BRIDGE_SPOOL_MODE } : {}),
        },
      );
      const b = await startBridge(config, silentLogger());
      // PostgreSQL's write-ahead log from the bridge's start to its stop: what the shared store
      // costs the database per byte delivered.
      const db = (b.store as PgStore).db;
      const lsn = async (): Promise<string> =>
        ((await db.query('SELECT pg_current_wal_lsn()::text AS l')).rows[0] as { l: string }).l;
      const lsn0 = await lsn();
      return {
        stop: async () => {
          serverCpu = serverCpuSeconds(server.port) - cpu0;
          const r = await db.query('SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::bigint AS d', [await lsn(), lsn0]);
          walBytes = Number((r.rows[0] as { d: string }).d);
          await b.shutdown(Date.now() + 5000);
        },
      };
    });
    const perCpu = (r: { events: number; cpuSeconds: number }): number => Math.round(r.events / r.cpuSeconds);
    return {
      scenario: ctx.name,
      sessions: o.sessions,
      events: o.sessions * o.eventsPerSession,
      eventsPerSecond: Math.round(pg.events / pg.seconds),
      sqlite: {
        eventsPerSecond: Math.round(sqlite.events / sqlite.seconds),
        cpuSecondsBridge: +sqlite.cpuSeconds.toFixed(2),
        eventsPerCpuSecond: perCpu(sqlite),
        missing: sqlite.missing,
      },
      postgres: {
        eventsPerSecond: Math.round(pg.events / pg.seconds),
        cpuSecondsBridge: +pg.cpuSeconds.toFixed(2),
        eventsPerCpuSecond: perCpu(pg),
        cpuSecondsServer: +serverCpu.toFixed(2),
        missing: pg.missing,
        duplicates: pg.duplicates,
        walBytes,
        otlpBytes: pg.otlpBytes,
        walBytesPerOtlpByte: +(walBytes / Math.max(1, pg.otlpBytes)).toFixed(3),
      },
      // Events per bridge CPU-second, PostgreSQL ÷ SQLite (the bar: within 20 %, i.e. ≥ 0.8).
      ratio: +(perCpu(pg) / perCpu(sqlite)).toFixed(3),
      missing: pg.missing + sqlite.missing,
      // Of the scenario's process: both bridges ran in it, one after the other.
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    server.close();
  }
}
