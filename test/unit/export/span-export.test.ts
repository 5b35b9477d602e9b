// Span delivery beside the records: batches, backoff, and a collector without a traces pipeline
// (404 / UNIMPLEMENTED) said once, counted, and asked again later; time is the injected scheduler's.
import { describe, expect, it } from 'vitest';
import { createSpanExport, type SpanExportOptions } from '../../../src/export/span-export.js';
import type { ExportOutcome } from '../../../src/export/otlp-transport.js';
import type { Fact } from '../../../src/vocabulary/facts.js';

// The body is the spans concatenated: its length says how many one-byte spans went out.
const request: SpanExportOptions['request'] = {
  contentType: 'application/x-protobuf',
  build: (p) => [Buffer.concat(p)],
};

function harness(answers: Array<ExportOutcome | Error>, lingerMs?: number) {
  const sent: number[] = [];
  const facts: Fact[] = [];
  const waits: Array<{ ms: number; fn: () => void }> = [];
  const exp = createSpanExport({
    transport: {
      url: 'http://c/v1/traces',
      send: (body) => {
        sent.push(Buffer.concat(body).length);
        const answer = answers.shift() ?? { kind: 'success', rejected: 0 };
        // An Error in the script is a transport that throws, as a defect below it would.
        if (answer instanceof Error) throw answer;
        return Promise.resolve(answer);
      },
      close: () => Promise.resolve(),
    },
    request,
    emit: (f) => facts.push(f),
    batchMaxSpans: 2,
    maxQueuedBytes: 5,
    backoff: { initialMs: 100, maxMs: 1000 },
    unsupportedRetryMs: 60_000,
    ...(lingerMs !== undefined ? { lingerMs } : {}),
    schedule: (fn, ms) => {
      const w = { ms, fn };
      waits.push(w);
      return () => waits.splice(waits.indexOf(w), 1);
    },
  });
  const settle = () => new Promise((r) => setImmediate(r));
  const fire = async () => {
    const w = waits.shift()!;
    w.fn();
    await settle();
  };
  return { exp, sent, facts, waits, settle, fire };
}

const spans = (n: number): Buffer[] => Array.from({ length: n }, () => Buffer.from([0]));

/** Requests that stay out until the test releases them, one by one; `spans` are what each carried. */
function heldRequests(opts: Omit<SpanExportOptions, 'transport' | 'request' | 'emit'>) {
  const out: Array<{ spans: number[]; release: (o: ExportOutcome) => void }> = [];
  const exp = createSpanExport({
    transport: {
      url: 'http://c/v1/traces',
      send: (body) => new Promise((release) => out.push({ spans: [...Buffer.concat(body)], release })),
      close: () => Promise.resolve(),
    },
    request,
    emit: () => undefined,
    ...opts,
  });
  return { exp, out };
}

/** A scheduler that never fires: it keeps each wait's length and whether it was cancelled. */
function keptWaits() {
  const waits: Array<{ ms: number; cancelled: boolean }> = [];
  const schedule = (_fn: () => void, ms: number): (() => void) => {
    const w = { ms, cancelled: false };
    waits.push(w);
    return () => void (w.cancelled = true);
  };
  return { waits, schedule };
}

