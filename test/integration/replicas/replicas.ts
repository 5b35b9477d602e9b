// Several real bridge processes (`run`) sharing one PostgreSQL store, one simulator and one
// receiver: start and kill replicas, read who owns what straight from the database, and measure
// when a session streams again.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { harness, spawnDaemon, exited, surfaceUrl, type Harness } from '../../helpers/harness.js';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';
import type { Env } from '../../../src/config/load-config.js';
import { CHECKPOINT_STALL_MS } from '../../../src/store/checkpoint-timing.js';

export type Replica = ReturnType<typeof spawnDaemon> & { id: string };

export interface Cluster {
  replicas: Map<string, Replica>;
  start(id: string, extra?: Env, args?: string[]): Replica;
  /** The replica's HTTP surface, once it logged where it listens. */
  httpUrl(id: string): Promise<string>;
  /** (service epoch, checkpoint) of every session, from the database. */
  checkpoints(): Promise<Map<string, [number, number]>>;
  /** Session id → owner (null: none), from the database. */
  owners(): Promise<Map<string, string | null>>;
  /** Records the receiver holds for a session. */
  count(session: string): number;
  /** Highest seq the receiver holds for a session. */
  maxSeq(session: string): number;
  stopAll(): Promise<void>;
  close(): Promise<void>;
  /** Events per second the test's sessions produce together (set by ReplicaWorld.setup). */
  eventsPerSecond: number;
  /** `spool.mode` the replicas run (BRIDGE_SPOOL_MODE in their environment; overflow by default). */
  readonly spoolMode: 'overflow' | 'always';
}

/** The exporter settings every replica of these tests runs with (written to its configuration below). */
export const EXPORTER = { batchMaxRecords: 100, concurrency: 2 } as const;

/**
 * What one replica can have delivered and not yet deleted at any instant: `concurrency` claims,
 * each at most `batchMaxRecords` records (a claim exceeds that only when one segment alone is
 * larger: one session's records of one 200 ms commit, a few dozen at these tests' rates). A
 * replica that dies, freezes, loses the database or hands a session over may have had that much
 * accepted by the collector and not yet deleted; the session's next owner finds it in the spool and
 * sends it again (README "at most what r1 had in flight is sent twice"). So each such disruption of
 * one replica allows at most this many duplicates, and nothing else does.
 */
export const IN_FLIGHT_PER_REPLICA = EXPORTER.concurrency * EXPORTER.batchMaxRecords;

/**
 * In overflow mode a checkpoint moves with acknowledgements but is written once per checkpoint
 * interval, and with a shared store delivery from memory pauses once an acknowledgement has waited
 * CHECKPOINT_STALL_MS for its write (a slow or failing write, a replica cut off from the database):
 * a replica that dies, freezes or is cut off may also have had that long of acknowledged records
 * not yet checkpointed (docs/design.md's duplicate bound). At most what the test produces in that
 * time, since one replica cannot have acknowledged more than every session produced.
 */
export function uncheckpointedPerReplica(cl: Cluster): number {
  return cl.spoolMode === 'always' ? 0 : Math.ceil((cl.eventsPerSecond * CHECKPOINT_STALL_MS) / 1000);
}

/** Log lines of a replica that gave sessions up while alive: a hand-over, or sessions lost (lease ran out, fenced). */
const GAVE_UP = /"msg":"(handed sessions over to their preferred replica|stopped following sessions)/g;

/**
 * What a replica that cannot write its checkpoints (cut off from the database) may have acknowledged
 * and not checkpointed, besides its requests in flight: delivery from memory pauses once the oldest
 * such acknowledgement has waited CHECKPOINT_STALL_MS, so at most that long of what its sessions
 * produce (`eventsPerSecond`), plus one commit of them (records are sealed, so acknowledged, a
 * commit interval at a time: spool.commit_interval's default, 200 ms).
 */
export function stalledUncheckpointed(cl: Cluster, eventsPerSecond: number): number {
  return cl.spoolMode === 'always' ? 0 : Math.ceil((eventsPerSecond * (CHECKPOINT_STALL_MS + 200)) / 1000);
}

/**
 * The duplicates a test may see: IN_FLIGHT_PER_REPLICA for each disruption — each time a replica
 * gave sessions up while alive (counted from the replicas' logs, start-up spreading included) and
 * each replica the test stopped abruptly (`abrupt`: SIGKILL, SIGSTOP, or SIGTERM when its in-flight
 * requests may outlast the grace period) — and, by default, uncheckpointedPerReplica for each too.
 * `stalled`: the test knows the one disruption whose checkpoints could not be written (a replica cut
 * off from the database, whose sessions produce `eventsPerSecond`): only it adds unwritten
 * acknowledgements (stalledUncheckpointed), as the checkpoint-stall pause guarantees.
 */
export function duplicateBound(
  cl: Cluster,
  abrupt: number,
  stalled?: { eventsPerSecond: number },
): { bound: number; disruptions: number } {
  let gaveUp = 0;
  for (const r of cl.replicas.values()) gaveUp += r.output().match(GAVE_UP)?.length ?? 0;
  const disruptions = gaveUp + abrupt;
  if (stalled)
    return {
      bound: disruptions * IN_FLIGHT_PER_REPLICA + stalledUncheckpointed(cl, stalled.eventsPerSecond),
      disruptions,
    };
  return { bound: disruptions * (IN_FLIGHT_PER_REPLICA + uncheckpointedPerReplica(cl)), disruptions };
}

