// Follows one session's telemetry stream for as long as the session lives.
//
// State machine (docs/service-api.md "Stream telemetry events"):
//
//   connecting ──200 text/event-stream──▶ streaming ──body ends / reset / idle 45 s──▶ backoff ─┐
//      ▲  │                                                                                     │
//      │  ├─404 / 410────────────────────▶ ended   (the session does not exist: it ended)      │
//      │  │   404 before any position: GET /browsers/{id}?include_deleted=true decides ended or │
//      │  │   unknown (never existed); when it cannot be asked, backoff and ask again           │
//      │  ├─401──▶ unauthorized (key re-read, long wait, jittered)                              │
//      │  ├─403──▶ forbidden    (long wait, jittered)                                           │
//      │  ├─429──▶ backoff for Retry-After (plus jitter, never less)                            │
//      │  └─5xx, network error, wrong content type──▶ backoff (exponential, jittered)           │
//      └─────────────────────────────────────────────────────────────────────────────────────────┘
//   any state ──stop()──▶ stopped
//
// A closed stream is not the end: the session may have ended, or a proxy cut the connection. The
// subscriber reconnects with Last-Event-ID and lets the 404 confirm the end. The backoff attempt
// counter resets once a connection delivered frames, or a keepalive after its first seconds, so a
// healthy stream that is cut (an idle one too) reconnects fast.
// While the sink applies back-pressure (the spool is full) reading pauses and the idle watchdog
// is off: silence we caused is not a dead connection (one connection's read is
// stream/connection-reader.ts).
//
// The subscriber owns the session's SequencedStream (it is handed one at construction, and nobody
// else touches it after): it hands out sequenced items (events, gaps, duplicates, malformed frames,
// epoch changes), never raw frames, and tells the stream how each connection ended (a clean close
// means nothing was cut off; the real service resets instead). What its owner needs of the
// position it asks here (lastSeq, unpositioned, setBaseline).
import type { StreamBody } from '../upstream/stream-body.js';
import type { BackoffConfig } from '../config/schema.js';
import type { StreamPosition, UpstreamClient } from '../upstream/client.js';
import { describeApiError } from '../upstream/api-error.js';
import { afterRetryAfter, backoffDelay, spreadWait } from '../util/backoff.js';
import { readConnection, type HoldSlot, type ReadOutcome } from './connection-reader.js';
import type { SequencedStream, StreamItem } from './sequenced-stream.js';
import { networkMessage } from '../util/network-message.js';

import type { ReconnectReason, SubscriberState } from '../vocabulary/session-states.js';

export type { ReconnectReason, SubscriberState } from '../vocabulary/session-states.js';

/** One fact about the connection, reported once. */
export type SubscriberEvent =
  | { type: 'state'; state: SubscriberState; detail?: string }
  /** `attempt`: failed attempts in a row, this one included (1 after a connection that delivered). */
  | { type: 'reconnect'; reason: ReconnectReason; delayMs: number; attempt: number; detail?: string }
  | { type: 'connected' };

export interface StreamSink {
  /** Items of one chunk, in order. A returned promise pauses reading until it settles (back-pressure, repair). */
  push(items: StreamItem[], observedMicros: number): void | Promise<void>;
  /**
   * The session is over (404 or 410); `items` is what the stream still owes (gaps, an unknown tail).
   * `unknown`: the service does not know it at all (it never existed), which is an error, not an end.
   * Resolves `false` when a stop came first and the end was not recorded (it is met again at the
   * next follow): the subscriber then leaves its loop without taking the end as its state.
   */
  ended(items: StreamItem[], detail: string, unknown?: boolean): Promise<void | false>;
  report(ev: SubscriberEvent): void;
}

export interface SubscriberOptions {
  idleTimeoutMs: number;
  backoff: BackoffConfig;
  /** Where a session with no position starts: `oldest` replays the service's buffer. */
  start: 'oldest' | 'latest' | number;
  random?: () => number;
  /** Wall clock in ms (injectable for tests). */
  now?: () => number;
}

