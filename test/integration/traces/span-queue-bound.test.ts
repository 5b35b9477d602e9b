// The span queue's bound under a long refusal (a collector without a traces pipeline for good),
// with the bridge in this process on real sockets and a small `traces.queue_max_bytes` so the bound
// is reached in seconds. The queue must stay under its bound, the oldest spans dropped and counted
// (bridge_spans_dropped_total{reason="overflow"}), the records all delivered, and the drops said
// in a warning that names the bound, why and the spans dropped so far, not a line per 50 offers
// (the span tap offers spans one at a time: that was dozens of lines here, each saying `count: 1`).
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../helpers/harness.js';
import { SESSION, text, tracesRefusal, type LogLine, type TracesRefusal } from '../../helpers/traces-refusal.js';

let t: TracesRefusal | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const BOUND = 64 * 1024;
const overflowLines = (lines: LogLine[]): LogLine[] => lines.filter((l) => l.queueMaxBytes !== undefined);

describe('the span queue under a long refusal', () => {
  it('stays under its bound, drops the oldest and counts them, says so once a minute at most; records unaffected', async () => {
    t = await tracesRefusal(() => text(404), { queue_max_bytes: '64KiB' });
    const { bridge, session, h } = t;
    // Several times the bound in spans (about 22 spans of 300-800 bytes per 300 events), in steps:
    // the queue is offered spans many times while it is full.
    for (let i = 0; i < 20; i++) {
      session.emit(600);
      await until(() => h.received(SESSION) === session.lastSeq, 'the records so far delivered');
      expect(bridge.spans!.queuedBytes).toBeLessThanOrEqual(BOUND);
    }
    session.end();
    await until(() => h.received(SESSION) === session.lastSeq, 'every record delivered');
    expect(h.tally([SESSION])[0]).toMatchObject({ missing: 0 });

    const dropped = bridge.metrics.spansDropped.get({ reason: 'overflow' }) ?? 0;
    expect(dropped).toBeGreaterThan(0);
    expect(bridge.spans!.queuedBytes).toBeLessThanOrEqual(BOUND);
    expect(bridge.spans!.queuedBytes).toBeGreaterThan(BOUND / 2);
    expect(h.receiver.spans).toHaveLength(0);

    // One warning in these seconds (at most one a minute), not one per offer: the bound, why the
    // queue is full, and the spans dropped so far.
    const said = overflowLines(t.lines);
    expect(said).toHaveLength(1);
    expect(said[0]!.msg).toContain('the span queue is full (traces.queue_max_bytes)');
    expect(said[0]).toMatchObject({
      queueMaxBytes: BOUND,
      dropped: expect.any(Number),
      error: 'no traces pipeline: HTTP 404: refused by the front (404)',
    });
  });
});
