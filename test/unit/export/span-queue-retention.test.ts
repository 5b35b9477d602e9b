// The span queue's bound is on what it keeps alive, not only on what it counts: a span pushed out by
// the bound (or settled) must be collectable, though the queue's array keeps its slot until the
// gone prefix is dropped (up to as many slots as live spans) and a batch answered "later" keeps
// its entries until it is sent again. Before, each kept the span's bytes too: a queue full under a
// long refusal held up to twice its bound.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createSpanExport } from '../../../src/export/span-export.js';
import type { ExportOutcome } from '../../../src/export/otlp-transport.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const SPAN = 1000;

/** An exporter whose collector answers every request `answer`; no wait it schedules ever ends. */
function refusing(answer: ExportOutcome) {
  return createSpanExport({
    transport: { url: 'http://c/v1/traces', send: () => Promise.resolve(answer), close: () => Promise.resolve() },
    request: { contentType: 'application/x-protobuf', build: (p) => [Buffer.concat(p)] },
    emit: () => {},
    batchMaxSpans: 4,
    maxQueuedBytes: 10 * SPAN,
    backoff: { initialMs: 100, maxMs: 1000 },
    schedule: () => () => {},
  });
}

/** Offers `n` spans of SPAN bytes; returns weak references to them. */
function offer(exp: ReturnType<typeof refusing>, n: number): Array<WeakRef<Buffer>> {
  const spans = Array.from({ length: n }, () => Buffer.alloc(SPAN, 1));
  exp.offer(spans);
  return spans.map((s) => new WeakRef(s));
}

describe('spans the bound pushed out are not kept alive', () => {
  it.each([
    ['no traces pipeline (a batch waits to be sent again)', { kind: 'failure', status: 404, message: 'HTTP 404' }],
    [
      '429 (a batch waits for the Retry-After)',
      { kind: 'retryable', status: 429, retryAfterMs: 60_000, message: 'HTTP 429' },
    ],
  ] as Array<[string, ExportOutcome]>)('%s', async (_name, answer) => {
    const exp = refusing(answer);
    exp.start();
    const first = offer(exp, 4);
    await new Promise((r) => setImmediate(r));
    // Spans one at a time, as the span tap offers them, until the first ones are long gone.
    for (let i = 0; i < 30; i++) offer(exp, 1);
    expect(exp.queuedBytes).toBeLessThanOrEqual(10 * SPAN);
    await new Promise((r) => setTimeout(r, 0));
    gc();
    expect(first.map((r) => r.deref() === undefined)).toEqual([true, true, true, true]);
  });
});
