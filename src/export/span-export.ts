// Delivery of spans (docs/traces.md), beside the records' and never in their way: spans wait in a
// bounded queue of their own, go out in batches to /v1/traces (gRPC TraceService/Export) on their
// own transport, and nothing a traces endpoint answers can hold a record back.
//
// States: *idle* (queue empty) → *sending* (up to `concurrency` requests in flight, each carrying
// spans no other request carries) → back to idle, or to *backing off* after a retryable answer
// (429, 5xx, network: the Retry-After, or the exponential backoff, which a later success ends), or to *unsupported* when the
// collector has no traces pipeline (HTTP 404, gRPC UNIMPLEMENTED): said once (traces_unsupported),
// the spans kept, and tried again after `unsupportedRetryMs`, or at once when a request still out
// comes back a success (with no span left to ask with, an empty request asks, as `check` does);
// the first success says so (traces_supported). Any other failure that is not about the spans' content (401, 403, 500, a
// gRPC UNAUTHENTICATED…: a collector or configuration problem an operator fixes) backs off like a
// retryable answer, as records do (docs/operations.md "Collector answers"): dropping there would
// lose every span for as long as a credential is wrong. While backing off or unsupported no new
// request starts, and the batches answered "later" go out first when the wait ends. A batch the
// collector refuses as too large (413, gRPC RESOURCE_EXHAUSTED without RetryInfo) is sent again in
// halves, and a span refused alone is dropped; a batch refused as invalid (400, INVALID_ARGUMENT)
// is dropped whole, since a collector that refuses everything would otherwise get one request per
// span. Drops are counted, as is the oldest span when the queue is over its bound.
//
// Each span may come with its owner (the session's tap), told when the span leaves the queue for
// good: acknowledged, refused or dropped. What the owner has not been told of is carried in the
// session's stored span state, so a kill -9 loses no span (docs/traces.md "After a crash");
// shutdown() tells nobody: spans left then stay in the state the final checkpoint writes.
import type { Emit, SpanDropReason } from '../vocabulary/facts.js';
import { steadyNow } from '../util/steady-clock.js';
import type { RequestBuilder } from '../wire/otlp-request.js';
import { rejectedWithin } from '../wire/partial-success.js';
import { sendOutcome, type ExportOutcome, type OtlpTransport } from './otlp-transport.js';
import { createOverflowNotice } from './overflow-notice.js';
import { createSpanWait } from './span-wait.js';
import { failureText } from './outcome-label.js';

/** How long spans wait before a collector without a traces pipeline is asked again (`traces.unsupported_retry`). */
export const UNSUPPORTED_RETRY_MS = 300_000;

/** gRPC UNIMPLEMENTED: the collector has no TraceService. */
const GRPC_UNIMPLEMENTED = 12;
/** gRPC RESOURCE_EXHAUSTED without RetryInfo (a retryable one never gets here): a message over the server's size. */
const GRPC_RESOURCE_EXHAUSTED = 8;

/** Who is told when a span it offered leaves the queue for good. */
export interface SpanOwner {
  settled(span: Buffer): void;
}

/** What a gone span's entry holds instead of its bytes. */
const GONE = Buffer.alloc(0);

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
  /**
   * Requests in flight at once (the exporter's `concurrency`; default 1). One request at a time
   * cannot keep up with a busy bridge, and every span not acknowledged yet is carried in its
   * session's stored state, rewritten with each checkpoint: the fewer wait, the less is written.
   */
  concurrency?: number;
  /** Spans per request, and bytes of spans queued at most (the oldest go first beyond it). */
  batchMaxSpans: number;
  maxQueuedBytes: number;
  backoff: { initialMs: number; maxMs: number };
  /** How long to wait before asking again a collector that has no traces pipeline (`traces.unsupported_retry`). Default 5 min. */
  unsupportedRetryMs?: number;
  /**
   * How long spans no request has carried wait for more to fill a batch (0: sent as they come).
   * Sent as they came, a busy bridge's spans went out one or two per request, about 300 requests a
   * second beside the records' 25, and each request costs the main thread and the collector about
   * what a full one does.
   */
  lingerMs?: number;
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
  /** Their bytes, which `maxQueuedBytes` bounds. */
  readonly queuedBytes: number;
  /**
   * The last failed request in the words the records' delivery uses (outcome-label.ts failureText:
   * `timeout after 10 s`, `HTTP 503: …`, `UNAVAILABLE: …`, `network: ECONNREFUSED`), for /readyz,
   * `top` and `check` (`no traces pipeline: HTTP 404: …` for a collector without one); undefined
   * once a request succeeds again.
   */
  readonly lastError: string | undefined;
}

const defaultSchedule = (fn: () => void, ms: number): (() => void) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

/** The HTTP status and gRPC code a failed answer carried, for its fact: the ones it did not carry left out. */
function answerCodes(o: Exclude<ExportOutcome, { kind: 'success' }>): { status?: number; grpcCode?: number } {
  const said: { status?: number; grpcCode?: number } = {};
  if (o.status !== undefined) said.status = o.status;
  if (o.grpcCode !== undefined) said.grpcCode = o.grpcCode;
  return said;
}

