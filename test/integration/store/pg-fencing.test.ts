// Ownership, fencing and the schema of the shared store, against a real PostgreSQL server (one
// for this file, a fresh database per test): two PgStores with different replica ids play two
// replicas; a lease is "lost" by moving its database deadline into the past.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lease } from '../../../src/cluster/lease.js';
import { PG_SCHEMA_VERSION, PgSchemaError, migratePg } from '../../../src/store/pg-schema.js';
import { createPgPool, openPgStore, type PgStore } from '../../../src/store/pg-store.js';
import type { NewSegment } from '../../../src/wire/segment-framing.js';
import { FencedError } from '../../../src/store/store.js';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';

let server: PgServer;
let n = 0;
const open: PgStore[] = [];
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  for (const s of open) await s.close().catch(() => undefined);
  server?.close();
});

async function replicas(...ids: string[]): Promise<{ url: string; stores: PgStore[]; admin: pg.Pool }> {
  const url = await server.createDatabase(`fence_${++n}`);
  const stores: PgStore[] = [];
  for (const id of ids) stores.push(await openPgStore({ url, replicaId: id }));
  const admin = createPgPool(url, { queryTimeoutMs: 5000, replicaId: 'admin' });
  open.push(...stores, { close: () => admin.end() } as unknown as PgStore);
  return { url, stores, admin };
}

const seg = (sessionId: string, first: number, last: number): NewSegment => {
  const payload = Buffer.from([0x12, 1, 0x41]);
  return { sessionId, payload, records: 1, firstSeq: first, lastSeq: last, oldestTsMicros: first };
};

async function live(admin: pg.Pool, id: string, ms: number): Promise<void> {
  await admin.query(
    `INSERT INTO bridge_replicas (id, lease_until) VALUES ($1, now() + $2 * interval '1 millisecond')
    ON CONFLICT (id) DO UPDATE SET lease_until = excluded.lease_until`,
    [id, ms],
  );
}

describe('PostgreSQL store: leases and fencing', () => {
  it('rejects every write of a replica that lost its session (stale epoch), and checkpoints only move forward', async () => {
    const {
      stores: [a, b],
      admin,
    } = await replicas('a', 'b');
    await live(admin, 'a', 60_000);
    await live(admin, 'b', 60_000);
    await a!.putSession({ id: 's', attributes: {} }, 'config');
    expect((await a!.claim(['s'])).sessions.map((r) => r.spec.id)).toEqual(['s']);
    const [first] = await a!.commit([seg('s', 1, 5)], [{ sessionId: 's', checkpoint: 5, epoch: 0 }]);

    // While a's lease is valid, b cannot take the session.
    expect((await b!.claim(['s'])).sessions).toEqual([]);

    // a's lease runs out (by the database's clock): b claims, and the spool moves with the session.
    await live(admin, 'a', -1000);
    const moved = await b!.claim(['s']);
    expect(moved.sessions[0]).toMatchObject({ checkpoint: 5 });
    expect(moved.records).toBe(1);
    expect(moved.maxId).toBeGreaterThan(first!);
    const epochs = (await admin.query("SELECT owner, lease_epoch FROM bridge_sessions WHERE id = 's'")).rows[0];
    expect(epochs).toEqual({ owner: 'b', lease_epoch: '2' });

    // The zombie's commit is refused whole: no segment, no checkpoint.
    const err = await a!
      .commit([seg('s', 6, 9)], [{ sessionId: 's', checkpoint: 9, epoch: 0 }])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FencedError);
    expect((err as FencedError).sessionIds).toEqual(['s']);
    const rows = (await admin.query('SELECT session_id, first_seq FROM bridge_segments ORDER BY id')).rows;
    expect(rows).toEqual([{ session_id: 's', first_seq: '1' }]);
    expect((await b!.sessions())[0]!.checkpoint).toBe(5);
    // Its acknowledgement of the old id cannot delete the segment the new owner holds now.
    await a!.deleteSegments([first!]);
    expect((await b!.readSegments(0, moved.maxId, 100)).map((s) => s.firstSeq)).toEqual([1]);
    // And a no longer sees it in its backlog.
    expect(await a!.readSegments(0, moved.maxId, 100)).toEqual([]);

    // Forward only, even for the owner: an older checkpoint is ignored, a newer one taken.
    await b!.commit([], [{ sessionId: 's', checkpoint: 3, epoch: 0 }]);
    expect((await b!.sessions())[0]!.checkpoint).toBe(5);
    await b!.commit([], [{ sessionId: 's', checkpoint: 7, epoch: 0 }]);
    expect((await b!.sessions())[0]!.checkpoint).toBe(7);
    // A new service epoch restarts seq: a lower seq in a higher epoch is forward.
    await b!.commit([], [{ sessionId: 's', checkpoint: 2, epoch: 1 }]);
    expect((await b!.sessions())[0]).toMatchObject({ checkpoint: 2, epoch: 1 });
  });

  it('a fenced check at the database refuses a commit even when the replica still believes it owns the session', async () => {
    const {
      stores: [a],
      admin,
    } = await replicas('a');
    await a!.putSession({ id: 's', attributes: {} }, 'config');
    await a!.claim(['s']);
    // Another replica took it behind a's back (epoch bumped in the database).
    await admin.query("UPDATE bridge_sessions SET owner = 'z', lease_epoch = lease_epoch + 1 WHERE id = 's'");
    expect(a!.ownedSessions().has('s')).toBe(true);
    await expect(a!.commit([seg('s', 1, 1)], [])).rejects.toBeInstanceOf(FencedError);
    expect(a!.ownedSessions().has('s')).toBe(false);
    expect((await admin.query('SELECT count(*)::int AS n FROM bridge_segments')).rows[0]).toEqual({ n: 0 });
  });

  it('a claim skips a session whose owner is writing right now (SKIP LOCKED) instead of waiting', async () => {
    const {
      stores: [b],
      admin,
    } = await replicas('b');
    await b!.putSession({ id: 's', attributes: {} }, 'config');
    const c = await admin.connect();
    try {
      await c.query('BEGIN');
      await c.query("SELECT id FROM bridge_sessions WHERE id = 's' FOR SHARE");
      expect((await b!.claim(['s'])).sessions).toEqual([]);
      await c.query('COMMIT');
    } finally {
      c.release();
    }
    expect((await b!.claim(['s'])).sessions).toHaveLength(1);
  });

  it('a released session is claimable at once, at a new epoch', async () => {
    const {
      stores: [a, b],
      admin,
    } = await replicas('a', 'b');
    await live(admin, 'a', 60_000);
    await a!.putSession({ id: 's', attributes: {} }, 'config');
    await a!.claim(['s']);
    await a!.release('s');
    expect((await b!.claim(['s'])).sessions).toHaveLength(1);
    expect((await admin.query("SELECT owner, lease_epoch FROM bridge_sessions WHERE id = 's'")).rows[0]).toEqual({
      owner: 'b',
      lease_epoch: '3',
    });
  });
});

