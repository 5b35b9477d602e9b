// Delivery of spans (docs/traces.md), beside the records' and never in their way: spans wait in a
// bounded queue of their own, go out in batches to /v1/traces (gRPC TraceService/Export) on their
// own transport, and nothing a traces endpoint answers can hold a record back.
//
// States: *idle* (queue empty) → *sending* (one request in flight) → back to idle, or to
// *backing off* after a retryable answer (429, 5xx, network: the Retry-After or the exponential
// backoff), or to *unsupported* when the collector has no traces pipeline (HTTP 404, gRPC
// UNIMPLEMENTED): said once (traces_unsupported), the spans kept, and tried again after
// `unsupportedRetryMs`; the first success says so (traces_supported). A batch the collector refuses
// as invalid is dropped and counted, as is the oldest span when the queue is over its bound.
//
// Each span may come with its owner (the session's tap), told when the span leaves the queue for
// good: acknowledged, refused or dropped. What the owner has not been told of is carried in the
// session's stored span state, so a kill -9 loses no span (docs/traces.md "After a crash");
// shutdown() tells nobody: spans left then stay in the state the final checkpoint writes.
import type { Emit } from '../vocabulary/facts.js';
import type { RequestBuilder } from '../wire/otlp-request.js';
import type { ExportOutcome, OtlpTransport } from './otlp-transport.js';

/** gRPC UNIMPLEMENTED: the collector has no TraceService. */
const GRPC_UNIMPLEMENTED = 12;

/** Who is told when a span it offered leaves the queue for good. */
export interface SpanOwner {
  settled(span: Buffer): void;
}

interface Queued {
  span: Buffer;
  owner: SpanOwner | undefined;
  /** Left the queue (sent, refused or pushed out by the bound). */
  gone?: boolean;
}

export interface SpanExportOptions {
  transport: OtlpTransport;
  /** The traces request builder (otlp-request.ts with signal `traces`). */
  request: RequestBuilder;
  emit: Emit;
  /** Spans per request, and bytes of spans queued at most (the oldest go first beyond it). */
  batchMaxSpans: number;
  maxQueuedBytes: number;
  backoff: { initialMs: number; maxMs: number };
  /** How long to wait before asking again a collector that has no traces pipeline. Default 5 min. */
  unsupportedRetryMs?: number;
  /** Injected for tests; default setTimeout. Returns a cancel function. */
  schedule?: (fn: () => void, ms: number) => () => void;
}

export interface SpanExport {
  /** Queues encoded spans (framed ScopeSpans entries, as encode-span.ts writes them). */
  offer(spans: readonly Buffer[], owner?: SpanOwner): void;
  start(): void;
  /** Sends what is queued until `deadline` (epoch ms), then stops; queued spans left are counted. */
  shutdown(deadline: number): Promise<void>;
  /** Spans waiting (for the status and tests). */
  readonly queued: number;
}

const defaultSchedule = (fn: () => void, ms: number): (() => void) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

export function isNoTracesPipeline(o: ExportOutcome): boolean {
  return o.kind === 'failure' && (o.status === 404 || o.grpcCode === GRPC_UNIMPLEMENTED);
}

export function createSpanExport(o: SpanExportOptions): SpanExport {
  const schedule = o.schedule ?? defaultSchedule;
  const unsupportedRetryMs = o.unsupportedRetryMs ?? 300_000;
  // The queue is an array read from `head`: spans leave from the front at every answer and, when the
  // queue is over its bound, one at a time at every offer; Array#splice(0, n) would move every span
  // behind them each time (quadratic when a slow traces endpoint keeps the queue full).
  let queue: Queued[] = [];
  let head = 0;
  let queuedBytes = 0;
  const size = (): number => queue.length - head;
  let sending: Promise<void> | undefined;
  let cancelWait: (() => void) | undefined;
  let running = false;
  let failures = 0;
  let unsupported = false;

  function kick(): void {
    if (!running || sending !== undefined || cancelWait !== undefined || size() === 0) return;
    sending = sendOne().finally(() => {
      sending = undefined;
      kick();
    });
  }

  function wait(ms: number): void {
    cancelWait = schedule(() => {
      cancelWait = undefined;
      kick();
    }, ms);
  }

  async function sendOne(): Promise<void> {
    const sent = queue.slice(head, head + o.batchMaxSpans);
    const batch = sent.map((q) => q.span);
    const outcome = await o.transport.send(o.request.build(batch), o.request.contentType);
    // While the request was out, the bound may have pushed the oldest of these out already (spans
    // leave only from the front, new ones join at the back): what is left of them is at the front.
    const left = (): number => sent.reduce((n, q) => (q.gone ? n : n + 1), 0);
    if (outcome.kind === 'success') {
      take(left());
      failures = 0;
      if (unsupported) {
        unsupported = false;
        o.emit({ f: 'traces_supported', endpoint: o.transport.url });
      }
      o.emit({ f: 'spans_exported', count: batch.length - outcome.rejected });
      if (outcome.rejected > 0) o.emit({ f: 'spans_dropped', count: outcome.rejected, reason: 'rejected' });
      return;
    }
    if (isNoTracesPipeline(outcome)) {
      if (!unsupported) {
        unsupported = true;
        const said: { status?: number; grpcCode?: number } = {};
        if (outcome.status !== undefined) said.status = outcome.status;
        if (outcome.grpcCode !== undefined) said.grpcCode = outcome.grpcCode;
        o.emit({ f: 'traces_unsupported', endpoint: o.transport.url, retryInMs: unsupportedRetryMs, ...said });
      }
      wait(unsupportedRetryMs);
      return;
    }
    if (outcome.kind === 'failure') {
      // Refused for its content (400, 413, …): retrying the same bytes cannot succeed.
      take(left());
      o.emit({ f: 'spans_dropped', count: batch.length, reason: 'refused' });
      return;
    }
    failures++;
    const backoff = Math.min(o.backoff.maxMs, o.backoff.initialMs * 2 ** Math.min(failures - 1, 20));
    wait(outcome.retryAfterMs ?? backoff);
  }

  /** The first `n` spans leave the queue; their owners are told unless the bridge is shutting down. */
  function take(n: number, tell = true): void {
    const end = Math.min(queue.length, head + n);
    for (; head < end; head++) {
      const q = queue[head]!;
      q.gone = true;
      queuedBytes -= q.span.length;
      if (tell) q.owner?.settled(q.span);
    }
    if (head === queue.length) {
      queue = [];
      head = 0;
    } else if (head >= 4096 && head * 2 >= queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
  }

  return {
    offer(spans, owner) {
      for (const span of spans) {
        queue.push({ span, owner });
        queuedBytes += span.length;
      }
      let dropped = 0;
      while (queuedBytes > o.maxQueuedBytes && size() > 1) {
        take(1);
        dropped++;
      }
      if (dropped > 0) o.emit({ f: 'spans_dropped', count: dropped, reason: 'overflow' });
      kick();
    },
    start() {
      running = true;
      kick();
    },
    async shutdown(deadline) {
      const left = (): number => deadline - Date.now();
      while (sending !== undefined && left() > 0)
        await Promise.race([sending, new Promise((r) => setTimeout(r, Math.max(1, left())).unref())]);
      running = false;
      cancelWait?.();
      cancelWait = undefined;
      if (size() > 0) o.emit({ f: 'spans_dropped', count: size(), reason: 'shutdown' });
      take(size(), false);
    },
    get queued() {
      return size();
    },
  };
}
