// Reads one connection of a session's telemetry stream, from its first byte until it ends, fails or
// the subscriber stops (the `streaming` state of stream/subscriber.ts, whose loop decides what follows).
//
//   reading ──a returned promise (back-pressure, a repair, a fair-share turn)──▶ held ──settles──▶ reading
//      │                                                     │
//      │                                                     └─the body ended meanwhile: acted on once released
//      ├─body ends cleanly──▶ the decoder's held-back frame delivered ──▶ closed (clean)
//      ├─idle watchdog / a frame over the limit (abort, once the chunk's frames are out)──▶ idle / frame_too_large
//      ├─error, reset──▶ network
//      └─stop() (releases the hold)──▶ closed "stopped"
//
// Driven by the body's callbacks (upstream/stream-body.ts) rather than `for await`: an async
// iterator costs a chain of promises, closures and contexts per chunk that lives until the next
// chunk, and with a thousand live sessions that is tens of milliseconds, long enough to be promoted
// to the old generation every time. Here a chunk costs one callback. A chunk is the body's bytes of
// one socket read, valid during the callback only (the decoder copies what a frame keeps): on the
// bridge's own socket (upstream/stream-request.ts) it lies in a buffer every session of the thread
// reads into, and a hold stops that socket before its next read.
import type { StreamBody } from '../upstream/stream-body.js';
import { yieldIfDue } from '../util/fair-share.js';
import { noteRead } from '../util/read-pacing.js';
import { networkMessage } from '../util/network-message.js';
import type { ReconnectReason } from '../vocabulary/session-states.js';
import { createFrameDecoder, type Frame } from './frame-decoder.js';
import { IdleWatchdog } from './idle-watchdog.js';
import type { SequencedStream, StreamItem } from './sequenced-stream.js';

/** How a connection ended, for the subscriber's backoff. */
export interface ReadOutcome {
  reason: ReconnectReason;
  detail?: string;
}

/**
 * The pending hold of a read, if any. The subscriber's stop() calls `release` so a read held must
 * not outlive a stop. One hook, replaced per hold, rather than a race with a stop promise: every race
 * would leave a reaction on that promise for as long as the session lives.
 */
export interface HoldSlot {
  release: (() => void) | undefined;
}

/** What a connection's reader needs of the subscriber that opened it. */
export interface ConnectionHost {
  readonly idleTimeoutMs: number;
  /** Wall clock in ms. */
  readonly now: () => number;
  readonly stream: SequencedStream;
  readonly hold: HoldSlot;
  /** Items of one chunk, in order; a returned promise holds reading until it settles. */
  push(items: StreamItem[], observedMicros: number): void | Promise<void>;
  stopped(): boolean;
  /** The connection delivered frames, or a keepalive once it lived a while: the backoff attempt counter starts over. */
  delivered(): void;
}

/** A comment on a connection younger than this does not reset the backoff attempts (see onData). */
export const KEEPALIVE_TRUSTED_AFTER_MS = 5000;

/**
 * Reads one connection's body until it ends, fails or the subscriber stops.
 *
 * Reading is held (body paused) while a returned promise is pending: back-pressure from the spool,
 * a gap repaired from the archive, or a turn given to other streams (fair-share.ts). Whatever
 * happens to the connection meanwhile (an error, an abort) is acted on only once the hold is over,
 * so the items of this connection are all handed out before the next connection's.
 */
