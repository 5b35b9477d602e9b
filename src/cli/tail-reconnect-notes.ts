// `tail`'s notes about a stream that broke. The service ends a session by resetting its stream and
// answering 502 until the 404 that says it ended, so a person who followed a session to its end
// was shown "⚠ network error (ECONNRESET)" and "⚠ the service failed (502 …)" right before
// "session ended": a normal end that looked like two failures. Once a stream has been up, the
// first HOLD failures of a reconnect cycle are held back: dropped when the session turns out to
// have ended, named in the "reconnected" line when the stream comes back, and printed as they were
// once the cycle goes on longer (a service that is really down still says so within a few tries).

import type { NoteKind } from './tail-format.js';

/** Failures held back after a stream was up: the reset and the 502 of an ending session. */
export const HOLD = 2;

export class ReconnectNotes {
  private held: Array<[NoteKind, string]> = [];
  private streamed = false;

  constructor(private readonly print: (kind: NoteKind, text: string) => void) {}

  /** A reconnect was scheduled: print `text`, or hold it while the cycle may be a session's end. */
  failed(kind: NoteKind, text: string): void {
    if (this.streamed && kind !== 'error' && this.held.length < HOLD) {
      this.held.push([kind, text]);
      return;
    }
    this.flush();
    this.print(kind, text);
  }

  /** The stream is up again: what was held, as the reason of the reconnect (undefined when nothing was). */
  connected(): string | undefined {
    this.streamed = true;
    const why =
      this.held.length > 0
        ? this.held.map(([, t]) => t.replace(/; reconnecting in .*$/, '')).join(', then ')
        : undefined;
    this.held = [];
    return why;
  }

  /** The session ended: what was held was its way of ending. */
  ended(): void {
    this.held = [];
  }

  private flush(): void {
    for (const [kind, text] of this.held) this.print(kind, text);
    this.held = [];
  }
}
