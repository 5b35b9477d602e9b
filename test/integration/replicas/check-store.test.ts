// `check` with the shared store, as a child process: the database reachable (schema, live
// replicas), unreachable (one clear line, exit 1), and a password never printed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../../src/devkit/receiver/server.js';
import { startSimulator, type Simulator } from '../../../src/devkit/simulator/index.js';
import { openPgStore } from '../../../src/store/pg-store.js';
import { Lease } from '../../../src/cluster/lease.js';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';
import { runCli } from '../cli/cli-process.js';
import { exited, spawnDaemon, until } from '../../helpers/harness.js';

let server: PgServer;
let sim: Simulator;
let receiver: Receiver;
let dir: string;
beforeAll(async () => {
  server = await startPostgres();
  sim = await startSimulator();
  receiver = await startReceiver();
  sim.createSession('s1');
  dir = mkdtempSync(join(tmpdir(), 'check-store-'));
});
afterAll(async () => {
  await sim?.close();
  await receiver?.close();
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = (url: string, extra: Record<string, string> = {}): Record<string, string> => ({
  BROWSER_API_URL: sim.url,
  BROWSER_API_KEY: 'sim-key',
  BRIDGE_SESSIONS: 's1',
  BRIDGE_STATE_DIR: join(dir, 'state'),
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  BRIDGE_STORE_URL: url,
  ...extra,
});

describe('check with the shared store', () => {
  it('reports the schema version and the live replicas of a store in use', async () => {
    const url = await server.createDatabase('check_used');
    const fresh = await runCli(['check'], env(url));
    expect(fresh.stdout).toMatch(
      /^✓ store postgres:\/\/postgres@127\.0\.0\.1:\d+\/check_used\s+reachable; no bridge schema yet/m,
    );
    const store = await openPgStore({ url, replicaId: 'r1' });
    const lease = new Lease({ db: store.db, replicaId: 'r1', leaseMs: 60_000, onExpired: () => undefined });
    await lease.renew();
    await store.putSession({ id: 's1', attributes: {} }, 'config');
    const res = await runCli(['check'], env(url));
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^✓ store \S+\s+schema 2; 1 live replica\(s\), 0 expired; 1 active session\(s\)$/m);
    expect(res.stdout).toMatch(/1 active session\(s\) have no live owner/);
    await store.close();
  });

  it('warns when the database may lose acknowledged commits (synchronous_commit = off), and so does a replica at start', async () => {
    const url = await server.createDatabase('check_lax');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query('ALTER DATABASE check_lax SET synchronous_commit = off');
    await admin.end();
    const res = await runCli(['check'], env(url));
    expect(res.stdout).toMatch(
      /synchronous_commit = off: a crash or an immediate restart of the database loses commits/,
    );
    // The server's default in these tests is on: a database of its own stays quiet.
    const quiet = await runCli(['check'], env(await server.createDatabase('check_durable')));
    expect(quiet.stdout).not.toContain('synchronous_commit');

    const replica = spawnDaemon(
      env(url, { BRIDGE_STATE_DIR: join(dir, 'lax-state'), BRIDGE_LISTEN: 'off', BRIDGE_REPLICA_ID: 'lax' }),
    );
    try {
      await until(() => /synchronous_commit = off/.test(replica.output()), 'the warning at start', 20_000);
      const line = replica
        .output()
        .split('\n')
        .find((l) => l.includes('synchronous_commit = off'))!;
      expect(JSON.parse(line)).toMatchObject({ level: 40 });
    } finally {
      replica.kill('SIGTERM');
      await exited(replica);
    }
  });

  it('fails in one line when the database cannot be reached, and never prints the password', async () => {
    const pw = join(dir, 'pw');
    writeFileSync(pw, 'hunter2-never-printed\n');
    const res = await runCli(
      ['check'],
      env('postgres://bridge@127.0.0.1:1/bridge', { BRIDGE_STORE_PASSWORD_FILE: pw }),
    );
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(
      /^✗ store postgres:\/\/bridge@127\.0\.0\.1:1\/bridge\s+cannot connect: connection refused/m,
    );
    expect(res.stdout + res.stderr).not.toContain('hunter2');
    const inUrl = await runCli(['check'], env('postgres://bridge:hunter2-in-url@127.0.0.1:1/bridge'));
    expect(inUrl.stdout + inUrl.stderr).not.toContain('hunter2');
  });

  it('refuses a store URL that is not postgres:// naming the key', async () => {
    const res = await runCli(['check'], env('mysql://db/bridge'));
    expect(res.code).toBe(2);
    expect(res.stdout).toMatch(
      /^✗ configuration\s+BRIDGE_STORE_URL: must be a postgres:\/\/ URL \(got a mysql: URL\)/m,
    );
  });
});
