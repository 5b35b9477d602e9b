// The delivery loop against a scripted transport and a real SQLite spool whose deletes can fail.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ExportOutcome, OtlpTransport } from '../../../src/export/otlp-transport.js';
import { createMetrics } from '../../../src/observe/metrics.js';
import { createFactSink } from '../../../src/observe/facts.js';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';
import { silentLogger } from '../../../src/util/logger.js';
import { bodyBytes } from '../../../src/wire/otlp-request.js';
import { appendSeq, openTestSpool, requestSeqs, testDelivery } from '../../helpers/delivery-fixture.js';
import { loopbackDelivery } from '../../helpers/loopback-delivery.js';

async function setup(
  records: number,
  answer: (seqs: number[], call: number) => ExportOutcome | Promise<ExportOutcome>,
  batchMaxBytes = 1 << 30,
) {
  const store = await openSqliteStore(':memory:');
  const spool = await openTestSpool(store);
  for (let seq = 1; seq <= records; seq++) appendSeq(spool, seq);
  await spool.flush();
  const calls: number[][] = [];
  const sizes: number[] = [];
  const transport: OtlpTransport = {
    url: 'http://collector.test/v1/logs',
    send: async (body) => {
      sizes.push(bodyBytes(body));
      const seqs = requestSeqs(body);
      calls.push(seqs);
      return answer(seqs, calls.length);
    },
    close: async () => {},
  };
  const metrics = createMetrics({ defaultMetrics: false });
  const delivery = testDelivery(spool, transport, { batchMaxBytes, emit: createFactSink(metrics, silentLogger()) });
  return { store, spool, delivery, calls, metrics, sizes };
}

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
}

