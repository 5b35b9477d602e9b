// A session removed while no replica ran still owes spans: those finished and not acknowledged
// when its last reader stopped, and its open spans, closed as `session_removed`
// (session/finished-session-spans.ts). With the shared store exactly one live replica sends them
// (store/pg-owed-spans.ts): replicas starting together do not each send them, and when the one
// sending them is killed before they are acknowledged, another sends them once its lease ran out.
//
// The traces endpoint is a small loopback server of this file that can hold its answers, so that
// "nobody else sent them meanwhile" is observed while the spans are provably not yet acknowledged;
// how long to watch is counted in the replicas' lease renewals (ownership passes, read from the
// database), not in seconds.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { decodeTracesRequest } from '../../../src/devkit/receiver/decode-traces.js';
import { createSpanBuilder } from '../../../src/traces/span-builder.js';
import { decodeSpanState } from '../../../src/traces/span-state.js';
import { exited, sleep, until } from '../../helpers/harness.js';
import { pgBinDir } from '../../helpers/postgres.js';
import { replicaWorld, type Cluster, type ReplicaWorld } from './replicas.js';

const noPostgres = pgBinDir() === undefined;
if (noPostgres)
  console.log('skipped: no PostgreSQL (initdb, pg_ctl); `npm ci` on Linux x64 brings one, or set PG_BIN_DIR');

/** One traces request as it arrived: the replica that sent it (its resource) and its spans. */
interface Arrival {
  replica: unknown;
  spanIds: string[];
  at: number;
}