/** `config`: more of the replicas' configuration file (YAML top-level keys). */
export function cluster(h: Harness, url: string, sessions: string[], base: Env = {}, config = ''): Cluster {
  const db = new pg.Pool({ connectionString: url, max: 2 });
  db.on('error', () => undefined);
  const replicas = new Map<string, Replica>();
  // Quick retries: a test that takes the collector away waits seconds, not the default 30 s backoff.
  const configFile = join(h.stateDir, 'replicas.yaml');
  writeFileSync(
    configFile,
    `exporter:\n  batch_max_records: ${EXPORTER.batchMaxRecords}\n  concurrency: ${EXPORTER.concurrency}\n  backoff: { initial: 50ms, max: 1s }\nupstream:\n  backoff: { initial: 50ms, max: 1s }\n${config}`,
  );
  const counts = (session: string): { n: number; max: number } => {
    let n = 0;
    let max = 0;
    for (const r of h.receiver.records) {
      if (r.attributes['browser.session.id'] !== session) continue;
      n++;
      const seq = Number(r.attributes['browser.telemetry.seq'] ?? 0);
      if (seq > max) max = seq;
    }
    return { n, max };
  };
  return {
    eventsPerSecond: 0,
    spoolMode: base.BRIDGE_SPOOL_MODE === 'always' ? 'always' : 'overflow',
    replicas,
    start(id, extra = {}, args = ['run']) {
      const r = Object.assign(
        spawnDaemon(
          h.env({
            BRIDGE_CONFIG: configFile,
            BRIDGE_SESSIONS: sessions.join(','),
            BRIDGE_STORE_URL: url,
            BRIDGE_REPLICA_ID: id,
            BRIDGE_STORE_LEASE: '3s',
            LOG_LEVEL: 'info',
            ...base,
            ...extra,
          }),
          args,
        ),
        { id },
      );
      replicas.set(id, r);
      return r;
    },
    async owners() {
      // Before the first replica created the schema there is nothing to own.
      const rows = (
        await db
          .query<{ id: string; owner: string | null }>(
            "SELECT id, owner FROM bridge_sessions WHERE lifecycle = 'active'",
          )
          .catch(() => ({ rows: [] }))
      ).rows;
      return new Map(rows.map((r) => [r.id, r.owner]));
    },
    async httpUrl(id) {
      const r = replicas.get(id)!;
      const deadline = Date.now() + 20_000;
      for (;;) {
        const url = surfaceUrl(r.output());
        if (url !== undefined) return url;
        if (Date.now() > deadline) throw new Error(`replica ${id} never listened:\n${r.output()}`);
        await new Promise((res) => setTimeout(res, 50));
      }
    },
    async checkpoints() {
      const rows = (
        await db
          .query<{ id: string; epoch: number; checkpoint: string }>('SELECT id, epoch, checkpoint FROM bridge_sessions')
          .catch(() => ({ rows: [] }))
      ).rows;
      return new Map(rows.map((r) => [r.id, [r.epoch, Number(r.checkpoint)] as [number, number]]));
    },
    count: (s) => counts(s).n,
    maxSeq: (s) => counts(s).max,
    async stopAll() {
      for (const r of replicas.values()) {
        if (r.exitCode === null && r.signalCode === null) r.kill('SIGTERM');
      }
      for (const r of replicas.values()) await exited(r);
    },
    async close() {
      for (const r of replicas.values()) {
        if (r.exitCode === null && r.signalCode === null) r.kill('SIGKILL');
      }
      for (const r of replicas.values()) await exited(r);
      await db.end();
    },
  };
}

export interface ReplicaTest {
  /** The test's own database. */
  url: string;
  h: Harness;
  cl: Cluster;
}

export interface ReplicaWorld {
  /** The file's PostgreSQL server, started before its first test. */
  readonly server: PgServer;
  /**
   * A fresh database, a harness whose simulator produces `events` per session of `ids`, and a
   * cluster (no replica started) configured with `follow` (default: `ids`) and `env`; all of it is
   * closed after the test.
   */
  setup(
    name: string,
    ids: string[],
    events: number,
    o?: { follow?: string[]; env?: Env; config?: string },
  ): Promise<ReplicaTest>;
  /** Something more to close after the test, after the cluster and the harness (a TCP proxy). */
  closeAfter(c: { close(): Promise<void> }): void;
}

/** The hooks every replica test file shares: one PostgreSQL server per file, one world per test. */
export function replicaWorld(): ReplicaWorld {
  let server: PgServer | undefined;
  let dbs = 0;
  let clusters: Cluster[] = [];
  let harnesses: Harness[] = [];
  let extras: Array<{ close(): Promise<void> }> = [];
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterEach(async () => {
    // Replicas first (they hold connections to both), then the simulator and receiver, then the rest.
    for (const c of [...clusters, ...harnesses, ...extras]) await c.close();
    clusters = [];
    harnesses = [];
    extras = [];
  });
  afterAll(() => server?.close());
  const world: ReplicaWorld = {
    get server(): PgServer {
      if (!server) throw new Error('the PostgreSQL server is started before the first test');
      return server;
    },
    async setup(name, ids, events, o = {}) {
      const url = await world.server.createDatabase(`${name}_${++dbs}`);
      const h = await harness({ bufferSize: 100_000 });
      harnesses.push(h);
      for (const id of ids) h.sim.createSession(id).produce(events);
      const cl = cluster(h, url, o.follow ?? ids, o.env, o.config);
      cl.eventsPerSecond = ids.length * events;
      clusters.push(cl);
      return { url, h, cl };
    },
    closeAfter(c) {
      extras.push(c);
    },
  };
  return world;
}