export class Subscriber {
  private state: SubscriberState = 'idle';
  private stopped = false;
  private loop: Promise<void> | undefined;
  private controller: AbortController | undefined;
  private wake: (() => void) | undefined;
  private attempt = 0;
  /** The pending hold of a read (back-pressure, a repair): a read held must not outlive a stop. */
  private readonly hold: HoldSlot = { release: undefined };

  constructor(
    private readonly sessionId: string,
    private readonly client: Pick<UpstreamClient, 'openStream' | 'invalidateKey'> &
      Partial<Pick<UpstreamClient, 'getSession' | 'keySource'>>,
    private readonly stream: SequencedStream,
    private readonly sink: StreamSink,
    private readonly opts: SubscriberOptions,
  ) {}

  get currentState(): SubscriberState {
    return this.state;
  }

  /** The last seq handed out (or the position it resumes from). */
  get lastSeq(): number {
    return this.stream.lastSeq;
  }

  /** No position yet: no checkpoint, no event, no baseline. */
  get unpositioned(): boolean {
    return this.stream.unpositioned;
  }

  /** `start: latest` before the first connection: resume after `seq` as if it had been read. */
  setBaseline(seq: number, sourceId?: string): void {
    this.stream.setBaseline(seq, sourceId);
  }

  start(): void {
    if (this.loop) return;
    this.loop = this.run().catch((err: unknown) => {
      // A bug, not a peer's fault: surface it in status rather than crashing every other session.
      this.setState('backoff', `internal error: ${(err as Error).message}`);
    });
  }

