// A collector with no traces pipeline (OTLP/HTTP /v1/traces answers 404), then with one. The bridge
// runs in this process on real sockets; its records go straight to the receiver, its spans through
// a front that answers 404 until the test lets them through. Records must flow with none missing;
// the refusal is said once (a warning, bridge_traces_unsupported 1, /readyz's traces.lastError);
// the spans wait, none dropped; the front is asked again only after `traces.unsupported_retry`, not
// in a loop; and once the pipeline exists the spans arrive and the gauge clears. With every span
// dropped meanwhile, an empty request keeps asking, so the gauge clears with no span to send.
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../helpers/harness.js';
import { SESSION, text, tracesRefusal, type TracesRefusal } from '../../helpers/traces-refusal.js';

let t: TracesRefusal | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const NO_PIPELINE = 'the collector has no traces pipeline';

describe('a collector without a traces pipeline', () => {
  it('records flow, the refusal is said once, the spans wait; with a pipeline they arrive and the gauge clears', async () => {
    t = await tracesRefusal(() => text(404), { unsupported_retry: '1s' });
    const { bridge, session, h } = t;
    session.emit(300);
    session.end();
    await until(() => h.received(SESSION) === session.lastSeq, 'every record delivered');
    expect(h.tally([SESSION])[0]).toMatchObject({ missing: 0 });
    await until(() => bridge.metrics.tracesUnsupported.get() === 1, 'bridge_traces_unsupported 1');
    await until(() => (bridge.spans?.queued ?? 0) > 10, 'the spans queued');

    // What /readyz, `top`, the status line and `check` show as traces.lastError (traces-status.test.ts):
    // the cause in words, not a bare 404 an operator must decode.
    expect(bridge.spans?.lastError).toBe('no traces pipeline: HTTP 404: refused by the front (404)');

    // Asked again once a second at most: a few requests, not a loop (each request carries a batch).
    const before = t.requests();
    await new Promise((r) => setTimeout(r, 2500));
    expect(t.requests() - before).toBeLessThanOrEqual(3 * 3);
    expect(t.lines.filter((l) => l.msg.startsWith(NO_PIPELINE))).toHaveLength(1);
    expect(bridge.metrics.spansDropped.get({ reason: 'overflow' }) ?? 0).toBe(0);
    expect(h.receiver.spans).toHaveLength(0);

    // The collector gains a traces pipeline: within the re-ask interval the spans go.
    const queued = bridge.spans!.queued;
    t.answer(() => undefined);
    await until(() => t!.spansReceived() >= queued, 'the queued spans received');
    // The receiver holds the spans before the bridge reads its answer.
    await until(() => bridge.metrics.tracesUnsupported.get() === 0, 'bridge_traces_unsupported 0');
    expect(t.lines.filter((l) => l.msg === 'the collector accepts spans')).toHaveLength(1);
    expect(bridge.metrics.spansDropped.get({ reason: 'refused' }) ?? 0).toBe(0);
  });

  it('every span dropped while it has none: an empty request asks, and the gauge clears once the pipeline is added', async () => {
    t = await tracesRefusal(() => text(404), { unsupported_retry: '1s' });
    const { bridge, session } = t;
    session.emit(50);
    session.end();
    await until(() => bridge.metrics.tracesUnsupported.get() === 1, 'bridge_traces_unsupported 1');

    // The retries are refused as invalid and dropped: no span is left to ask with.
    t.answer(() => text(400));
    await until(
      () => (bridge.metrics.spansDropped.get({ reason: 'refused' }) ?? 0) > 0 && bridge.spans?.queued === 0,
      'every span dropped',
    );
    // The empty request is refused too: it says nothing of a pipeline, the gauge stays, and it is
    // asked again about once a second (traces.unsupported_retry), not in a loop.
    const before = t.requests();
    await new Promise((r) => setTimeout(r, 2500));
    expect(t.requests() - before).toBeGreaterThanOrEqual(1);
    expect(t.requests() - before).toBeLessThanOrEqual(4);
    expect(bridge.metrics.tracesUnsupported.get()).toBe(1);

    // The collector gains a traces pipeline: the next empty request is accepted, with no span.
    t.answer(() => undefined);
    await until(() => bridge.metrics.tracesUnsupported.get() === 0, 'bridge_traces_unsupported 0');
    expect(t.spansReceived()).toBe(0);
    expect(t.lines.filter((l) => l.msg === 'the collector accepts spans')).toHaveLength(1);
  });
});
