// The OTLP/gRPC side of a collector that does not want spans: TraceService answering UNIMPLEMENTED
// (no traces pipeline) and then accepting, and RESOURCE_EXHAUSTED with RetryInfo (throttling, OTLP
// "OTLP/gRPC Throttling"). The bridge runs in this process on real sockets; its records go over
// HTTP to the receiver, its spans over gRPC to a TraceService the test steers (grpc-traces-front.ts),
// which counts the calls. Records must all arrive; the refusal is said once and the gauge clears
// once spans are accepted; a RetryInfo delay is waited without a loop of calls, no span dropped.
import { afterEach, describe, expect, it } from 'vitest';
import { sleep, until } from '../../helpers/harness.js';
import { grpcTracesRefusal, SESSION } from '../../helpers/traces-refusal.js';

const UNIMPLEMENTED = 12;
const RESOURCE_EXHAUSTED = 8;

let t: Awaited<ReturnType<typeof grpcTracesRefusal>> | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('a gRPC collector that does not want spans', () => {
  it('UNIMPLEMENTED: records flow, said once, the spans wait; with a TraceService they arrive and the gauge clears', async () => {
    t = await grpcTracesRefusal(() => ({ code: UNIMPLEMENTED }), { unsupported_retry: '1s' });
    const { bridge, session, h } = t;
    session.emit(300);
    session.end();
    await until(() => h.received(SESSION) === session.lastSeq, 'every record delivered');
    expect(h.tally([SESSION])[0]).toMatchObject({ missing: 0 });
    await until(() => bridge.metrics.tracesUnsupported.get() === 1, 'bridge_traces_unsupported 1');
    expect(bridge.spans?.lastError).toMatch(/^no traces pipeline: UNIMPLEMENTED: /);
    const said = t.lines.filter((l) => l.msg.startsWith('the collector has no traces pipeline'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ grpcCode: UNIMPLEMENTED });

    const queued = bridge.spans!.queued;
    expect(queued).toBeGreaterThan(10);
    t.answer(() => undefined);
    await until(() => t!.spansReceived() >= queued, 'the queued spans received');
    await until(() => bridge.metrics.tracesUnsupported.get() === 0, 'bridge_traces_unsupported 0');
    expect(bridge.spans?.lastError).toBeUndefined();
    expect(t.lines.filter((l) => l.msg.startsWith('the collector has no traces pipeline'))).toHaveLength(1);
    expect(bridge.metrics.spansDropped.get({ reason: 'refused' }) ?? 0).toBe(0);
  });

  it('RESOURCE_EXHAUSTED with RetryInfo: the spans wait the delay, no call loop, none dropped; records unaffected', async () => {
    const WAIT_MS = 1000;
    const WINDOW_MS = 3000;
    t = await grpcTracesRefusal(() => ({ code: RESOURCE_EXHAUSTED, retryDelayMs: WAIT_MS }));
    const { bridge, session, h } = t;
    session.emit(300);
    session.end();
    await until(() => t!.requests() > 0, 'a traces call');
    const start = t.requests();
    await sleep(WINDOW_MS);
    // One call per batch (at most exporter.concurrency, 3) per delay, and those out at the start;
    // the bridge's own backoff (300 ms at most) would make four times as many. Not sent in halves
    // either (a RESOURCE_EXHAUSTED without RetryInfo is a message too large).
    const out = Math.min(3, Math.ceil(bridge.spans!.queued / 200));
    expect(t.requests() - start).toBeLessThanOrEqual(out * (WINDOW_MS / WAIT_MS + 1));
    expect(h.received(SESSION)).toBe(session.lastSeq);
    expect(h.tally([SESSION])[0]).toMatchObject({ missing: 0 });
    expect(bridge.spans?.lastError).toMatch(/^RESOURCE_EXHAUSTED: /);

    const queued = bridge.spans!.queued;
    t.answer(() => undefined);
    await until(() => t!.spansReceived() >= queued, 'the queued spans received');
    expect(bridge.metrics.spansDropped.get({ reason: 'refused' }) ?? 0).toBe(0);
    expect(bridge.metrics.tracesUnsupported.get()).toBe(0);
  });
});
