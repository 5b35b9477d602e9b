// Follows one session's telemetry stream for as long as the session lives.
//
// State machine (docs/service-api.md "Stream telemetry events"):
//
//   connecting ──200 text/event-stream──▶ streaming ──body ends / reset / idle 45 s──▶ backoff ─┐
//      ▲  │                                                                                     │
//      │  ├─404 / 410────────────────────▶ ended   (the session does not exist: it ended)      │
//      │  │   404 before any position: GET /browsers/{id}?include_deleted=true decides ended or │
//      │  │   unknown (never existed); when it cannot be asked, backoff and ask again           │
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
// The subscriber owns the session's SequencedStream (it is handed one at construction, and nobody
// else touches it after): it hands out sequenced items (events, gaps, duplicates, malformed frames,
// epoch changes), never raw frames, and tells the stream how each connection ended (a clean close
// means nothing was cut off; the real service resets instead). What its owner needs of the
// position it asks here (lastSeq, unpositioned, setBaseline).
import { finished, type Readable } from 'node:stream';
import type { BackoffConfig } from '../config/schema.js';
import { discard, type StreamPosition, type UpstreamClient } from '../upstream/client.js';
import { describeApiError } from '../upstream/api-error.js';
import { yieldIfDue } from '../util/fair-share.js';
import { backoffDelay } from '../util/backoff.js';
import { createFrameDecoder, type Frame } from './frame-decoder.js';
import { IdleWatchdog } from './idle-watchdog.js';
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

type ReadOutcome = { reason: ReconnectReason; detail?: string };

