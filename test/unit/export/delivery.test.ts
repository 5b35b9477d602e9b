// The delivery loop against an in-memory exporter and a real SQLite store whose deletes can fail.
import { ExportResultCode } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { describe, expect, it } from 'vitest';
import { Delivery } from '../../../src/export/delivery.js';
import type { LogExporter } from '../../../src/export/otlp-exporter.js';
import { createMetrics } from '../../../src/server/metrics.js';
import { SqliteStore } from '../../../src/store/sqlite-store.js';
import { silentLogger } from '../../../src/util/logger.js';

function setup(records: number) {
  const store = new SqliteStore(':memory:');
  store.putSession({ id: 's', attributes: {} }, 'config');
  const payload = (seq: number) => JSON.stringify({ tsMicros: seq, observedMicros: seq, eventName: 'browser.x', severityNumber: 9, severityText: 'INFO', body: null, attributes: { 'browser.telemetry.seq': seq } });
  store.commit(Array.from({ length: records }, (_, i) => ({ sessionId: 's', seq: i + 1, tsMicros: i + 1, payload: payload(i + 1), bytes: Buffer.byteLength(payload(i + 1)) })), []);
  const exported: ReadableLogRecord[][] = [];
  const exporter: LogExporter = {
    export: (batch, cb) => {
      exported.push(batch);
      setImmediate(() => cb({ code: ExportResultCode.SUCCESS }));
    },
    shutdown: async () => {},
  };
  const delivery = new Delivery({
    store, exporter, resource: resourceFromAttributes({}), batchMaxRecords: 10, concurrency: 1,
    backoff: { initialMs: 5, maxMs: 20 }, metrics: createMetrics({ defaultMetrics: false }), log: silentLogger(), onDelivered: () => {},
  });
  return { store, delivery, exported };
}

describe('Delivery', () => {
  it('a failing delete (disk full) is retried alone: no crash, no second export of the batch', async () => {
    const { store, delivery, exported } = setup(10);
    const realAck = store.ack.bind(store);
    let failures = 3;
    store.ack = (rows) => {
      if (failures-- > 0) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      realAck(rows);
    };
    delivery.start();
    const end = Date.now() + 5000;
    while (store.spoolStats().records > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    await delivery.stop();
    expect(store.spoolStats().records).toBe(0);
    expect(exported).toHaveLength(1);
    expect(delivery.deliveredTotal).toBe(10);
  });

  it('stop(deadline) returns by the deadline even when the collector never answers', async () => {
    const { store, delivery } = setup(5);
    (delivery as unknown as { o: { exporter: LogExporter } }).o.exporter = { export: () => {}, shutdown: async () => {} };
    delivery.start();
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await delivery.stop(Date.now() + 200);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(store.spoolStats().records).toBe(5);
  });
});
