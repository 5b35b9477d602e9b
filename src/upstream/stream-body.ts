// The body of a telemetry stream as its reader (stream/connection-reader.ts) sees it: bytes handed
// out one read at a time, a pause that stops reading from the connection, and one end. Two sources
// implement it: a socket of our own (upstream/stream-request.ts: http:// and https:// without a
// proxy) and a node:http response (through a proxy) through readableBody() below.
import { finished, type Readable } from 'node:stream';
import { discard, MAX_ERROR_BODY } from './read-body.js';

export interface StreamBody {
  /**
   * Starts handing out the body: `data` per read (the bytes are valid during the call only: copy
   * what is kept), then `end` once (no error: the body ended cleanly), also when the body ended or
   * failed before start. Called once. `more`: another chunk may follow before the event loop turns
   * (the read filled its buffer, or over TLS carried a whole record, so the socket is read again at
   * once); false when the read emptied the socket, which is about every read of a live stream.
   */
  start(data: (chunk: Buffer, more: boolean) => void, end: (err?: Error) => void): void;
  /** No `data` until resume(); what the peer sends meanwhile waits in the kernel (or in node:http's buffer). */
  pause(): void;
  resume(): void;
  /** Drops the body and its connection; `end` is not called after it. Idempotent. */
  destroy(err?: Error): void;
}

/** A node:http response (or any Readable) as a StreamBody. */
export function readableBody(r: Readable): StreamBody {
  let stopWatching: (() => void) | undefined;
  let onData: ((chunk: Buffer) => void) | undefined;
  let gone = false;
  return {
    start(data, end) {
      // node:http hands out every chunk of a read at once, and cannot say which is the last.
      onData = (chunk: Buffer) => data(chunk, true);
      r.on('data', onData);
      // finished() reports an end, an error or a close before the end exactly once, also when it
      // happened before start (a body destroyed between the answer and here).
      stopWatching = finished(r, (err) => {
        if (gone) return;
        if (onData) r.off('data', onData);
        end(err ?? undefined);
      });
    },
    pause: () => void r.pause(),
    resume: () => void r.resume(),
    destroy(err) {
      if (gone) return;
      gone = true;
      if (onData) r.off('data', onData);
      stopWatching?.();
      if (err) r.on('error', () => {}).destroy(err);
      else discard(r);
    },
  };
}

/**
 * Reads a (small) body as text, giving up after `timeoutMs` or `maxBytes`: an error answer whose
 * body stalls or never ends must not hold a session in "connecting" forever. A node:http answer is
 * read through readableBody(). Never throws: a body cut short keeps what arrived.
 */
export function readCapped(body: StreamBody, timeoutMs: number, maxBytes = MAX_ERROR_BODY): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      clearTimeout(timer);
      body.destroy();
      resolve(Buffer.concat(chunks).toString('utf8').slice(0, maxBytes));
    };
    const timer = setTimeout(done, timeoutMs);
    body.start(
      (chunk) => {
        if (size >= maxBytes) return;
        chunks.push(Buffer.from(chunk));
        size += chunk.length;
        if (size >= maxBytes) done();
      },
      () => done(),
    );
  });
}