export interface StreamSink {
  /** Items of one chunk, in order. A returned promise pauses reading until it settles (back-pressure, repair). */
  push(items: StreamItem[], observedMicros: number): void | Promise<void>;
  /**
   * The session is over (404 or 410); `items` is what the stream still owes (gaps, an unknown tail).
   * `unknown`: the service does not know it at all (it never existed), which is an error, not an end.
   */
  ended(items: StreamItem[], detail: string, unknown?: boolean): Promise<void>;
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
  /**
   * Ends the pending hold of a read (back-pressure, a repair): a read held must not outlive a stop.
   * One hook, replaced per hold, rather than a race with a stop promise: every race would leave a
   * reaction on that promise for as long as the session lives.
   */
  private releaseHold: (() => void) | undefined;

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
    this.releaseHold?.();
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
          await this.sink.ended(owed, detail);
          this.setState('ended', detail);
          return;
        }
        case 401: {
          // The key may have been rotated in its file: re-read it; retry soon once, then every
          // upstream.backoff.auth (a minute by default: a rotated file is picked up by then).
          this.client.invalidateKey();
          const hint = `${detail}: the service refuses the API key; check ${this.client.keySource ?? 'BROWSER_API_KEY or BROWSER_API_KEY_FILE'}`;
          await this.retry(
            'unauthorized',
            this.attempt++ === 0 ? this.opts.backoff.initialMs : this.opts.backoff.authMs,
            hint,
            'unauthorized',
          );
          break;
        }
        case 403:
          await this.retry('forbidden', this.opts.backoff.authMs, detail, 'forbidden');
          break;
        case 429:
          // Never below initial/2: a Retry-After of 0 or a date in the past must not become a busy loop.
          await this.retry(
            'rate_limited',
            Math.max(result.retryAfterMs ?? this.nextDelay(), this.opts.backoff.initialMs / 2),
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

  /**
   * Reads one connection's body until it ends, fails or the subscriber stops.
   *
   * Driven by the body's `data` events rather than `for await`: an async iterator costs a chain of
   * promises, closures and contexts per chunk that lives until the next chunk, and with a thousand
   * live sessions that is tens of milliseconds, long enough to be promoted to the old generation
   * every time. Here a chunk costs one callback.
   *
   * Reading is held (body paused) while a returned promise is pending: back-pressure from the spool,
   * a gap repaired from the archive, or a turn given to other streams (fair-share.ts). Whatever
   * happens to the connection meanwhile (an error, an abort) is acted on only once the hold is over,
   * so the items of this connection are all handed out before the next connection's.
   */
  private read(body: Readable, ac: AbortController): Promise<ReadOutcome> {
    let why: ReconnectReason | undefined;
    const decoder = createFrameDecoder(() => {
      why = 'frame_too_large';
      ac.abort();
    });
    const watchdog = new IdleWatchdog(this.opts.idleTimeoutMs, () => {
      why = 'idle';
      ac.abort();
    });
    this.setState('streaming');
    this.stream.newConnection();
    this.sink.report({ type: 'connected' });
    const now = this.opts.now ?? Date.now;
    // One array for every chunk, emptied once its frames are delivered: nothing of a chunk stays
    // reachable from here until the next one.
    const frames: Frame[] = [];

    return new Promise<ReadOutcome>((resolve) => {
      let settled = false;
      /** How the connection ended, when it ended during a hold: acted on once the hold is over. */
      let endedDuringHold: (() => void) | undefined;

      const finish = (outcome: ReadOutcome, clean = false): void => {
        if (settled) return;
        settled = true;
        body.off('data', onData);
        stopWatching();
        this.stream.connectionEnded(clean);
        watchdog.stop();
        discard(body);
        resolve(outcome);
      };
      const stopped = (): void => finish({ reason: 'closed', detail: 'stopped' });

      /**
       * Stops reading until `wait` settles (or stop() is called), then `then` goes on. A long wait
       * (back-pressure, a repair) stops the idle watchdog too: silence we caused is not a dead peer.
       */
      const hold = (wait: Promise<void>, then: () => void, long: boolean): void => {
        if (this.stopped) return stopped();
        body.pause();
        if (long) watchdog.pause();
        /** Ends this hold; false when it was over already (released by stop(), or it failed). */
        const end = (): boolean => {
          if (this.releaseHold !== release) return false;
          this.releaseHold = undefined;
          return true;
        };
        const release = (): void => {
          if (!end()) return;
          if (this.stopped) return stopped();
          const ended = endedDuringHold;
          endedDuringHold = undefined;
          if (ended) return ended();
          if (long) watchdog.resume();
          then();
        };
        this.releaseHold = release;
        wait.then(release, (err: unknown) => {
          if (end()) finish({ reason: 'network', detail: `internal error: ${(err as Error).message}` });
        });
      };
      const resume = (): void => void body.resume();

      const onData = (chunk: Buffer): void => {
        // A paused body emits nothing: no chunk arrives while a hold is pending.
        try {
          watchdog.touch();
          decoder.feed(chunk, frames);
          if (frames.length > 0) {
            this.attempt = 0;
            const pause = this.deliver(frames, now() * 1000);
            frames.length = 0;
            if (pause) return hold(pause, resume, true);
          }
          if (this.stopped) return stopped();
          const turn = yieldIfDue();
          if (turn) hold(turn, resume, false);
        } catch (err) {
          // A bug downstream, not the peer's fault: this connection ends and the next one resumes.
          finish({ reason: 'network', detail: `internal error: ${(err as Error).message}` });
        }
      };

      const endedCleanly = (): void => {
        // The body ended without an error: flush what the parser held back (a last frame ending in CR).
        decoder.end(frames);
        const done = (): void => finish({ reason: 'closed', detail: 'the service closed the stream' }, true);
        if (frames.length === 0) return done();
        const pause = this.deliver(frames, now() * 1000);
        frames.length = 0;
        if (pause) hold(pause, done, true);
        else done();
      };

      const failed = (err: Error): void => {
        if (why === 'idle') return finish({ reason: 'idle', detail: `no bytes for ${this.opts.idleTimeoutMs} ms` });
        if (why === 'frame_too_large') {
          const items: StreamItem[] = [];
          this.stream.frameTooLarge(items);
          const done = (): void => finish({ reason: 'frame_too_large', detail: 'a frame exceeded the size limit' });
          const pause = this.sink.push(items, now() * 1000);
          if (pause) return hold(pause, done, true);
          return done();
        }
        finish({ reason: 'network', detail: networkMessage(err) });
      };

      body.on('data', onData);
      // finished() reports an end, an error or a close before the end exactly once, also when it
      // happened before this read began (a body destroyed between the answer and here).
      const stopWatching = finished(body, (err) => {
        if (settled) return;
        const ended = (): void => (err ? failed(err) : endedCleanly());
        if (this.releaseHold !== undefined) endedDuringHold = ended;
        else ended();
      });
      if (this.stopped) stopped();
    });
  }

  private deliver(frames: Frame[], observedMicros: number): void | Promise<void> {
    const items: StreamItem[] = [];
    for (const f of frames) this.stream.push(f, items);
    return this.sink.push(items, observedMicros);
  }
}