export function isNoTracesPipeline(o: ExportOutcome): boolean {
  return o.kind === 'failure' && (o.status === 404 || o.grpcCode === GRPC_UNIMPLEMENTED);
}

export function createSpanExport(o: SpanExportOptions): SpanExport {
  const schedule = o.schedule ?? defaultSchedule;
  const unsupportedRetryMs = o.unsupportedRetryMs ?? UNSUPPORTED_RETRY_MS;
  const concurrency = Math.max(1, o.concurrency ?? 1);
  let lingerMs = Math.max(0, o.lingerMs ?? 0);
  // The queue is an array read from `head` (the oldest span not gone) and `next` (the first span no
  // request has carried yet): spans leave from the front when the bound pushes them out and, when
  // answers come back, wherever their request took them; Array#splice would move every span behind
  // them each time (quadratic when a slow traces endpoint keeps the queue full).
  let queue: Queued[] = [];
  let head = 0;
  let next = 0;
  let live = 0;
  let queuedBytes = 0;
  // Batches sent and answered with "later" (retryable, no traces pipeline): sent again first.
  const again: Queued[][] = [];
  const inFlight = new Set<Promise<void>>();
  const waiting = createSpanWait(schedule, kick);
  // Lingering: fresh spans short of a batch wait until the timer fires (then `flushDue` sends them
  // whatever their number, until none is left unsent) or until shutdown, which flushes at once.
  let cancelLinger: (() => void) | undefined;
  let flushDue = false;
  let running = false;
  let failures = 0;
  let unsupported = false;
  let stopping = false;
  let lastError: string | undefined;
  /** Drops so far, by reason: how often a drop's line is said (fact-log-lines.ts). */
  const drops: Partial<Record<SpanDropReason, number>> = {};
  const overflowFact = createOverflowNotice(o.maxQueuedBytes, steadyNow);

  function dropped(count: number, reason: SpanDropReason, error?: string): void {
    const times = (drops[reason] = (drops[reason] ?? 0) + 1);
    o.emit(
      error === undefined
        ? { f: 'spans_dropped', count, reason, times }
        : { f: 'spans_dropped', count, reason, times, error },
    );
  }

  /** The next batch to send: one answered "later" first, then spans no request has carried. */
  function nextBatch(): Queued[] | undefined {
    while (again.length > 0) {
      const batch = again.shift()!.filter((q) => !q.gone);
      if (batch.length > 0) return batch;
    }
    next = Math.max(next, head);
    if (next === queue.length) {
      flushDue = false;
      return undefined;
    }
    if (!flushDue && lingerMs > 0 && queue.length - next < o.batchMaxSpans) {
      cancelLinger ??= schedule(() => {
        cancelLinger = undefined;
        flushDue = true;
        kick();
      }, lingerMs);
      return undefined;
    }
    const batch: Queued[] = [];
    while (next < queue.length && batch.length < o.batchMaxSpans) {
      const q = queue[next++]!;
      if (!q.gone) batch.push(q);
    }
    if (next === queue.length) flushDue = false;
    return batch.length > 0 ? batch : undefined;
  }

  function kick(): void {
    while (running && !waiting.standing && inFlight.size < concurrency) {
      const batch = nextBatch() ?? probe();
      if (batch === undefined) return;
      const p: Promise<void> = sendOne(batch).finally(() => {
        inFlight.delete(p);
        kick();
      });
      inFlight.add(p);
    }
  }

  /**
   * No span left to ask with while the collector is taken to have no traces pipeline (the retry was
   * refused and dropped): an empty request asks, as `check` does, or bridge_traces_unsupported would
   * say 1 for as long as no span comes, pipeline added or not.
   */
  function probe(): Queued[] | undefined {
    return unsupported && !stopping && live === 0 && inFlight.size === 0 ? [] : undefined;
  }

  async function sendOne(sent: Queued[]): Promise<void> {
    const batch = sent.map((q) => q.span);
    const outcome = await sendOutcome(o.transport, o.request.build(batch), o.request.contentType);
    if (outcome.kind === 'success') {
      lastError = undefined;
      // While the request was out, the bound may have pushed some of these out already (and told
      // their owner): only what is left of them leaves now.
      settle(sent);
      if (failures > 0) o.emit({ f: 'spans_export_recovered', endpoint: o.transport.url });
      failures = 0;
      // Its answer came after another's failure started the backoff, or the wait for a traces
      // pipeline that this answer shows is there now: the spans waiting go now (kick, once this
      // request is off the books), not after up to exporter.backoff.max or traces.unsupported_retry.
      waiting.succeeded();
      if (unsupported) {
        unsupported = false;
        o.emit({ f: 'traces_supported', endpoint: o.transport.url });
      }
      if (sent.length === 0) return; // the probe: no span to count
      const rejected = rejectedWithin(batch.length, outcome.rejected);
      o.emit({ f: 'spans_exported', count: batch.length - rejected });
      if (rejected > 0) dropped(rejected, 'rejected', outcome.message);
      return;
    }
    // Every other answer is a failure, said as the records' delivery says it (batch-export.ts); a
    // missing traces pipeline with its cause first: a bare 404 on /readyz or in `top` sent
    // operators looking for a wrong URL.
    lastError = failureText(outcome);
    if (isNoTracesPipeline(outcome)) {
      lastError = `no traces pipeline: ${lastError}`;
      again.push(sent);
      if (!unsupported) {
        unsupported = true;
        o.emit({
          f: 'traces_unsupported',
          endpoint: o.transport.url,
          retryInMs: unsupportedRetryMs,
          ...answerCodes(outcome),
        });
      }
      waiting.start(unsupportedRetryMs, 'pipeline');
      return;
    }
    if (sent.length === 0) {
      // The probe's other failures say nothing of a pipeline and carry nothing to halve or drop: it
      // asks again after the same wait, never at once (a collector refusing it would be a busy loop).
      waiting.start(unsupportedRetryMs, 'pipeline');
      return;
    }
    const tooLarge =
      outcome.kind === 'failure' && (outcome.refused === 'too_large' || outcome.grpcCode === GRPC_RESOURCE_EXHAUSTED);
    if (tooLarge && sent.length > 1) {
      // The request's size is what was refused: halves go out first, at once.
      const mid = sent.length >> 1;
      again.unshift(sent.slice(0, mid), sent.slice(mid));
      return;
    }
    if (outcome.kind === 'failure' && (outcome.refused !== undefined || tooLarge)) {
      // Refused for its content: the same bytes would be refused again.
      settle(sent);
      dropped(batch.length, 'refused', outcome.message);
      return;
    }
    again.push(sent);
    failures++;
    const backoff = Math.min(o.backoff.maxMs, o.backoff.initialMs * 2 ** Math.min(failures - 1, 20));
    // Never sooner than the backoff: a Retry-After of 0 or a date in the past must not become a busy loop.
    const delayMs = Math.max(outcome.kind === 'retryable' ? (outcome.retryAfterMs ?? 0) : 0, backoff);
    o.emit({
      f: 'spans_export_failed',
      endpoint: o.transport.url,
      ...answerCodes(outcome),
      spans: sent.length,
      attempt: failures,
      delayMs,
      error: outcome.message,
    });
    waiting.start(
      delayMs,
      outcome.kind === 'retryable' && outcome.retryAfterMs !== undefined ? 'retry_after' : 'backoff',
    );
  }

  /** A span leaves the queue for good; its owner is told unless the bridge is shutting down. */
  function leave(q: Queued, tell = true): void {
    if (q.gone) return;
    q.gone = true;
    live--;
    queuedBytes -= q.span.length;
    if (tell) q.owner?.settled(q.span);
    // The entry may stay a while (the array's gone prefix, a batch answered "later"): not its bytes,
    // or a queue full under a long refusal keeps up to twice its bound alive.
    q.span = GONE;
    q.owner = undefined;
  }

  function settle(sent: readonly Queued[]): void {
    for (const q of sent) leave(q);
    advance();
  }

  /** Moves `head` past the spans gone, and drops the array's gone prefix once it is large. */
  function advance(): void {
    while (head < queue.length && queue[head]!.gone) head++;
    if (head === queue.length) {
      queue = [];
      head = 0;
      next = 0;
    } else if (head >= 4096 && head * 2 >= queue.length) {
      queue = queue.slice(head);
      next = Math.max(0, next - head);
      head = 0;
    }
  }

  return {
    offer(spans, owner) {
      for (const span of spans) {
        queue.push({ span, owner });
        queuedBytes += span.length;
        live++;
      }
      let over = 0;
      while (queuedBytes > o.maxQueuedBytes && live > 1) {
        leave(queue[head]!);
        advance();
        over++;
      }
      // Said now and then (overflow-notice.ts), with why the queue is full: the last failure.
      if (over > 0) o.emit(overflowFact(over, lastError));
      kick();
    },
    start() {
      running = true;
      kick();
    },
    async shutdown(deadline) {
      stopping = true; // no probe: it would hold the grace period for no span
      cancelLinger?.(); // what lingers goes out now, with the rest
      cancelLinger = undefined;
      flushDue = true;
      lingerMs = 0;
      // A backoff of the bridge's own would sleep through the grace period: one more try (a Retry-After, or the wait for a pipeline, holds).
      waiting.endBackoff();
      kick();
      const left = (): number => deadline - steadyNow();
      while (inFlight.size > 0 && left() > 0)
        await Promise.race([...inFlight, new Promise((r) => setTimeout(r, Math.max(1, left())).unref())]);
      running = false;
      waiting.cancel();
      if (live > 0) dropped(live, 'shutdown');
      for (let i = head; i < queue.length; i++) leave(queue[i]!, false);
      advance();
      again.length = 0;
    },
    get queued() {
      return live;
    },
    get queuedBytes() {
      return queuedBytes;
    },
    get lastError() {
      return lastError;
    },
  };
}
