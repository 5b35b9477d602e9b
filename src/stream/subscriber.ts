// Follows one session's telemetry stream for as long as the session lives.
//
// State machine (spec "Stream telemetry events"; DESIGN.md "Stream rules"):
//
//   connecting ──200 text/event-stream──▶ streaming ──body ends / reset / idle 45 s──▶ backoff ─┐
//      ▲  │                                                                                     │
//      │  ├─404 / 410────────────────────▶ ended   (the session does not exist: it ended)      │
//      │  ├─401──▶ unauthorized (key re-read, long wait)                                        │
//      │  ├─403──▶ forbidden    (long wait)                                                     │
//      │  ├─429──▶ backoff for Retry-After                                                      │
//      │  └─5xx, network error, wrong content type──▶ backoff (exponential, jittered)           │
//      └─────────────────────────────────────────────────────────────────────────────────────────┘
//   any state ──stop()──▶ stopped
//
// A closed stream is not the end: the session may have ended, or a proxy cut the connection. The
// subscriber reconnects with Last-Event-ID and lets the 404 confirm the end. The backoff attempt
// counter resets once a connection delivered frames, so a healthy stream that is cut reconnects fast.
// While the sink applies back-pressure (the spool is full) reading pauses and the idle watchdog
// is off: silence we caused is not a dead connection.
//
// The subscriber owns the session's SequencedStream: it hands out sequenced items (events, gaps,
// duplicates, malformed frames, epoch changes), never raw frames, and tells the stream how each
// connection ended (a clean close means nothing was cut off; the real service resets instead).
import type { Dispatcher } from 'undici';
import type { BackoffConfig } from '../config/schema.js';
import { discard, type StreamPosition, type UpstreamClient } from '../upstream/client.js';
import { describeApiError } from '../upstream/api-error.js';
import { yieldIfDue } from '../util/fair-share.js';
import { backoffDelay } from './backoff.js';
import { createFrameDecoder, type Frame } from './frame-decoder.js';
import type { SequencedStream, StreamItem } from './sequenced-stream.js';
import { networkMessage } from '../util/network-message.js';

export type SubscriberState = 'idle' | 'connecting' | 'streaming' | 'backoff' | 'unauthorized' | 'forbidden' | 'ended' | 'stopped';
export type ReconnectReason = 'closed' | 'idle' | 'network' | 'server_error' | 'rate_limited' | 'unauthorized'
  | 'forbidden' | 'bad_content_type' | 'frame_too_large' | 'http_error';

/** One fact about the connection, reported once. */
export type SubscriberEvent =
  | { type: 'state'; state: SubscriberState; detail?: string }
  | { type: 'reconnect'; reason: ReconnectReason; delayMs: number; detail?: string }
  | { type: 'connected' };

export interface StreamSink {
  /** Items of one chunk, in order. A returned promise pauses reading until it settles (back-pressure, repair). */
  push(items: StreamItem[], observedMicros: number): void | Promise<void>;
  /** The session is over (404 or 410); `items` is what the stream still owes (gaps, an unknown tail). */
  ended(items: StreamItem[], detail: string): Promise<void>;
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
  /** Resolves when stop() is called: a read paused for back-pressure must not outlive a stop. */
  private readonly stopSignal: Promise<void>;
  private signalStop!: () => void;

  constructor(
    private readonly sessionId: string,
    private readonly client: Pick<UpstreamClient, 'openStream' | 'invalidateKey'>,
    private readonly stream: SequencedStream,
    private readonly sink: StreamSink,
    private readonly opts: SubscriberOptions,
  ) {
    this.stopSignal = new Promise((resolve) => (this.signalStop = resolve));
  }

  get currentState(): SubscriberState {
    return this.state;
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
    this.signalStop();
    this.controller?.abort();
    this.wake?.();
    await this.loop;
    if (this.state !== 'ended') this.setState('stopped');
  }

  private setState(s: SubscriberState, detail?: string): void {
    this.state = s;
    this.sink.report(detail === undefined ? { type: 'state', state: s } : { type: 'state', state: s, detail });
  }