export function readConnection(body: StreamBody, ac: AbortController, host: ConnectionHost): Promise<ReadOutcome> {
  let why: ReconnectReason | undefined;
  // The abort waits until the frames decoded before the overflow are handed out and no hold of this
  // chunk is pending: aborting inside feed() ended the body at once, and the gap's repair then held
  // the reader while the rest of the chunk took a hold of its own over it (a fair-share turn), so the
  // repair's release found its hold replaced, the read never ended and a stop waited for it for ever.
  const decoder = createFrameDecoder(() => {
    why = 'frame_too_large';
  });
  /** Ends the connection once a frame overflowed; true when it did. */
  const abortIfOverflowed = (): boolean => {
    if (why !== 'frame_too_large') return false;
    ac.abort();
    return true;
  };
  const watchdog = new IdleWatchdog(host.idleTimeoutMs, () => {
    why = 'idle';
    ac.abort();
  });
  const { stream, now } = host;
  const openedAt = now();
  // One array for every chunk, emptied once its frames are delivered: nothing of a chunk stays
  // reachable from here until the next one.
  const frames: Frame[] = [];
  const deliver = (): void | Promise<void> => {
    const items: StreamItem[] = [];
    for (const f of frames) stream.push(f, items);
    const pause = host.push(items, now() * 1000);
    frames.length = 0;
    return pause;
  };

  return new Promise<ReadOutcome>((resolve) => {
    let settled = false;
    /** How the connection ended, when it ended during a hold: acted on once the hold is over. */
    let endedDuringHold: (() => void) | undefined;

    const finish = (outcome: ReadOutcome, clean = false): void => {
      if (settled) return;
      settled = true;
      stream.connectionEnded(clean);
      watchdog.stop();
      body.destroy();
      resolve(outcome);
    };
    const stopped = (): void => finish({ reason: 'closed', detail: 'stopped' });

    /**
     * Stops reading until `wait` settles (or stop() is called), then `then` goes on. A long wait
     * (back-pressure, a repair) stops the idle watchdog too: silence we caused is not a dead peer.
     */
    const hold = (wait: Promise<void>, then: () => void, long: boolean): void => {
      if (host.stopped()) return stopped();
      body.pause();
      if (long) watchdog.pause();
      /** Ends this hold; false when it was over already (released by stop(), or it failed). */
      const end = (): boolean => {
        if (host.hold.release !== release) return false;
        host.hold.release = undefined;
        return true;
      };
      const release = (): void => {
        if (!end()) return;
        if (host.stopped()) return stopped();
        const ended = endedDuringHold;
        endedDuringHold = undefined;
        if (ended) return ended();
        if (long) watchdog.resume();
        then();
      };
      host.hold.release = release;
      wait.then(release, (err: unknown) => {
        if (end()) finish({ reason: 'network', detail: `internal error: ${(err as Error).message}` });
      });
    };
    const resume = (): void => {
      if (!abortIfOverflowed()) body.resume();
    };

    const onData = (chunk: Buffer, more: boolean): void => {
      // A paused body emits nothing: no chunk arrives while a hold is pending.
      try {
        noteRead(more);
        watchdog.touch();
        const comments = decoder.comments;
        decoder.feed(chunk, frames);
        // A keepalive is the service's own word that the stream works, as a frame is: an idle
        // session whose connections a proxy cuts now and then must not climb to backoff.max. Only
        // on a connection that lived a while: the service's first keepalive comes 15 s in, while a
        // proxy that writes a comment as it opens a stream it then fails at once (some pad or
        // greet every SSE response) would otherwise reconnect at the initial backoff for ever.
        if (frames.length > 0 || (decoder.comments !== comments && now() - openedAt >= KEEPALIVE_TRUSTED_AFTER_MS)) {
          host.delivered();
        }
        if (frames.length > 0) {
          const pause = deliver();
          if (pause) return hold(pause, resume, true);
        }
        if (abortIfOverflowed()) return;
        if (host.stopped()) return stopped();
        // Only a chunk that more may follow at once can keep the event loop from turning.
        const turn = more ? yieldIfDue() : undefined;
        if (turn) hold(turn, resume, false);
      } catch (err) {
        // A bug downstream, not the peer's fault: this connection ends and the next one resumes.
        finish({ reason: 'network', detail: `internal error: ${(err as Error).message}` });
      }
    };

    const endedCleanly = (): void => {
      // A frame overflowed and the body ended before the abort came (during a hold): still that gap.
      if (why === 'frame_too_large') return failed(new Error('a frame exceeded the size limit'));
      // The body ended without an error: flush what the parser held back (a last frame ending in CR).
      decoder.end(frames);
      const done = (): void => finish({ reason: 'closed', detail: 'the service closed the stream' }, true);
      if (frames.length === 0) return done();
      const pause = deliver();
      if (pause) hold(pause, done, true);
      else done();
    };

    const failed = (err: Error): void => {
      if (why === 'idle') return finish({ reason: 'idle', detail: `no bytes for ${host.idleTimeoutMs} ms` });
      if (why === 'frame_too_large') {
        const items: StreamItem[] = [];
        stream.frameTooLarge(items);
        const done = (): void => finish({ reason: 'frame_too_large', detail: 'a frame exceeded the size limit' });
        const pause = host.push(items, now() * 1000);
        if (pause) return hold(pause, done, true);
        return done();
      }
      finish({ reason: 'network', detail: networkMessage(err) });
    };

    // The body reports an end, an error or a close before the end exactly once, also when it
    // happened before this read began (a body destroyed between the answer and here).
    body.start(onData, (err) => {
      if (settled) return;
      const ended = (): void => (err ? failed(err) : endedCleanly());
      if (host.hold.release !== undefined) endedDuringHold = ended;
      else ended();
    });
    if (host.stopped()) stopped();
  });
}
