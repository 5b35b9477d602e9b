// A traces endpoint that fails in ways that are not about the spans: a 500, a 401 (a wrong
// credential in OTEL_EXPORTER_OTLP_TRACES_HEADERS), a 413 for a request of many spans. The spans
// must wait and arrive once it accepts them, as records do (docs/operations.md "Collector
// answers"), not be dropped batch by batch. A loopback front stands before the real receiver's
// /v1/traces; the bridge runs in this process on real sockets.
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { collectorFront } from '../../helpers/collector-front.js';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';

let h: Harness | undefined;
let front: Server | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  front?.closeAllConnections();
  await new Promise<void>((r) => (front ? front.close(() => r()) : r()));
  front = undefined;
});

/** `answer` says what the front does with traces request `n` of `bytes`: a status of its own, or undefined to hand it on. */
async function tracesFront(
  receiverUrl: string,
  answer: (n: number, bytes: number) => number | undefined,
): Promise<string> {
  const f = await collectorFront(receiverUrl, (n, body, forward) => {
    const status = answer(n, body.length);
    return status === undefined
      ? forward()
      : { status, contentType: 'text/plain', body: `refused by the front (${status})` };
  });
  front = f.server;
  return `${f.url}/v1/traces`;
}

async function spansThrough(answer: (n: number, bytes: number) => number | undefined) {
  h = await harness();
  const url = await tracesFront(h.receiver.url, answer);
  const session = h.sim.createSession('tf');
  session.emit(300);
  session.end();
  const bridge = await h.startBridge(
    { ...FAST, exporter: { ...(FAST.exporter as object), batch_max_records: 50 } },
    { BRIDGE_SESSIONS: 'tf', BRIDGE_TRACES: 'true', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url },
  );
  await until(
    () => h!.receiver.spans.some((s) => s.attributes['browser.span.end_reason'] === 'session_end'),
    'the spans the session end closes',
    25_000,
  );
  const exported = bridge.metrics.spansExported.get() ?? 0;
  await until(
    () => new Set(h!.receiver.spans.map((s) => s.spanId)).size >= exported,
    'every acknowledged span received',
  );
  return {
    refused: bridge.metrics.spansDropped.get({ reason: 'refused' }) ?? 0,
    received: new Set(h.receiver.spans.map((s) => s.spanId)).size,
  };
}

describe('a traces endpoint that fails for reasons not in the spans', () => {
  it.each([500, 401])('%i for the first requests: the spans wait and arrive, none dropped', async (status) => {
    const r = await spansThrough((n) => (n < 3 ? status : undefined));
    expect(r.refused).toBe(0);
    expect(r.received).toBeGreaterThan(10);
  });

  it('413 for a request of more than a few spans: sent again in halves, none dropped', async () => {
    const r = await spansThrough((_n, bytes) => (bytes > 4096 ? 413 : undefined));
    expect(r.refused).toBe(0);
    expect(r.received).toBeGreaterThan(10);
  });
});
