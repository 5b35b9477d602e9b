// A replica paused past its lease (here: its event loop blocked, which the monotonic clock shows
// as a SIGSTOP would) must check its lease before it sends anything more: while it was paused
// another replica took its session over, and what it still held in memory is that replica's to
// send. Real PostgreSQL, the real Ownership, Spool and Delivery, a real OTLP receiver on a socket;
// the take-over is done by a child process while this one is blocked.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ownership } from '../../../src/cluster/ownership.js';
import { Delivery } from '../../../src/export/delivery.js';
import { createOtlpTransport } from '../../../src/export/otlp-transport.js';
import { startReceiver } from '../../../src/devkit/receiver/server.js';
import { openPgStore, type PgStore } from '../../../src/store/pg-store.js';
import { Spool } from '../../../src/store/spool.js';
import { silentLogger } from '../../../src/util/logger.js';
import { createRecordEncoder } from '../../../src/wire/encode-record.js';
import { createRequestBuilder } from '../../../src/wire/otlp-request.js';
import type { Fact } from '../../../src/vocabulary/facts.js';
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

const encode = createRecordEncoder();
const requests = createRequestBuilder('http/protobuf', {
  resource: { 'service.name': 't' },
  scope: { name: 't', version: '1' },
});
const record = (seq: number) =>
  encode({
    tsMicros: seq,
    observedMicros: seq,
    eventName: 'browser.x',
    severityNumber: 9,
    severityText: 'INFO',
    body: undefined,
    attributes: { 'browser.session.id': 'zs', seq },
  });

/** Blocks this thread: no timer, no socket, nothing runs (the monotonic clock goes on). */
const freeze = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe('a paused replica', () => {
  it('checks its lease before sending anything after the pause, and drops what it held for the session it lost', async () => {
    const url = await server.createDatabase('paused');
    const a = await openPgStore({ url, replicaId: 'a' });
    stores.push(a);
    const receiver = await startReceiver();
    const facts: Fact[] = [];
    await a.putSession({ id: 'zs', attributes: {} }, 'config');
    const spool = await Spool.open({
      store: a,
      mode: 'always',
      maxBytes: 1 << 30,
      memoryMaxBytes: 1 << 24,
      commitMaxRecords: 1000,
      commitIntervalMs: 5,
    });
    const ownership = new Ownership({
      store: a,
      spool,
      leaseMs: 1000,
      emit: (f) => facts.push(f),
      log: silentLogger(),
      host: INERT_HOST,
    });
    const delivery = new Delivery({
      spool,
      requests,
      emit: (f) => facts.push(f),
      batchMaxRecords: 10,
      batchMaxBytes: 1 << 20,
      concurrency: 2,
      backoff: { initialMs: 100, maxMs: 100 },
      transport: createOtlpTransport({
        url: receiver.logsUrl,
        headers: {},
        compression: 'none',
        timeoutMs: 2000,
        connections: 2,
        userAgent: 't',
      }),
    });
    delivery.gateWith(ownership.sendGate);
    ownership.start();
    const until = async (cond: () => boolean, what: string): Promise<void> => {
      const end = Date.now() + 10_000;
      while (!cond()) {
        if (Date.now() > end) throw new Error(`timed out: ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await until(() => a.ownedSessions().has('zs'), 'a to own the session');
    // The collector is down: a holds 200 records claimed and in memory, retrying.
    receiver.behaviour = { status: 503 };
    for (let seq = 1; seq <= 200; seq++)
      spool.append({ sessionId: 'zs', seq, epoch: 0, tsMicros: seq, record: record(seq) });
    await spool.flush();
    delivery.start();
    await until(() => receiver.requests.length >= 2, 'a to be retrying');
    receiver.behaviour = {};
    // While a is frozen past its lease, another replica (a child process) takes the session over.
    const takeover = spawn(
      process.execPath,
      [
        '-e',
        `
      const pg = require('pg');
      setTimeout(async () => {
        const c = new pg.Client({ connectionString: ${JSON.stringify(url)} });
        await c.connect();
        await c.query("INSERT INTO bridge_replicas (id, lease_until) VALUES ('b', now() + interval '1 minute')");
        await c.query("UPDATE bridge_sessions SET owner = 'b', lease_epoch = lease_epoch + 1 WHERE id = 'zs'");
        await c.end();
      }, 1500);
    `,
      ],
      { cwd: process.cwd(), stdio: 'inherit' },
    );
    const acceptedBefore = receiver.records.length;
    freeze(3500);
    await new Promise<void>((r) => takeover.once('exit', () => r()));
    await new Promise((r) => setTimeout(r, 1500));
    const sentAfterPause = receiver.records.length - acceptedBefore;
    await delivery.stop(Date.now() + 500);
    await ownership.stop();
    await receiver.close();
    expect(a.ownedSessions().has('zs')).toBe(false);
    expect(sentAfterPause).toBe(0);
    // Said in the order it happened: the pause, what the check found lost, then the check done.
    const order = facts
      .map((f) => f.f)
      .filter((f) => f === 'paused_checking_lease' || f === 'sessions_lost' || f === 'lease_checked_after_pause');
    expect(order.slice(0, 3)).toEqual(['paused_checking_lease', 'sessions_lost', 'lease_checked_after_pause']);
    expect(facts).toContainEqual(expect.objectContaining({ f: 'lease_checked_after_pause', stillOwned: 0 }));
    expect(facts.some((f) => f.f === 'claim_disowned')).toBe(true);
  }, 40_000);
});
