// A worker's facts reach the main thread summed where they are counts, as they were otherwise.
import { describe, expect, it } from 'vitest';
import { FactRelay } from '../../../src/ingest/fact-relay.js';

describe('FactRelay', () => {
  it('sums counts by name and labels, without the session, and keeps other facts in order', () => {
    const r = new FactRelay();
    r.emit({ f: 'events_received', session: 'a', count: 2 });
    r.emit({ f: 'gap_recorded', session: 'a', first: 1, last: 2, reason: 'evicted' });
    r.emit({ f: 'events_received', session: 'b', count: 3 });
    r.emit({ f: 'values_redacted', type: 'network_request', kind: 'header', count: 1 });
    r.emit({ f: 'values_redacted', type: 'network_request', kind: 'url', count: 1 });
    r.emit({ f: 'values_redacted', type: 'network_request', kind: 'header', count: 1 });
    r.emit({ f: 'reconnect_scheduled', session: 'b', reason: 'idle', delayMs: 1, attempt: 1 });
    expect(r.take()).toEqual([
      { f: 'events_received', count: 5 },
      { f: 'values_redacted', type: 'network_request', kind: 'header', count: 2 },
      { f: 'values_redacted', type: 'network_request', kind: 'url', count: 1 },
      { f: 'gap_recorded', session: 'a', first: 1, last: 2, reason: 'evicted' },
      { f: 'reconnect_scheduled', session: 'b', reason: 'idle', delayMs: 1, attempt: 1 },
    ]);
    expect(r.take()).toEqual([]);
  });

  it('gives the sums in the order of their first facts, labelled or not', () => {
    const r = new FactRelay();
    r.emit({ f: 'values_redacted', type: 'console_log', kind: 'url', count: 1 });
    r.emit({ f: 'events_received', session: 'a', count: 4 });
    r.emit({ f: 'record_oversized', type: 'console_log', action: 'strings_truncated', count: 1 });
    r.emit({ f: 'values_redacted', type: 'console_log', kind: 'url', count: 1 });
    r.emit({ f: 'event_filtered', session: 'a', type: 'console_log', category: 'console', count: 2 });
    r.emit({ f: 'values_redacted', type: 'network_request', kind: 'url', count: 1 });
    expect(r.take()).toEqual([
      { f: 'values_redacted', type: 'console_log', kind: 'url', count: 2 },
      { f: 'events_received', count: 4 },
      { f: 'record_oversized', type: 'console_log', action: 'strings_truncated', count: 1 },
      { f: 'event_filtered', type: 'console_log', category: 'console', count: 2 },
      { f: 'values_redacted', type: 'network_request', kind: 'url', count: 1 },
    ]);
  });

  it('keeps labels apart that a joined key would confuse', () => {
    const r = new FactRelay();
    r.emit({ f: 'event_filtered', type: 'a\u0000b', category: 'c', count: 1 });
    r.emit({ f: 'event_filtered', type: 'a', category: 'b\u0000c', count: 1 });
    expect(r.take()).toEqual([
      { f: 'event_filtered', type: 'a\u0000b', category: 'c', count: 1 },
      { f: 'event_filtered', type: 'a', category: 'b\u0000c', count: 1 },
    ]);
  });

  it('does not change a fact it was given (the sum is its own object)', () => {
    const r = new FactRelay();
    const first = { f: 'duplicates' as const, session: 'a', count: 1 };
    r.emit(first);
    r.emit({ f: 'duplicates', session: 'a', count: 1 });
    expect(first).toEqual({ f: 'duplicates', session: 'a', count: 1 });
    expect(r.take()).toEqual([{ f: 'duplicates', count: 2 }]);
  });

  it('keeps at most its bound of lines and says how many it dropped', () => {
    const r = new FactRelay();
    for (let i = 0; i < 10_005; i++) r.emit({ f: 'connected', session: `s${i}`, at: i });
    const out = r.take();
    expect(out).toHaveLength(10_001);
    expect(out.at(-1)).toEqual({ f: 'facts_dropped', count: 5, where: 'ingest worker' });
  });
});

describe("a worker's log lines", () => {
  it("carry `name` once: the worker's logger sets it, the bindings it is given do not", async () => {
    const { workerLogBindings } = await import('../../../src/ingest/worker-group.js');
    const pino = (await import('pino')).default;
    const { Writable } = await import('node:stream');
    const lines: string[] = [];
    const sink = new Writable({
      write(c, _e, cb) {
        lines.push(String(c));
        cb();
      },
    });
    const main = pino({ name: 'bridge' }, sink).child({ replica: 'r1' });
    const worker = pino({ name: 'bridge' }, sink).child(workerLogBindings(main, 3));
    worker.info('x');
    expect(lines[0]!.match(/"name":/g)).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ name: 'bridge', replica: 'r1', worker: 3 });
  });
});