/** /v1/traces that answers 404 (no traces pipeline), holds its answers, or accepts. */
async function tracesServer() {
  let mode: 'absent' | 'hold' | 'accept' = 'absent';
  const held: ServerResponse[] = [];
  const arrivals: Arrival[] = [];
  const accept = (res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (mode === 'absent') {
        res.writeHead(404).end();
        return;
      }
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const json = String(req.headers['content-type']).includes('json');
      const spans = decodeTracesRequest(body, json ? 'json' : 'protobuf');
      arrivals.push({
        replica: spans[0]?.resource['service.instance.id'],
        spanIds: spans.map((s) => s.spanId),
        at: Date.now(),
      });
      if (mode === 'hold') held.push(res);
      else accept(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    arrivals,
    hold: () => (mode = 'hold'),
    /** Answers what it held and accepts from now on. */
    accept: () => {
      mode = 'accept';
      for (const res of held.splice(0)) if (!res.destroyed) accept(res);
    },
    /** How many times each span arrived, from any replica. */
    counts: () => {
      const n = new Map<string, number>();
      for (const a of arrivals) for (const id of a.spanIds) n.set(id, (n.get(id) ?? 0) + 1);
      return n;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Resolves once each replica of `ids` renewed its lease `n` more times (ownership passes). */
async function leasePasses(db: pg.Pool, ids: string[], n: number): Promise<void> {
  const renewed = async () =>
    new Map(
      (await db.query<{ id: string; at: string }>('SELECT id, renewed_at::text AS at FROM bridge_replicas')).rows.map(
        (r) => [r.id, r.at],
      ),
    );
  const last = await renewed();
  const seen = new Map(ids.map((id) => [id, 0]));
  for (let i = 0; i < 600 && ids.some((id) => seen.get(id)! < n); i++) {
    await sleep(100);
    const now = await renewed();
    for (const id of ids) {
      if (now.get(id) !== undefined && now.get(id) !== last.get(id)) seen.set(id, seen.get(id)! + 1);
      last.set(id, now.get(id)!);
    }
  }
  // At least n each: one replica may renew again while the other gets to its n-th.
  expect(
    ids.filter((id) => seen.get(id)! < n),
    'replicas short of the ownership passes waited for',
  ).toEqual([]);
}

/**
 * A database where session `o1` was read by a replica whose collector had no traces pipeline (its
 * finished spans stay unsent) and was then removed while no replica ran. Returns the cluster, the
 * traces server, and how many spans the row owes (unsent, and open ones closed as session_removed).
 */
async function owingRow(world: ReplicaWorld, name: string) {
  const traces = await tracesServer();
  world.closeAfter(traces);
  const { url, cl } = await world.setup(name, ['o1'], 50, {
    env: {
      BRIDGE_TRACES: 'true',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: traces.url,
      // Held answers must not time out into a retry, which would count as a second copy here.
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '120000',
    },
  });
  const db = new pg.Pool({ connectionString: url, max: 1 });
  world.closeAfter({ close: () => db.end() });
  const r0 = cl.start('r0');
  await until(() => cl.count('o1') >= 200, 'o1 read by r0', 30_000);
  r0.kill('SIGTERM');
  expect(await exited(r0), r0.output()).toBe(0);
  await db.query("UPDATE bridge_sessions SET lifecycle = 'removed', ended_at = now() WHERE id = 'o1'");
  const stored = (await db.query<{ state: string }>("SELECT state FROM bridge_span_states WHERE session_id = 'o1'"))
    .rows[0]?.state;
  const state = decodeSpanState(stored);
  expect(state).toBeDefined();
  const owed = state!.unsent.length + createSpanBuilder('o1', state!.open).end('session_removed').length;
  expect(owed).toBeGreaterThan(0);
  expect(traces.arrivals).toEqual([]);
  traces.hold();

  const passes = (ids: string[], n: number): Promise<void> => leasePasses(db, ids, n);
  const stateGone = async (): Promise<void> => {
    for (let i = 0; i < 600; i++) {
      const n = (await db.query("SELECT 1 FROM bridge_span_states WHERE session_id = 'o1'")).rowCount;
      if (n === 0) return;
      await sleep(100);
    }
    throw new Error('the owed spans were never dropped');
  };
  return { cl, traces, owed, passes, stateGone };
}

/**
 * Replicas that follow nothing of the configuration (o1 is removed; listing it would revive it). A
 * lease of 6 s rather than the cluster's 3 s: a renewal held up past its margin on a loaded machine
 * would hand the spans over legitimately, and read as a duplicate here.
 */
const start = (cl: Cluster, id: string) => cl.start(id, { BRIDGE_SESSIONS: '', BRIDGE_STORE_LEASE: '6s' });

describe.skipIf(noPostgres)("replicas and a removed session's owed spans", () => {
  const world = replicaWorld();

  it('are sent by one of two replicas starting together, each span once', async () => {
    const { cl, traces, owed, passes, stateGone } = await owingRow(world, 'owed_two');
    start(cl, 'r1');
    start(cl, 'r2');
    await until(() => traces.arrivals.length > 0, 'the owed spans sent', 30_000);
    // Not acknowledged yet: the other replica's passes meanwhile must leave them alone.
    await passes(['r1', 'r2'], 3);
    expect(new Set(traces.arrivals.map((a) => a.replica)).size).toBe(1);
    traces.accept();
    await stateGone();
    await passes(['r1', 'r2'], 2);
    const counts = traces.counts();
    expect(counts.size).toBe(owed);
    expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
    await cl.stopAll();
  });

  for (const [how, signal] of [
    ['killed (kill -9)', 'SIGKILL'],
    ['stalled past its lease (SIGSTOP)', 'SIGSTOP'],
  ] as const)
    it(`are sent by another replica once the one sending them is ${how} before they are acknowledged`, async () => {
      const { cl, traces, owed, passes, stateGone } = await owingRow(world, `owed_${signal.toLowerCase()}`);
      const r1 = start(cl, 'r1');
      await until(() => traces.arrivals.length > 0, 'the owed spans sent by r1', 30_000);
      expect(traces.arrivals.map((a) => a.replica)).toEqual(['r1']);
      start(cl, 'r2');
      // r2 runs beside r1, which holds them: r2 leaves them alone.
      await passes(['r2'], 3);
      expect(traces.arrivals.filter((a) => a.replica === 'r2')).toEqual([]);
      const killedAt = Date.now();
      r1.kill(signal);
      if (signal === 'SIGKILL') await exited(r1);
      // r1's lease (6 s) runs out, then r2 claims them.
      await until(() => traces.arrivals.some((a) => a.replica === 'r2'), 'the owed spans sent by r2', 30_000);
      // A stalled r1 resumes: its copy is acknowledged too, and it drops nothing r2 now holds.
      if (signal === 'SIGSTOP') r1.kill('SIGCONT');
      traces.accept();
      await stateGone();
      const fromR2 = traces.arrivals.filter((a) => a.replica === 'r2');
      expect(fromR2[0]!.at).toBeGreaterThanOrEqual(killedAt);
      expect(new Set(fromR2.flatMap((a) => a.spanIds)).size).toBe(owed);
      await cl.stopAll();
    });

  it('a session that ends while a replica reads it: its closing spans arrive once, and its state is dropped', async () => {
    const traces = await tracesServer();
    world.closeAfter(traces);
    traces.accept();
    const ids = ['e1', 'e2', 'e3'];
    const { url, h, cl } = await world.setup('owed_ended', [], 0, {
      follow: ids,
      env: { BRIDGE_TRACES: 'true', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: traces.url },
    });
    const db = new pg.Pool({ connectionString: url, max: 1 });
    world.closeAfter({ close: () => db.end() });
    const sessions = ids.map((id) => {
      const session = h.sim.createSession(id);
      session.emit(200);
      return session;
    });
    cl.start('r1', { BRIDGE_STORE_LEASE: '6s' });
    cl.start('r2', { BRIDGE_STORE_LEASE: '6s' });
    await until(() => ids.every((id) => cl.count(id) >= 200), 'the sessions read', 30_000);
    for (const session of sessions) session.end();
    // Each reader writes the end once the records are safe, with the closing spans in the state, and
    // drops the state once they are acknowledged; meanwhile it holds the state, so the other replica
    // does not send them too.
    let done = false;
    for (let i = 0; i < 300 && !done; i++) {
      const ended = (await db.query("SELECT 1 FROM bridge_sessions WHERE lifecycle = 'ended'")).rowCount;
      const states = (await db.query('SELECT 1 FROM bridge_span_states')).rowCount;
      done = ended === ids.length && states === 0;
      if (!done) await sleep(100);
    }
    expect(done, 'every session ended and its span state dropped').toBe(true);
    await leasePasses(db, ['r1', 'r2'], 3);
    const closing = traces.arrivals.length;
    expect(closing).toBeGreaterThan(0);
    const twice = [...traces.counts().entries()].filter(([, n]) => n !== 1);
    expect(twice).toEqual([]);
    await cl.stopAll();
  });
});
