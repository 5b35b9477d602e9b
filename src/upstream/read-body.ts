// Reading the service's response bodies: large JSON pages (the archive's screenshots) with a deadline
// that grows with what arrives, and dropping a body nobody will read (small error bodies, with a cap
// and a deadline: readCapped() in stream-body.ts). Never throws: a body cut short is a value the
// caller decides on.
import type { Readable } from 'node:stream';
import { steadyNow } from '../util/steady-clock.js';

/** An error body or a probe's answer: anything larger is not an error message. */
export const MAX_ERROR_BODY = 64 * 1024;

/**
 * The slowest average a large body may arrive at, after the first `timeoutMs` (the idea of Apache's
 * mod_reqtimeout MinRate): 100 MB of archive page is given 26 minutes, a stalled one is cut.
 */
export const MIN_BODY_RATE = 64 * 1024;

/**
 * Bodies past `aboveBytes` wait for `enter` before more is read (the socket is not read meanwhile,
 * and the wait does not count against the rate): a bound on how many large bodies are held at once.
 */
export interface LargeBodyGate {
  aboveBytes: number;
  enter(): Promise<void>;
}

export interface PacedRead {
  text: string;
  /** Why the body did not arrive whole (a stall below the rate, a reset); undefined when it did. */
  cut: string | undefined;
}

/**
 * Reads a body whose size is not known up front, with a deadline that fits its size: `timeoutMs`
 * plus the time `minBytesPerSecond` needs for what has arrived so far. A body above `maxBytes` is
 * read no further (the caller's cap: what is kept does not parse). Never throws.
 */
export async function readPaced(
  body: Readable,
  o: { timeoutMs: number; maxBytes: number; minBytesPerSecond: number; gate?: LargeBodyGate },
): Promise<PacedRead> {
  const chunks: Buffer[] = [];
  let size = 0;
  let cut: string | undefined;
  // The steady clock: stepped back, the wall clock would hold a stalled body (and its large-page
  // permit) for as long as the step.
  let started = steadyNow();
  const gate = o.gate;
  let gated = gate === undefined;
  let timer: NodeJS.Timeout | undefined;
  const allowedMs = (): number => o.timeoutMs + (size / o.minBytesPerSecond) * 1000;
  const arm = (): void => {
    timer = setTimeout(
      () => {
        const elapsed = steadyNow() - started;
        if (elapsed < allowedMs()) return arm();
        cut = `${size} bytes in ${elapsed} ms, below ${o.minBytesPerSecond} bytes/s after the first ${o.timeoutMs} ms`;
        discard(body);
      },
      Math.max(1, started + allowedMs() - steadyNow()),
    );
  };
  arm();
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      chunks.push(chunk as Buffer);
      if (size >= o.maxBytes) break;
      if (gate !== undefined && !gated && size > gate.aboveBytes) {
        gated = true;
        clearTimeout(timer);
        const waitStart = steadyNow();
        await gate.enter();
        started += steadyNow() - waitStart;
        arm();
      }
    }
  } catch (err) {
    cut ??= (err as Error).message || 'the connection closed';
  } finally {
    clearTimeout(timer);
    discard(body);
  }
  // A destroyed body may end its iteration without an error: the timer's verdict stands.
  return { text: Buffer.concat(chunks).toString('utf8').slice(0, o.maxBytes), cut };
}

/**
 * Drops a response body we will not read. It may still fail after we let go of it (an abort that
 * comes later, a reset): node:http drops an error nobody listens to, but any other Readable (a
 * test's PassThrough) would throw it, uncaught, and take the whole process (every session) down.
 */
export function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}