  /** Idempotent: aborts the connection or the wait, and resolves when the loop has exited. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.hold.release?.();
    this.controller?.abort();
    this.wake?.();
    await this.loop;
    if (this.state !== 'ended') this.setState('stopped');
  }

  private setState(s: SubscriberState, detail?: string): void {
    this.state = s;
    this.sink.report(detail === undefined ? { type: 'state', state: s } : { type: 'state', state: s, detail });
  }

  /** Last-Event-ID once the session has a position (docs/service-api.md "Stream telemetry events" rule 3); before that the start rule decides. */
  private position(): StreamPosition {
    if (this.stream.lastSeq > 0) return { lastEventId: this.stream.lastSeq, replayAll: false };
    // A new epoch with nothing accepted yet, or `oldest`: from the oldest retained event. `latest`
    // with no baseline asks for new events only, again after a reconnect (history stays skipped).
    return { replayAll: this.opts.start !== 'latest' || this.stream.epoch > 0 };
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.setState('connecting');
      const ac = new AbortController();
      this.controller = ac;
      let result;
      try {
        result = await this.client.openStream(this.sessionId, this.position(), ac.signal);
      } catch (err) {
        if (this.stopped) break;
        await this.retry('network', this.nextDelay(), networkMessage(err));
        continue;
      }
      if (result.kind === 'stream') {
        const outcome = await this.read(result.body, ac);
        if (this.stopped) break;
        await this.retry(outcome.reason, this.nextDelay(), outcome.detail);
        continue;
      }
      if (result.kind === 'bad-content-type') {
        await this.retry(
          'bad_content_type',
          this.nextDelay(),
          `200 with content type ${result.contentType}, not text/event-stream`,
        );
        continue;
      }
      const detail = describeApiError(result.status, result.error);
      switch (result.status) {
        case 404:
        case 410: {
          // Both mean the session does not exist any more (docs/service-api.md "Stream telemetry events" rule 7): it ended. A 404 for a
          // session never seen may also mean it never existed (a mistyped id): the service is asked.
          if (result.status === 404 && this.stream.lastSeq === 0 && this.stream.epoch === 0 && this.client.getSession) {
            const known = await this.known();
            if (this.stopped) break;
            if (known === false) {
              const why = `${detail}; GET /browsers/${this.sessionId}?include_deleted=true is 404 too: the service does not know this session (a mistyped id?)`;
              this.setState('unknown', why);
              await this.sink.ended([], why, true);
              return;
            }
            if (typeof known === 'string') {
              await this.retry(
                'http_error',
                this.nextDelay(),
                `${detail}; cannot ask the service whether the session exists: ${known}`,
              );
              break;
            }
          }
          const owed: StreamItem[] = [];
          this.stream.sessionEnded(owed);
          // Stopped while the sink read what was owed: it did not record the end (session-pipeline.ts),
          // and says so, whether or not stop() has reached this subscriber yet.
          if ((await this.sink.ended(owed, detail)) === false || this.stopped) return;
          this.setState('ended', detail);
          return;
        }
        case 401: {
          // The key may have been rotated in its file: re-read it; retry soon once, then within every
          // upstream.backoff.auth (a minute by default: a rotated file is picked up by then).
          this.client.invalidateKey();
          const hint = `${detail}: the service refuses the API key; check ${this.client.keySource ?? 'BROWSER_API_KEY or BROWSER_API_KEY_FILE'}`;
          await this.retry(
            'unauthorized',
            this.spread(this.attempt++ === 0 ? this.opts.backoff.initialMs : this.opts.backoff.authMs),
            hint,
            'unauthorized',
          );
          break;
        }
        case 403:
          await this.retry('forbidden', this.spread(this.opts.backoff.authMs), detail, 'forbidden');
          break;
        case 429:
          // Never below initial/2: a Retry-After of 0 or a date in the past must not become a busy loop.
          // The service gives every session the same Retry-After; each comes back a little later.
          await this.retry(
            'rate_limited',
            Math.max(
              result.retryAfterMs === undefined
                ? this.nextDelay()
                : afterRetryAfter(result.retryAfterMs, this.opts.backoff.maxMs, this.opts.random),
              this.opts.backoff.initialMs / 2,
            ),
            detail,
          );
          break;
        default:
          await this.retry(result.status >= 500 ? 'server_error' : 'http_error', this.nextDelay(), detail);
      }
    }
  }

  /** Whether the service knows the session (ended ones included); a string when it cannot be asked now. */
  private async known(): Promise<boolean | string> {
    try {
      const r = await this.client.getSession!(this.sessionId, AbortSignal.timeout(this.opts.idleTimeoutMs));
      if (r.kind === 'ok') return true;
      if (r.status === 404) return false;
      return describeApiError(r.status, r.error);
    } catch (err) {
      return networkMessage(err);
    }
  }

  /** A fixed wait, spread (util/backoff.ts): the sessions a refusal hit together must not retry together. */
  private spread(ms: number): number {
    return spreadWait(ms, this.opts.random);
  }

  private nextDelay(): number {
    return backoffDelay(this.opts.backoff, this.attempt++, this.opts.random);
  }

  private async retry(
    reason: ReconnectReason,
    delayMs: number,
    detail?: string,
    state: SubscriberState = 'backoff',
  ): Promise<void> {
    if (this.stopped) return;
    this.setState(state, detail);
    const attempt = Math.max(1, this.attempt);
    this.sink.report(
      detail === undefined
        ? { type: 'reconnect', reason, delayMs, attempt }
        : { type: 'reconnect', reason, delayMs, attempt, detail },
    );
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, delayMs);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
    this.wake = undefined;
  }

  /** One connection's body, read by stream/connection-reader.ts until it ends or the subscriber stops. */
  private read(body: StreamBody, ac: AbortController): Promise<ReadOutcome> {
    this.setState('streaming');
    this.stream.newConnection();
    this.sink.report({ type: 'connected' });
    return readConnection(body, ac, {
      idleTimeoutMs: this.opts.idleTimeoutMs,
      now: this.opts.now ?? Date.now,
      stream: this.stream,
      hold: this.hold,
      push: (items, observedMicros) => this.sink.push(items, observedMicros),
      stopped: () => this.stopped,
      delivered: () => {
        this.attempt = 0;
      },
    });
  }
}