describe('PostgreSQL store: lease', () => {
  it('is trusted locally only until the renewal time plus the lease minus the margin (monotonic clock)', async () => {
    const { url } = await replicas();
    const pool = createPgPool(url, { queryTimeoutMs: 5000, replicaId: 'l' });
    await migratePg(pool);
    let now = 1000;
    let expired = 0;
    const lease = new Lease({
      db: pool,
      replicaId: 'l',
      leaseMs: 4000,
      marginFraction: 0.25,
      now: () => now,
      onExpired: () => expired++,
    });
    expect(lease.valid).toBe(false);
    expect(await lease.renew()).toBe(true);
    expect(await lease.liveReplicas()).toEqual(['l']);
    now += 2999;
    expect(lease.valid).toBe(true);
    now += 1;
    expect(lease.valid).toBe(false);
    (lease as unknown as { check(): void }).check();
    (lease as unknown as { check(): void }).check();
    expect(expired).toBe(1);
    // Renewed again: held again.
    expect(await lease.renew()).toBe(true);
    expect(lease.valid).toBe(true);
    await lease.drop();
    expect(await lease.liveReplicas()).toEqual([]);
    await pool.end();
  });
});

describe('PostgreSQL store: schema', () => {
  it('records its schema version, and refuses a newer one or a foreign database in one line', async () => {
    const { admin } = await replicas('a');
    expect((await admin.query("SELECT value FROM bridge_meta WHERE key = 'schema_version'")).rows[0]).toEqual({
      value: String(PG_SCHEMA_VERSION),
    });
    await admin.query("UPDATE bridge_meta SET value = '99' WHERE key = 'schema_version'");
    const newer = await migratePg(admin).catch((e: unknown) => e);
    expect(newer).toBeInstanceOf(PgSchemaError);
    expect((newer as Error).message).toMatch(/schema version 99 is newer/);
    await admin.query("UPDATE bridge_meta SET value = 'invoices' WHERE key = 'application'");
    await expect(migratePg(admin)).rejects.toThrow(/belongs to another application \(invoices\)/);
  });
});
