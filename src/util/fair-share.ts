// Cooperative yielding for the readers of many streams. A stream whose peer has more queued than
// one read takes hands out chunk after chunk without the event loop turning: on the bridge's own
// socket libuv reads a socket again at once while its reads fill the buffer (up to 32 times), and
// a node:http body hands out every chunk of a read synchronously. A burst replayed into a few
// streams could then keep the event loop in one phase for hundreds of milliseconds: commits, export
// requests and their responses, timers and the HTTP surface would wait behind it. So a reader asks
// yieldIfDue() after such a chunk: once a slice of time has passed since the last yield, it waits
// for the next turn of the event loop (setImmediate runs right after pending I/O).
//
// A chunk after which nothing more can follow at once (a read that emptied the socket: about every
// read at full live rate) needs no turn: the event loop goes on to other sockets and timers anyway,
// and holding that stream would only cost a pause, a resume and a promise (at 1,000 sessions × 20
// events/s that was most reads once a poll phase passed the slice).

const SLICE_MS = 4;
/** When the current slice began (performance.now()); the first one, when the process did. */
let sliceStart = 0;
/** The pending turn: every reader due meanwhile waits for the same one (one promise, one immediate). */
let turn: Promise<void> | undefined;

/** Resolves at once within the current slice (undefined: no await needed), else after pending I/O. */
export function yieldIfDue(): Promise<void> | undefined {
  if (turn) return turn;
  if (performance.now() - sliceStart < SLICE_MS) return undefined;
  turn = new Promise((resolve) =>
    setImmediate(() => {
      turn = undefined;
      sliceStart = performance.now();
      resolve();
    }),
  );
  return turn;
}
