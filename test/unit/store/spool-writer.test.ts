import { describe, expect, it, vi } from 'vitest';
import { SpoolWriter } from '../../../src/store/spool-writer.js';
import { SqliteStore } from '../../../src/store/sqlite-store.js';
import type { BridgeLogRecord } from '../../../src/mapping/log-record.js';

const rec = (seq: number, pad = 0): BridgeLogRecord => ({
  tsMicros: seq, observedMicros: seq, eventName: 'browser.console_log', severityNumber: 9, severityText: 'INFO',
  body: { text: 'x'.repeat(pad) }, attributes: { 'browser.telemetry.seq': seq },
});

function setup(over: Partial<ConstructorParameters<typeof SpoolWriter>[0]> = {}) {
  const store = new SqliteStore(':memory:');
  store.putSession({ id: 's', attributes: {} }, 'config');
  const writer = new SpoolWriter({ store, maxBytes: 1 << 20, commitMaxRecords: 100, commitIntervalMs: 10_000, ...over });
  return { store, writer };
}

describe('SpoolWriter', () => {
  it('batches: nothing is durable before the commit, records and checkpoint are after', () => {
    const { store, writer } = setup();
    writer.enqueue('s', 1, 0, rec(1));
    writer.enqueue('s', 2, 0, null); // filtered: moves the checkpoint only
    expect(store.spoolStats().records).toBe(0);
    expect(store.sessions()[0]!.checkpoint).toBe(0);
    writer.flush();
    expect(store.spoolStats().records).toBe(1);
    expect(store.sessions()[0]!.checkpoint).toBe(2);
  });

  it('commits on its own after commitIntervalMs', async () => {
    const { store, writer } = setup({ commitIntervalMs: 5 });
    const committed = vi.fn();
    writer.onCommitted(committed);
    writer.enqueue('s', 1, 0, rec(1));
    await new Promise((r) => setTimeout(r, 30));
    expect(store.spoolStats().records).toBe(1);
    expect(committed).toHaveBeenCalledTimes(1);
  });

  it('is full at maxBytes and wakes waiters once records are acked', async () => {
    const { store, writer } = setup({ maxBytes: 1024 * 1024 + 1 });
    for (let i = 1; i <= 20; i++) writer.enqueue('s', i, 0, rec(i, 60_000));
    writer.flush();
    expect(writer.full).toBe(true);
    let woke = false;
    const waiting = writer.waitForRoom().then(() => (woke = true));
    await Promise.resolve();
    expect(woke).toBe(false);
    store.ack(store.readBatch(0, 10));
    writer.recheck();
    await waiting;
    expect(woke).toBe(true);
  });

  it('counts pending bytes as UTF-8, as the spool does (non-ASCII text takes more room)', () => {
    const { writer } = setup({ maxBytes: 1024 * 1024 });
    const text = (seq: number): BridgeLogRecord => ({ ...rec(seq), body: { text: 'ü'.repeat(300_000) } });
    writer.enqueue('s', 1, 0, text(1));
    writer.enqueue('s', 2, 0, text(2));
    // 1.2 MB in UTF-8, 0.6 M in UTF-16 units: only the former is over the limit.
    expect(writer.full).toBe(true);
  });

  it('keeps records pending and reports full while commits fail, then recovers', () => {
    const { store, writer } = setup();
    const errors: number[] = [];
    const w = new SpoolWriter({ store, maxBytes: 1 << 20, commitMaxRecords: 100, commitIntervalMs: 10_000, onCommitError: (_e, n) => errors.push(n) });
    const real = store.commit;
    store.commit = () => {
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    };
    w.enqueue('s', 1, 0, rec(1));
    expect(w.flush()).toBe(false);
    expect(w.full).toBe(true);
    expect(w.pendingRecords).toBe(1);
    store.commit = real;
    expect(w.flush()).toBe(true);
    expect(w.full).toBe(false);
    expect(store.spoolStats().records).toBe(1);
    expect(errors).toEqual([1]);
    w.close();
    writer.close();
  });
});