describe('Delivery', () => {
  it('failing deletes (disk full) do not hold delivery up, are retried in the background, and never re-export', async () => {
    const { store, spool, delivery, calls } = await setup(30, () => ({ kind: 'success', rejected: 0 }));
    const realDelete = store.deleteSegments.bind(store);
    let failing = true;
    store.deleteSegments = async (ids, known) => {
      if (failing) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      return realDelete(ids, known);
    };
    // More commits, so several batches are exported while no delete succeeds.
    for (let seq = 31; seq <= 60; seq++) {
      appendSeq(spool, seq);
      if (seq % 10 === 0) await spool.flush();
    }
    delivery.start();
    await until(() => calls.flat().length === 60);
    expect(spool.undeletedBatches).toBeGreaterThan(0);
    expect(spool.idle).toBe(false);
    failing = false;
    await until(() => spool.idle);
    await delivery.stop();
    expect((await store.spoolStats()).records).toBe(0);
    expect(calls.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  });

  it('while deletes fail the spool is full, and a commit retries them first: freed space goes to deletes, not new segments', async () => {
    const { store, spool, delivery, calls } = await setup(10, () => ({ kind: 'success', rejected: 0 }));
    const realDelete = store.deleteSegments.bind(store);
    const realCommit = store.commit.bind(store);
    let full = true;
    const order: string[] = [];
    store.deleteSegments = async (ids, known) => {
      if (full) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      order.push('delete');
      return realDelete(ids, known);
    };
    store.commit = async (segments, checkpoints) => {
      order.push('commit');
      return realCommit(segments, checkpoints);
    };
    delivery.start();
    await until(() => calls.length > 0 && spool.undeletedBatches > 0);
    expect(spool.full).toBe(true);
    // The operator frees space; the next commit comes before the background retry would.
    full = false;
    appendSeq(spool, 11);
    await spool.flush();
    expect(order.slice(0, 2)).toEqual(['delete', 'commit']);
    expect(spool.undeletedBatches).toBe(0);
    await until(() => spool.idle);
    await delivery.stop();
    expect(spool.full).toBe(false);
  });

  it('a failing delete (disk full) is retried alone: no crash, no second export of the batch', async () => {
    const { store, spool, delivery, calls } = await setup(10, () => ({ kind: 'success', rejected: 0 }));
    const realDelete = store.deleteSegments.bind(store);
    let failures = 3;
    store.deleteSegments = async (ids) => {
      if (failures-- > 0) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      return realDelete(ids);
    };
    delivery.start();
    await until(() => spool.idle);
    await delivery.stop();
    expect((await store.spoolStats()).records).toBe(0);
    expect(calls).toHaveLength(1);
    expect(delivery.deliveredTotal).toBe(10);
  });

  it('shutdown(deadline) returns by the deadline even when the collector never answers', async () => {
    const { spool, delivery } = await setup(5, () => new Promise<ExportOutcome>(() => {}));
    delivery.start();
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await delivery.stop(Date.now() + 200);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(spool.spooled.records).toBe(5);
  });

  it('a 400 splits the batch until the bad record stands alone; only it is dropped and counted', async () => {
    const { delivery, calls, metrics, spool } = await setup(10, (seqs) =>
      seqs.includes(7)
        ? { kind: 'failure', status: 400, refused: 'invalid', message: 'HTTP 400' }
        : { kind: 'success', rejected: 0 },
    );
    delivery.start();
    await until(() => spool.idle);
    await delivery.stop();
    const accepted = calls
      .filter((c) => !c.includes(7))
      .flat()
      .sort((a, b) => a - b);
    expect(accepted).toEqual([1, 2, 3, 4, 5, 6, 8, 9, 10]);
    expect(calls.at(-1)).not.toContain(7);
    expect(calls.some((c) => c.length === 1 && c[0] === 7)).toBe(true);
    expect(await metrics.registry.metricText('bridge_events_rejected_total')).toMatch(/reason="invalid"\} 1/);
  });

  it('400 for every request drops nothing: every record stays spooled until the collector accepts again', async () => {
    let refuse = true;
    const { delivery, calls, metrics, spool } = await setup(10, () =>
      refuse
        ? { kind: 'failure', status: 400, refused: 'invalid', message: 'HTTP 400: wrong tenant' }
        : { kind: 'success', rejected: 0 },
    );
    delivery.start();
    await until(() => calls.length > 30);
    expect(spool.idle).toBe(false);
    expect(spool.spooled.records).toBe(10);
    expect(delivery.refusing).toEqual({ status: 400, message: 'HTTP 400: wrong tenant' });
    expect(await metrics.registry.metricText('bridge_events_rejected_total')).toMatch(/reason="invalid"\} 0/);
    expect(await metrics.registry.metricText('bridge_export_refusing')).toMatch(/bridge_export_refusing 1/);
    refuse = false;
    await until(() => spool.idle);
    await delivery.stop();
    expect(delivery.refusing).toBeUndefined();
    expect(delivery.deliveredTotal).toBe(10);
    expect(await metrics.registry.metricText('bridge_export_refusing')).toMatch(/bridge_export_refusing 0/);
  });

  it('a record refused alone, with no neighbour in its request, is dropped once the collector accepts the request without it', async () => {
    // One record per request: no neighbour to compare with, so the proof is an empty request accepted.
    const { delivery, spool, metrics } = await setup(
      5,
      (seqs) =>
        seqs.includes(3)
          ? { kind: 'failure', status: 400, refused: 'invalid', message: 'HTTP 400' }
          : { kind: 'success', rejected: 0 },
      1,
    );
    delivery.start();
    await until(() => spool.idle);
    await delivery.stop();
    expect(delivery.deliveredTotal).toBe(4);
    expect(await metrics.registry.metricText('bridge_events_rejected_total')).toMatch(/reason="invalid"\} 1/);
  });

  it('honours Retry-After, and counts failures by status', async () => {
    const { delivery, calls, metrics, spool } = await setup(3, (_s, call) =>
      call === 1
        ? { kind: 'retryable', status: 503, retryAfterMs: 300, message: 'HTTP 503' }
        : { kind: 'success', rejected: 0 },
    );
    const started = Date.now();
    delivery.start();
    await until(() => spool.idle);
    const waited = Date.now() - started;
    await delivery.stop();
    expect(calls).toHaveLength(2);
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(await metrics.registry.metricText('bridge_export_requests_total')).toMatch(/outcome="http_503"\} 1/);
  });

  it('a transport that throws is a failure like any other: counted, retried, nothing lost', async () => {
    const { delivery, calls, metrics, spool } = await setup(3, (_s, call) => {
      if (call === 1) throw new Error('Channel has been shut down');
      return { kind: 'success', rejected: 0 };
    });
    delivery.start();
    await until(() => spool.idle);
    await delivery.stop();
    expect(calls).toEqual([
      [1, 2, 3],
      [1, 2, 3],
    ]);
    expect(await metrics.registry.metricText('bridge_export_requests_total')).toMatch(/outcome="network"\} 1/);
  });

  it('new data does not cut a backoff short', async () => {
    const { delivery, calls, spool } = await setup(2, (_s, call) =>
      call === 1
        ? { kind: 'retryable', status: 503, retryAfterMs: 400, message: 'HTTP 503' }
        : { kind: 'success', rejected: 0 },
    );
    delivery.start();
    await until(() => calls.length === 1);
    for (let i = 0; i < 5; i++) {
      appendSeq(spool, 100 + i, 1);
      await spool.flush();
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(calls).toHaveLength(1);
    await until(() => spool.idle);
    await delivery.stop();
  });

  it('a segment larger than a request may be goes out in requests within the record and byte bounds', async () => {
    const { delivery, calls, sizes, spool } = await setup(25, () => ({ kind: 'success', rejected: 0 }), 200);
    delivery.start();
    await until(() => spool.idle);
    await delivery.stop();
    expect(calls.flat()).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    for (const c of calls) expect(c.length).toBeLessThanOrEqual(10);
    // Each request carries the resource and scope besides its records; records alone stay ≤ 200 bytes.
    expect(Math.max(...sizes)).toBeLessThan(200 + 100);
    expect(calls.length).toBeGreaterThan(3);
  });

  it('counts records a partial success rejected', async () => {
    const { delivery, metrics, spool } = await setup(4, () => ({
      kind: 'success',
      rejected: 2,
      message: 'bad attributes',
    }));
    delivery.start();
    await until(() => spool.idle);
    await delivery.stop();
    expect(await metrics.registry.metricText('bridge_events_rejected_total')).toMatch(/reason="partial_success"\} 2/);
    expect(delivery.deliveredTotal).toBe(2);
  });
});