  /** Last-Event-ID once the session has a position (spec rule 6); before that the start rule decides. */
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
        await this.retry('bad_content_type', this.nextDelay(), `200 with content type ${result.contentType}, not text/event-stream`);
        continue;
      }
      const detail = describeApiError(result.status, result.error);
      switch (result.status) {
        case 404:
        case 410: {
          // Both mean the session does not exist any more (spec "Errors"): it ended.
          const owed: StreamItem[] = [];
          this.stream.sessionEnded(owed);
          await this.sink.ended(owed, detail);
          this.setState('ended', detail);
          return;
        }
        case 401:
          // The key may have been rotated in its file: re-read it; retry soon once, then slowly.
          this.client.invalidateKey();
          await this.retry('unauthorized', this.attempt++ === 0 ? this.opts.backoff.initialMs : this.opts.backoff.authMs, detail, 'unauthorized');
          break;
        case 403:
          await this.retry('forbidden', this.opts.backoff.authMs, detail, 'forbidden');
          break;
        case 429:
          // Never below initial/2: a Retry-After of 0 or a date in the past must not become a busy loop.
          await this.retry('rate_limited', Math.max(result.retryAfterMs ?? this.nextDelay(), this.opts.backoff.initialMs / 2), detail);
          break;
        default:
          await this.retry(result.status >= 500 ? 'server_error' : 'http_error', this.nextDelay(), detail);
      }
    }
  }

  private nextDelay(): number {
    return backoffDelay(this.opts.backoff, this.attempt++, this.opts.random);
  }

  private async retry(reason: ReconnectReason, delayMs: number, detail?: string, state: SubscriberState = 'backoff'): Promise<void> {
    if (this.stopped) return;
    this.setState(state, detail);
    this.sink.report(detail === undefined ? { type: 'reconnect', reason, delayMs } : { type: 'reconnect', reason, delayMs, detail });
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, delayMs);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
    this.wake = undefined;
  }

  private async read(body: Dispatcher.ResponseData['body'], ac: AbortController): Promise<{ reason: ReconnectReason; detail?: string }> {
    let why: ReconnectReason | undefined;
    const decoder = createFrameDecoder(() => {
      why = 'frame_too_large';
      ac.abort();
    });
    const onIdle = (): void => {
      why = 'idle';
      ac.abort();
    };
    // refresh() does not re-arm a cleared timer, so pausing replaces the timer instead.
    let watchdog = setTimeout(onIdle, this.opts.idleTimeoutMs);
    this.setState('streaming');
    this.stream.newConnection();
    this.sink.report({ type: 'connected' });
    const now = this.opts.now ?? Date.now;
    let clean = false;
    // One array for every chunk, emptied once its frames are delivered. An async function keeps its
    // locals across an await whether or not they are used again, so a fresh array per chunk would
    // hold the chunk's frames (slices of the whole decoded chunk) until the next chunk arrives: with
    // a thousand sessions, long enough to be promoted to the old generation every time.
    const frames: Frame[] = [];
    try {
      for await (const chunk of body) {
        watchdog.refresh();
        decoder.feed(chunk, frames);
        if (frames.length === 0) continue;
        this.attempt = 0;
        const pause = this.deliver(frames, now() * 1000);
        frames.length = 0;
        if (pause) {
          clearTimeout(watchdog);
          await Promise.race([pause, this.stopSignal]);
          watchdog = setTimeout(onIdle, this.opts.idleTimeoutMs);
        }
        const turn = yieldIfDue();
        if (turn) await turn;
        if (this.stopped) return { reason: 'closed', detail: 'stopped' };
      }
      // The body ended without an error: flush what the parser held back (a last frame ending in CR).
      decoder.end(frames);
      if (frames.length > 0) {
        clearTimeout(watchdog);
        const pause = this.deliver(frames, now() * 1000);
        if (pause) await Promise.race([pause, this.stopSignal]);
      }
      clean = true;
      return { reason: 'closed', detail: 'the service closed the stream' };
    } catch (err) {
      if (why === 'idle') return { reason: 'idle', detail: `no bytes for ${this.opts.idleTimeoutMs} ms` };
      if (why === 'frame_too_large') {
        const items: StreamItem[] = [];
        this.stream.frameTooLarge(items);
        const pause = this.sink.push(items, now() * 1000);
        if (pause) await Promise.race([pause, this.stopSignal]);
        return { reason: 'frame_too_large', detail: 'a frame exceeded the size limit' };
      }
      return { reason: 'network', detail: networkMessage(err) };
    } finally {
      this.stream.connectionEnded(clean);
      clearTimeout(watchdog);
      discard(body);
    }
  }

  private deliver(frames: Frame[], observedMicros: number): void | Promise<void> {
    const items: StreamItem[] = [];
    for (const f of frames) this.stream.push(f, items);
    return this.sink.push(items, observedMicros);
  }
}