describe('span export', () => {
  it('sends queued spans in batches', async () => {
    const h = harness([]);
    h.exp.start();
    h.exp.offer(spans(3));
    await h.settle();
    expect(h.sent).toEqual([2, 1]);
    expect(h.facts).toEqual([
      { f: 'spans_exported', count: 2 },
      { f: 'spans_exported', count: 1 },
    ]);
  });

  it('lingering: spans short of a batch wait for the timer, a full batch goes at once, shutdown sends what waits', async () => {
    const h = harness([], 200);
    h.exp.start();
    h.exp.offer(spans(1));
    await h.settle();
    expect(h.sent).toEqual([]);
    expect(h.waits.map((w) => w.ms)).toEqual([200]);
    // A second span makes a full batch: it goes without waiting, and the timer has nothing left to send.
    h.exp.offer(spans(1));
    await h.settle();
    expect(h.sent).toEqual([2]);
    h.exp.offer(spans(3));
    await h.settle();
    expect(h.sent).toEqual([2, 2]);
    // One timer for whatever lingers: the one armed by the first span sends the fifth.
    expect(h.waits.map((w) => w.ms)).toEqual([200]);
    await h.fire();
    expect(h.sent).toEqual([2, 2, 1]);
    h.exp.offer(spans(1));
    await h.settle();
    expect(h.sent).toEqual([2, 2, 1]);
    await h.exp.shutdown(Date.now() + 1000);
    expect(h.sent).toEqual([2, 2, 1, 1]);
    expect(h.facts.filter((f) => f.f === 'spans_dropped')).toEqual([]);
  });

  it('lingering: once the timer fired, everything unsent goes, in as many batches as it takes', async () => {
    const h = harness([], 200);
    h.exp.start();
    h.exp.offer(spans(1));
    await h.fire();
    expect(h.sent).toEqual([1]);
    // Nothing lingers now: the next span waits for a timer of its own.
    h.exp.offer(spans(1));
    await h.settle();
    expect(h.sent).toEqual([1]);
    expect(h.waits.map((w) => w.ms)).toEqual([200]);
  });

  it('a transport that throws is a retryable failure: the spans stay queued and go out after the backoff', async () => {
    const h = harness([new Error('Channel has been shut down')]);
    h.exp.start();
    h.exp.offer(spans(2));
    await h.settle();
    expect(h.sent).toEqual([2]);
    expect(h.facts).toEqual([
      {
        f: 'spans_export_failed',
        endpoint: 'http://c/v1/traces',
        spans: 2,
        attempt: 1,
        delayMs: 100,
        error: 'the transport failed: Channel has been shut down',
      },
    ]);
    expect(h.waits.map((w) => w.ms)).toEqual([100]);
    await h.fire();
    expect(h.sent).toEqual([2, 2]);
    expect(h.facts.slice(1)).toEqual([
      { f: 'spans_export_recovered', endpoint: 'http://c/v1/traces' },
      { f: 'spans_exported', count: 2 },
    ]);
  });

  it.each<[ExportOutcome, string]>([
    [{ kind: 'retryable', timeoutMs: 10_000, message: 'timeout after 10 s' }, 'timeout after 10 s'],
    [{ kind: 'retryable', status: 503, message: 'HTTP 503: overloaded' }, 'HTTP 503: overloaded'],
    [
      { kind: 'retryable', grpcCode: 14, message: 'UNAVAILABLE: no healthy upstream' },
      'UNAVAILABLE: no healthy upstream',
    ],
    [{ kind: 'retryable', message: 'ECONNREFUSED' }, 'network: ECONNREFUSED'],
    [{ kind: 'failure', status: 401, message: 'HTTP 401: bad token' }, 'HTTP 401: bad token'],
    [{ kind: 'failure', status: 404, message: 'HTTP 404: not found' }, 'no traces pipeline: HTTP 404: not found'],
  ])(
    'lastError says a failure as delivery does (outcome-label.ts): %j → %s, until a request succeeds',
    async (answer, said) => {
      const h = harness([answer]);
      h.exp.start();
      expect(h.exp.lastError).toBeUndefined();
      h.exp.offer(spans(1));
      await h.settle();
      expect(h.exp.lastError).toBe(said);
      await h.fire();
      expect(h.exp.lastError).toBeUndefined();
    },
  );

  it('a collector without a traces pipeline is said once, and the spans arrive when it has one', async () => {
    const notFound: ExportOutcome = { kind: 'failure', status: 404, message: 'HTTP 404' };
    const h = harness([notFound, notFound]);
    h.exp.start();
    h.exp.offer(spans(2));
    await h.settle();
    expect(h.facts).toEqual([
      { f: 'traces_unsupported', endpoint: 'http://c/v1/traces', status: 404, retryInMs: 60_000 },
    ]);
    expect(h.waits.map((w) => w.ms)).toEqual([60_000]);
    await h.fire();
    expect(h.facts.filter((f) => f.f === 'traces_unsupported')).toHaveLength(1);
    await h.fire();
    expect(h.sent).toEqual([2, 2, 2]);
    expect(h.facts.slice(1)).toEqual([
      { f: 'traces_supported', endpoint: 'http://c/v1/traces' },
      { f: 'spans_exported', count: 2 },
    ]);
  });

  // The retry after a 404 is refused as invalid and its spans dropped: nothing is queued, and
  // bridge_traces_unsupported would say 1 for as long as no span comes, though the pipeline is added.
  it('unsupported with no span left: an empty request asks every unsupported_retry, and its success clears the gauge', async () => {
    const notFound: ExportOutcome = { kind: 'failure', status: 404, message: 'HTTP 404' };
    const h = harness([notFound, { kind: 'failure', status: 400, refused: 'invalid', message: 'HTTP 400' }, notFound]);
    h.exp.start();
    h.exp.offer(spans(2));
    await h.settle();
    await h.fire();
    expect(h.exp.queued).toBe(0);
    // The empty request went at once (no wait stood), was answered 404: asked again after the wait.
    expect(h.sent).toEqual([2, 2, 0]);
    expect(h.waits.map((w) => w.ms)).toEqual([60_000]);
    await h.fire();
    expect(h.sent).toEqual([2, 2, 0, 0]);
    expect(h.facts.filter((f) => f.f.startsWith('traces_'))).toEqual([
      { f: 'traces_unsupported', endpoint: 'http://c/v1/traces', status: 404, retryInMs: 60_000 },
      { f: 'traces_supported', endpoint: 'http://c/v1/traces' },
    ]);
    // Supported again and nothing queued: nothing asks.
    expect(h.waits).toEqual([]);
    await h.settle();
    expect(h.sent).toHaveLength(4);
    expect(h.facts.filter((f) => f.f === 'spans_exported' || f.f === 'spans_dropped')).toEqual([
      { f: 'spans_dropped', count: 2, reason: 'refused', times: 1, error: 'HTTP 400' },
    ]);
  });

  // An empty request answered anything but a success or a 404 (down, a proxy refusing it) says
  // nothing about the pipeline: the gauge keeps the last answer, and it asks again after the same
  // wait, never at once (a refusal would otherwise be a busy loop), and counts no span.
  it.each<[string, ExportOutcome]>([
    ['503', { kind: 'retryable', status: 503, message: 'HTTP 503' }],
    ['400', { kind: 'failure', status: 400, refused: 'invalid', message: 'HTTP 400' }],
    ['413', { kind: 'failure', status: 413, refused: 'too_large', message: 'HTTP 413' }],
  ])('the empty request answered %s: asked again after traces.unsupported_retry', async (_name, answer) => {
    const notFound: ExportOutcome = { kind: 'failure', status: 404, message: 'HTTP 404' };
    const refused: ExportOutcome = { kind: 'failure', status: 400, refused: 'invalid', message: 'HTTP 400' };
    const h = harness([notFound, refused, answer, answer]);
    h.exp.start();
    h.exp.offer(spans(1));
    await h.settle();
    await h.fire();
    expect(h.sent).toEqual([1, 1, 0]);
    expect(h.waits.map((w) => w.ms)).toEqual([60_000]);
    await h.fire();
    expect(h.sent).toEqual([1, 1, 0, 0]);
    expect(h.waits.map((w) => w.ms)).toEqual([60_000]);
    expect(h.facts.filter((f) => f.f === 'traces_supported')).toEqual([]);
    expect(h.facts.filter((f) => f.f === 'spans_dropped')).toHaveLength(1);
  });

  it('no empty request once shutdown began: it would hold the grace period for no span', async () => {
    const fire: Array<() => void> = [];
    const { exp, out } = heldRequests({
      batchMaxSpans: 2,
      maxQueuedBytes: 100,
      backoff: { initialMs: 100, maxMs: 1000 },
      unsupportedRetryMs: 60_000,
      schedule: (fn) => (fire.push(fn), () => undefined),
    });
    const tick = () => new Promise((r) => setImmediate(r));
    exp.offer(spans(1));
    exp.start();
    out[0]!.release({ kind: 'failure', status: 404, message: 'HTTP 404' });
    await tick();
    fire.shift()!();
    expect(out).toHaveLength(2);
    const stopped = exp.shutdown(Date.now() + 1000);
    out[1]!.release({ kind: 'failure', status: 400, refused: 'invalid', message: 'HTTP 400' });
    await stopped;
    expect(out).toHaveLength(2);
  });

  it('a collector that never said it has no pipeline gets no empty request', async () => {
    const h = harness([{ kind: 'failure', status: 400, refused: 'invalid', message: 'HTTP 400' }]);
    h.exp.start();
    h.exp.offer(spans(1));
    await h.settle();
    expect(h.sent).toEqual([1]);
    expect(h.waits).toEqual([]);
  });

  it('gRPC UNIMPLEMENTED is the same answer', async () => {
    const h = harness([{ kind: 'failure', grpcCode: 12, message: 'UNIMPLEMENTED' }]);
    h.exp.start();
    h.exp.offer(spans(1));
    await h.settle();
    expect(h.facts[0]).toMatchObject({ f: 'traces_unsupported', grpcCode: 12 });
  });

  it('backs off after a retryable answer, honouring Retry-After', async () => {
    const h = harness([
      { kind: 'retryable', status: 503, message: 'HTTP 503' },
      { kind: 'retryable', status: 429, retryAfterMs: 7000, message: 'HTTP 429' },
    ]);
    h.exp.start();
    h.exp.offer(spans(1));
    await h.settle();
    expect(h.waits.map((w) => w.ms)).toEqual([100]);
    await h.fire();
    expect(h.waits.map((w) => w.ms)).toEqual([7000]);
    await h.fire();
    expect(h.facts.map((f) => f.f)).toEqual([
      'spans_export_failed',
      'spans_export_failed',
      'spans_export_recovered',
      'spans_exported',
    ]);
    expect(h.facts[1]).toMatchObject({ status: 429, attempt: 2, delayMs: 7000, error: 'HTTP 429' });
  });

  it.each([-5, 1_000_000])(
    'a partial success rejecting %i spans is counted within the batch sent',
    async (rejected) => {
      const h = harness([{ kind: 'success', rejected, message: 'odd' }]);
      h.exp.start();
      h.exp.offer(spans(2));
      await h.settle();
      const r = Math.min(2, Math.max(0, rejected));
      expect(h.facts).toEqual([
        { f: 'spans_exported', count: 2 - r },
        ...(r > 0 ? [{ f: 'spans_dropped', count: r, reason: 'rejected', times: 1, error: 'odd' }] : []),
      ]);
    },
  );

  it.each([
    { kind: 'failure', status: 500, message: 'HTTP 500' },
    { kind: 'failure', status: 401, message: 'HTTP 401' },
    { kind: 'failure', grpcCode: 16, message: 'UNAUTHENTICATED' },
  ] satisfies ExportOutcome[])('a failure not about the spans ($message) keeps them and backs off', async (answer) => {
    const h = harness([answer]);
    h.exp.start();
    h.exp.offer(spans(2));
    await h.settle();
    expect(h.facts).toEqual([expect.objectContaining({ f: 'spans_export_failed', spans: 2, error: answer.message })]);
    expect(h.exp.queued).toBe(2);
    await h.fire();
    expect(h.sent).toEqual([2, 2]);
    expect(h.facts.at(-1)).toEqual({ f: 'spans_exported', count: 2 });
  });

  it.each([
    { kind: 'failure', status: 413, refused: 'too_large', message: 'HTTP 413' },
    { kind: 'failure', grpcCode: 8, message: 'RESOURCE_EXHAUSTED' },
  ] satisfies ExportOutcome[])(
    '$message sends the batch again in halves at once; a span refused alone is dropped',
    async (tooLarge) => {
      const h = harness([tooLarge, { kind: 'success', rejected: 0 }, tooLarge]);
      h.exp.start();
      h.exp.offer(spans(2));
      await h.settle();
      expect(h.sent).toEqual([2, 1, 1]);
      expect(h.waits).toEqual([]);
      expect(h.facts).toEqual([
        { f: 'spans_exported', count: 1 },
        { f: 'spans_dropped', count: 1, reason: 'refused', times: 1, error: tooLarge.message },
      ]);
    },
  );

  it('a Retry-After of 0 (or a date in the past) waits the backoff, never zero: no busy loop', async () => {
    const h = harness([{ kind: 'retryable', status: 503, retryAfterMs: 0, message: 'HTTP 503' }]);
    h.exp.start();
    h.exp.offer(spans(1));
    await h.settle();
    expect(h.waits.map((w) => w.ms)).toEqual([100]);
  });

  it('drops a refused batch and the oldest spans over the bound, counting both', async () => {
    const h = harness([{ kind: 'failure', status: 400, refused: 'invalid', message: 'HTTP 400' }]);
    h.exp.offer(spans(7));
    expect(h.exp.queued).toBe(5);
    h.exp.start();
    await h.settle();
    expect(h.facts).toEqual([
      { f: 'spans_dropped', count: 2, reason: 'overflow', times: 1, dropped: 2, since: 2, queueMaxBytes: 5 },
      { f: 'spans_dropped', count: 2, reason: 'refused', times: 1, error: 'HTTP 400' },
      { f: 'spans_exported', count: 2 },
      { f: 'spans_exported', count: 1 },
    ]);
  });

  it('tells the owner of each span when it leaves for good, but not at shutdown: those stay in the stored state', async () => {
    const notFound: ExportOutcome = { kind: 'failure', status: 404, message: 'HTTP 404' };
    const h = harness([{ kind: 'success', rejected: 0 }, notFound]);
    const settled: Buffer[] = [];
    const owner = { settled: (b: Buffer) => settled.push(b) };
    const mine = [Buffer.from([1]), Buffer.from([2]), Buffer.from([3])];
    h.exp.offer(mine, owner);
    h.exp.start();
    await h.settle();
    // The first batch was acknowledged; the third span waits for a collector with a traces pipeline.
    expect(settled).toEqual([mine[0], mine[1]]);
    await h.exp.shutdown(Date.now());
    expect(settled).toEqual([mine[0], mine[1]]);
    expect(h.facts.at(-1)).toEqual({ f: 'spans_dropped', count: 1, reason: 'shutdown', times: 1 });
  });

  // As the records' delivery does: the grace period is for sending what waits, and a backoff of
  // the bridge's own would sleep through it with the collector back. A Retry-After still holds.
  it.each<[string, ExportOutcome, number[]]>([
    ['a 503: one more try, and the spans go out', { kind: 'retryable', status: 503, message: 'HTTP 503' }, [2, 2]],
    ['a Retry-After: no more try', { kind: 'retryable', status: 429, retryAfterMs: 7000, message: 'HTTP 429' }, [2]],
  ])('shutdown while backing off after %s', async (_name, failure, sent) => {
    const h = harness([failure]);
    h.exp.offer(spans(2));
    h.exp.start();
    await h.settle();
    expect(h.waits).toHaveLength(1);
    await h.exp.shutdown(Date.now() + 1000);
    expect(h.sent).toEqual(sent);
    expect(h.exp.queued).toBe(0);
    expect(h.facts.at(-1)).toEqual(
      sent.length === 2
        ? { f: 'spans_exported', count: 2 }
        : { f: 'spans_dropped', count: 2, reason: 'shutdown', times: 1 },
    );
  });

  it('an owner is told of spans dropped over the bound', () => {
    const h = harness([]);
    const settled: Buffer[] = [];
    const mine = Array.from({ length: 7 }, (_, i) => Buffer.from([i]));
    h.exp.offer(mine, { settled: (b) => settled.push(b) });
    expect(settled).toEqual(mine.slice(0, 2));
  });

  it('spans pushed out by the bound while their request is out: the answer settles only what it carried', async () => {
    const settled: number[] = [];
    const { exp, out } = heldRequests({
      batchMaxSpans: 2,
      maxQueuedBytes: 5,
      backoff: { initialMs: 100, maxMs: 1000 },
    });
    const owner = { settled: (b: Buffer) => settled.push(b[0]!) };
    exp.start();
    exp.offer([Buffer.from([0]), Buffer.from([1])], owner);
    expect(out[0]!.spans).toEqual([0, 1]);
    // Four more: the bound (5 bytes) pushes span 0 out while the request carrying 0 and 1 is out.
    exp.offer(
      [2, 3, 4, 5].map((i) => Buffer.from([i])),
      owner,
    );
    expect(settled).toEqual([0]);
    out[0]!.release({ kind: 'success', rejected: 0 });
    await new Promise((r) => setImmediate(r));
    // Span 1 is settled by the answer; 2 must not be (it was never sent), and it goes out next.
    expect(settled).toEqual([0, 1]);
    expect(out[1]!.spans).toEqual([2, 3]);
    expect(exp.queued).toBe(4);
  });

  it('several requests in flight: each answer settles the spans it carried, in whatever order they come', async () => {
    const settled: number[] = [];
    const waits: number[] = [];
    const { exp, out } = heldRequests({
      concurrency: 3,
      batchMaxSpans: 2,
      maxQueuedBytes: 100,
      backoff: { initialMs: 100, maxMs: 1000 },
      schedule: (fn, ms) => {
        waits.push(ms);
        queueMicrotask(fn);
        return () => undefined;
      },
    });
    const tick = () => new Promise((r) => setImmediate(r));
    exp.offer(
      [0, 1, 2, 3, 4, 5, 6, 7].map((i) => Buffer.from([i])),
      { settled: (b) => settled.push(b[0]!) },
    );
    exp.start();
    // Three requests at once, no span in two of them; the fourth batch waits for a free slot.
    expect(out.map((r) => r.spans)).toEqual([
      [0, 1],
      [2, 3],
      [4, 5],
    ]);
    out[1]!.release({ kind: 'success', rejected: 0 });
    await tick();
    expect(settled).toEqual([2, 3]);
    expect(exp.queued).toBe(6);
    expect(out[3]!.spans).toEqual([6, 7]);
    // A retryable answer: those spans are not settled, and they go out again after the wait.
    out[0]!.release({ kind: 'retryable', status: 503, message: 'HTTP 503' });
    await tick();
    expect(waits).toEqual([100]);
    expect(out[4]!.spans).toEqual([0, 1]);
    for (const r of out.slice(2)) r.release({ kind: 'success', rejected: 0 });
    await tick();
    expect(settled.sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(exp.queued).toBe(0);
    expect(out).toHaveLength(5);
  });

  // One request fails while another is still out; that one is then accepted. The backoff the
  // failure started held every span (up to exporter.backoff.max, while the bounded queue fills and
  // drops the oldest) with the collector healthy. A success ends a backoff of the bridge's own, not
  // a wait the collector asked for (Retry-After) nor the wait for a traces pipeline (404).
  it.each<[string, ExportOutcome, boolean]>([
    ['a 503: the backoff ends', { kind: 'retryable', status: 503, message: 'HTTP 503' }, true],
    ['a network failure: the backoff ends', { kind: 'retryable', message: 'network: ECONNRESET' }, true],
    [
      'a Retry-After: the wait stays',
      { kind: 'retryable', status: 429, retryAfterMs: 7000, message: 'HTTP 429' },
      false,
    ],
    // The success shows the collector takes spans now: waiting out traces.unsupported_retry with
    // spans queued would only delay them.
    [
      'no traces pipeline: the success shows one, the wait ends',
      { kind: 'failure', status: 404, message: 'HTTP 404' },
      true,
    ],
  ])('a success while a failure waits: %s', async (_name, failure, resent) => {
    const { waits, schedule } = keptWaits();
    const { exp, out } = heldRequests({
      concurrency: 2,
      batchMaxSpans: 2,
      maxQueuedBytes: 100,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
      schedule,
    });
    const tick = () => new Promise((r) => setImmediate(r));
    exp.offer([0, 1, 2, 3].map((i) => Buffer.from([i])));
    exp.start();
    expect(out).toHaveLength(2);
    out[0]!.release(failure);
    await tick();
    expect(waits).toHaveLength(1);
    out[1]!.release({ kind: 'success', rejected: 0 });
    await tick();
    expect(waits[0]!.cancelled).toBe(resent);
    expect(out.slice(2).map((r) => r.spans)).toEqual(resent ? [[0, 1]] : []);
  });

  it('a success ends the wait for a traces pipeline, not a Retry-After that stands with it', async () => {
    const { waits, schedule } = keptWaits();
    const { exp, out } = heldRequests({
      concurrency: 3,
      batchMaxSpans: 1,
      maxQueuedBytes: 100,
      backoff: { initialMs: 100, maxMs: 1000 },
      unsupportedRetryMs: 60_000,
      schedule,
    });
    const tick = () => new Promise((r) => setImmediate(r));
    exp.offer([0, 1, 2].map((i) => Buffer.from([i])));
    exp.start();
    expect(out).toHaveLength(3);
    out[0]!.release({ kind: 'retryable', status: 429, retryAfterMs: 70_000, message: 'HTTP 429' });
    await tick();
    out[1]!.release({ kind: 'failure', status: 404, message: 'HTTP 404' });
    await tick();
    out[2]!.release({ kind: 'success', rejected: 0 });
    await tick();
    expect(waits.filter((w) => !w.cancelled).map((w) => w.ms)).toEqual([70_000]);
    expect(out).toHaveLength(3);
  });

  // One request fails (the bridge's backoff starts, 100 ms) and another then answers 429 with a
  // Retry-After of 7 s: the one wait that stands for both must last the 7 s the collector asked
  // for, not end after the 100 ms and send into its quiet.
  it('a Retry-After answered while a shorter backoff waits: the wait lasts as long as the collector asked', async () => {
    const { waits, schedule } = keptWaits();
    const { exp, out } = heldRequests({
      concurrency: 2,
      batchMaxSpans: 2,
      maxQueuedBytes: 100,
      backoff: { initialMs: 100, maxMs: 1000 },
      schedule,
    });
    const tick = () => new Promise((r) => setImmediate(r));
    exp.offer([0, 1, 2, 3].map((i) => Buffer.from([i])));
    exp.start();
    expect(out).toHaveLength(2);
    out[0]!.release({ kind: 'retryable', status: 503, message: 'HTTP 503' });
    await tick();
    out[1]!.release({ kind: 'retryable', status: 429, retryAfterMs: 7000, message: 'HTTP 429' });
    await tick();
    const standing = waits.filter((w) => !w.cancelled);
    expect(standing).toHaveLength(1);
    expect(standing[0]!.ms).toBeGreaterThanOrEqual(7000);
  });

  it('any order of answers, offers and waits: no span is in two requests at once, each settles once, none is lost', async () => {
    for (let seed = 1; seed <= 30; seed++) {
      let x = seed;
      const rand = (n: number): number => ((x = (x * 1103515245 + 12345) % 2 ** 31), x % n);
      const waits: Array<() => void> = [];
      const settled: number[] = [];
      const { exp, out } = heldRequests({
        concurrency: 3,
        batchMaxSpans: 3,
        maxQueuedBytes: 1000,
        // Half the seeds linger: their timers fire in the same random order as the backoffs.
        lingerMs: seed % 2 === 0 ? 200 : 0,
        backoff: { initialMs: 100, maxMs: 1000 },
        schedule: (fn) => {
          waits.push(fn);
          return () => waits.splice(waits.indexOf(fn), 1);
        },
      });
      const answers: ExportOutcome[] = [
        { kind: 'success', rejected: 0 },
        { kind: 'retryable', status: 503, message: 'HTTP 503' },
        { kind: 'failure', status: 404, message: 'HTTP 404' },
      ];
      exp.start();
      let offered = 0;
      for (let step = 0; step < 200; step++) {
        const what = rand(3);
        if (what === 0 && offered < 250) {
          const n = 1 + rand(4);
          exp.offer(
            Array.from({ length: n }, () => Buffer.from([offered++])),
            { settled: (b) => settled.push(b[0]!) },
          );
        } else if (what === 1 && out.length > 0) {
          out.splice(rand(out.length), 1)[0]!.release(answers[rand(answers.length)]!);
        } else if (waits.length > 0) waits.shift()!();
        await new Promise((r) => setImmediate(r));
        const carried = out.flatMap((r) => r.spans);
        expect(new Set(carried).size).toBe(carried.length);
      }
      // Then a collector that accepts everything.
      while (out.length > 0 || waits.length > 0) {
        if (out.length > 0) out.shift()!.release({ kind: 'success', rejected: 0 });
        else waits.shift()!();
        await new Promise((r) => setImmediate(r));
      }
      expect(settled.sort((a, b) => a - b)).toEqual(Array.from({ length: offered }, (_, i) => i));
      expect(exp.queued).toBe(0);
    }
  });
});