describe('Spool room', () => {
  it('is bounded by the free space of its volume, less a reserve, not only by max_bytes', async () => {
    let free = 1 << 30;
    const store = await openSqliteStore(':memory:');
    const spool = await openTestSpool(store, { maxBytes: 1 << 30, freeBytes: () => ({ free, total: 4 * 2 ** 30 }) });
    expect(spool.full).toBe(false);
    expect(spool.limitedByDisk).toBe(true);
    free = 32 * 1024 * 1024;
    await new Promise((r) => setTimeout(r, 1100));
    expect(spool.full).toBe(true);
  });

  it('is full under memory pressure, and wakes the waiting readers when it ends', async () => {
    let pressure = true;
    const store = await openSqliteStore(':memory:');
    const spool = await openTestSpool(store, { memoryPressure: () => pressure });
    expect(spool.full).toBe(true);
    let woke = false;
    const waiting = spool.waitForRoom().then(() => (woke = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(woke).toBe(false);
    pressure = false;
    spool.recheckRoom();
    await waiting;
    expect(woke).toBe(true);
  });
});

describe('what delivery says about the collector', () => {
  it('names the endpoint with its credentials and secret parameters masked', async () => {
    const { Delivery } = await import('../../../src/export/delivery.js');
    const facts: Array<{ f: string; endpoint?: string }> = [];
    const segment = {
      id: 1,
      sessionId: 's',
      firstSeq: 1,
      lastSeq: 1,
      records: 1,
      bytes: 1,
      oldestTsMicros: 0,
      payload: Buffer.from([0]),
    };
    let claimed = false;
    const spool = {
      takeBatch: async () => (claimed ? null : ((claimed = true), { segments: [segment], records: 1, bytes: 1 })),
      waitForData: () => new Promise<void>(() => {}),
      idle: false,
      acknowledge: async () => {},
      release: () => {},
      belongsOnDisk: () => false,
      watchSpill: () => {},
    } as never;
    const transport = {
      url: 'https://user:SECRET-PW@collector.example/v1/logs?api_key=SECRET-K',
      send: async () => ({ kind: 'retryable', status: 503, message: 'HTTP 503' }),
      close: async () => {},
    } as never;
    const d = new Delivery({
      spool,
      transport,
      requests: { build: () => [Buffer.alloc(1)], contentType: 'x' },
      batchMaxRecords: 10,
      batchMaxBytes: 1000,
      concurrency: 1,
      backoff: { initialMs: 10_000, maxMs: 10_000 },
      emit: (f) => void facts.push(f),
    });
    d.start();
    await until(() => facts.some((f) => f.f === 'export_failed'));
    await d.stop(Date.now());
    expect(facts.find((f) => f.f === 'export_failed')?.endpoint).toBe(
      'https://REDACTED:REDACTED@collector.example/v1/logs?api_key=REDACTED',
    );
    expect(JSON.stringify(facts)).not.toContain('SECRET');
  });
});

describe('lastError, what an operator reads in /readyz and top', () => {
  // A real loopback collector that accepts the request and never answers: the transport's timeout
  // ends each try, and lastError says what happened once ("timeout: timeout" said it twice and not
  // how long was waited).
  it('a collector that never answers: "timeout after 0.2 s"', async () => {
    const { spool, delivery, close } = await loopbackDelivery(() => {}, {
      timeoutMs: 200,
      delivery: { backoff: { initialMs: 10_000, maxMs: 10_000 } },
    });
    appendSeq(spool, 1);
    await spool.flush();
    try {
      delivery.start();
      await until(() => delivery.lastError !== undefined);
      expect(delivery.lastError).toBe('timeout after 0.2 s');
    } finally {
      await close();
    }
  });
});

describe('after an outage, against a real loopback collector', () => {
  // Backoffs of twenty minutes or more: only a wake can bring a batch back before the test ends.
  const longBackoff = { backoff: { initialMs: 20 * 60_000, maxMs: 30 * 60_000 } };

  // One worker fails and sleeps in a backoff of ten minutes or more; the collector recovers; the
  // other worker delivers a new batch. Only the wake by that success can bring the first batch
  // back before the test ends: its own backoff would hold it for minutes.
  async function outage(retryAfter: string | undefined) {
    const seen: { seqs: number[]; status: number }[] = [];
    let refusing = true;
    const { spool, delivery, close } = await loopbackDelivery(
      (seqs, res) => {
        const status = refusing ? 503 : 200;
        seen.push({ seqs, status });
        res.writeHead(status, {
          'content-type': 'application/x-protobuf',
          ...(refusing && retryAfter !== undefined ? { 'retry-after': retryAfter } : {}),
        });
        res.end();
      },
      { connections: 2, delivery: { concurrency: 2, ...longBackoff } },
    );
    delivery.start();
    appendSeq(spool, 1);
    await spool.flush();
    await until(() => seen.length === 1);
    refusing = false;
    appendSeq(spool, 2);
    await spool.flush();
    return { seen, spool, close };
  }

  it('a batch held by a worker asleep in its backoff goes out right after another worker delivers', async () => {
    const { seen, spool, close } = await outage(undefined);
    try {
      await until(() => spool.idle, 10_000);
      expect(seen).toEqual([
        { seqs: [1], status: 503 },
        { seqs: [2], status: 200 },
        { seqs: [1], status: 200 },
      ]);
    } finally {
      await close();
    }
  });

  // The request of the outage lands last: sent while the collector hung, answered 503 only after
  // another worker's request was accepted. That success found nobody asleep to wake, so without a
  // wake of its own the failed worker would sleep out its backoff (here twenty minutes) while the
  // collector is healthy and nothing else is sent.
  it('a failure answered after another request was accepted goes again at once, not after its backoff', async () => {
    const seen: { seqs: number[]; status: number }[] = [];
    let held: ServerResponse | undefined;
    const { spool, delivery, close } = await loopbackDelivery(
      (seqs, res) => {
        if (seen.length === 0 && held === undefined) {
          held = res;
          return;
        }
        seen.push({ seqs, status: 200 });
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      },
      { connections: 2, delivery: { concurrency: 2, ...longBackoff } },
    );
    try {
      delivery.start();
      appendSeq(spool, 1);
      await spool.flush();
      await until(() => held !== undefined);
      appendSeq(spool, 2);
      await spool.flush();
      await until(() => delivery.deliveredTotal === 1);
      seen.push({ seqs: [1], status: 503 });
      held!.writeHead(503, { 'content-type': 'application/x-protobuf' }).end();
      await until(() => spool.idle, 10_000);
      expect(seen).toEqual([
        { seqs: [2], status: 200 },
        { seqs: [1], status: 503 },
        { seqs: [1], status: 200 },
      ]);
    } finally {
      await close();
    }
  });

  // SIGTERM gives delivery a grace period to empty the spool. A worker asleep in a backoff of its
  // own, the collector healthy again, slept through it: the batch stayed behind although one
  // request would have taken it. Shutdown wakes it for a last try.
  it('shutdown wakes a worker asleep in its backoff: its batch goes out within the grace period', async () => {
    const seen: { seqs: number[]; status: number }[] = [];
    const { spool, delivery, close } = await loopbackDelivery(
      (seqs, res) => {
        const status = seen.length === 0 ? 503 : 200;
        seen.push({ seqs, status });
        res.writeHead(status, { 'content-type': 'application/x-protobuf' }).end();
      },
      { delivery: longBackoff },
    );
    try {
      delivery.start();
      appendSeq(spool, 1);
      await spool.flush();
      await until(() => delivery.lastError !== undefined);
      expect(await delivery.stop(Date.now() + 5000)).toBe(true);
      expect(seen).toEqual([
        { seqs: [1], status: 503 },
        { seqs: [1], status: 200 },
      ]);
    } finally {
      await close();
    }
  });

  it("a worker waiting out the collector's Retry-After is not woken: the collector asked for that quiet", async () => {
    const { seen, spool, close } = await outage('600');
    try {
      await until(() => seen.length === 2);
      // Later deliveries do not wake it either: record 1 stays held while 3 and 4 go out.
      for (const seq of [3, 4]) {
        appendSeq(spool, seq);
        await spool.flush();
        await until(() => seen.some((r) => r.seqs.includes(seq)));
      }
      expect(seen).toEqual([
        { seqs: [1], status: 503 },
        { seqs: [2], status: 200 },
        { seqs: [3], status: 200 },
        { seqs: [4], status: 200 },
      ]);
      expect(spool.idle).toBe(false);
    } finally {
      await close();
    }
  });
});
