// A claimed session's backlog must not be stranded by this replica's own commits: the claim
// renumbers the moved segments from the id sequence commits draw from, and a commit running
// alongside, handed to delivery first, could move the spool's cursor past them. Real PostgreSQL,
// the real Ownership, Spool and a delivery-like loop claiming and acknowledging while commits run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ownership } from '../../../src/cluster/ownership.js';
import { createPgPool, openPgStore, type PgStore } from '../../../src/store/pg-store.js';
import { Spool } from '../../../src/store/spool.js';
import { silentLogger } from '../../../src/util/logger.js';
import type { NewSegment } from '../../../src/wire/segment-framing.js';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';
import { INERT_HOST } from './inert-host.js';

let server: PgServer;
const stores: PgStore[] = [];
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
  server?.close();
});

const record = Buffer.from([0x12, 1, 0x41]);

describe('claim and concurrent commits', () => {
  for (const round of [1, 2, 3]) {
    it(`every adopted segment is delivered while this replica keeps committing (round ${round})`, async () => {
      const url = await server.createDatabase(`claim_commits_${round}`);
      const a = await openPgStore({ url, replicaId: 'a' });
      const b = await openPgStore({ url, replicaId: 'b' });
      stores.push(a, b);
      const admin = createPgPool(url, { queryTimeoutMs: 5000, replicaId: 'admin' });
      // b owned 'old' and left a backlog of 3,000 segments behind; its lease is gone.
      await b.putSession({ id: 'old', attributes: {} }, 'config');
      await admin.query("INSERT INTO bridge_replicas (id, lease_until) VALUES ('b', now() + interval '1 minute')");
      await b.claim(['old']);
      for (let i = 0; i < 30; i++) {
        const segs: NewSegment[] = Array.from({ length: 100 }, (_, j) => {
          const seq = i * 100 + j + 1;
          return { sessionId: 'old', payload: record, records: 1, firstSeq: seq, lastSeq: seq, oldestTsMicros: seq };
        });
        await b.commit(segs, [{ sessionId: 'old', checkpoint: (i + 1) * 100, epoch: 0 }]);
      }
      await admin.query("UPDATE bridge_replicas SET lease_until = now() - interval '1 minute' WHERE id = 'b'");

      // a follows 'live' and commits every few milliseconds while it claims 'old'.
      await a.putSession({ id: 'live', attributes: {} }, 'config');
      await admin.query("INSERT INTO bridge_replicas (id, lease_until) VALUES ('a', now() + interval '1 minute')");
      await a.claim(['live']);
      const spool = await Spool.open({
        store: a,
        mode: 'always',
        maxBytes: 1 << 30,
        memoryMaxBytes: 1 << 24,
        commitMaxRecords: 5,
        commitIntervalMs: 1,
      });
      let seq = 0;
      const appending = setInterval(() => {
        for (let i = 0; i < 5; i++) spool.append({ sessionId: 'live', seq: ++seq, epoch: 0, tsMicros: seq, record });
      }, 1);
      const delivered = new Map<string, number>();
      let delivering = true;
      const deliveryLoop = (async () => {
        while (delivering) {
          const c = await spool.takeBatch(50);
          if (!c) {
            await Promise.race([spool.waitForData(), new Promise((r) => setTimeout(r, 20))]);
            continue;
          }
          for (const s of c.segments) delivered.set(s.sessionId, (delivered.get(s.sessionId) ?? 0) + s.records);
          await spool.acknowledge(c);
        }
      })();
      const ownership = new Ownership({
        store: a,
        spool,
        leaseMs: 60_000,
        emit: () => undefined,
        log: silentLogger(),
        host: INERT_HOST,
      });
      ownership.start();
      const deadline = Date.now() + 15_000;
      while ((delivered.get('old') ?? 0) < 3000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      clearInterval(appending);
      delivering = false;
      await ownership.stop();
      await deliveryLoop;
      await admin.end();
      expect(a.ownedSessions().has('old')).toBe(true);
      expect(delivered.get('old') ?? 0).toBe(3000);
      expect(delivered.get('live') ?? 0).toBeGreaterThan(0);
    }, 40_000);
  }
});
