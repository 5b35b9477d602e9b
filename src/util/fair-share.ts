// Cooperative yielding for the readers of many streams, and paced reads while the thread is busy.
//
// Turns. A stream whose peer has more queued than one read takes hands out chunk after chunk
// without the event loop turning: on the bridge's own socket libuv reads a socket again at once
// while its reads fill the buffer (up to 32 times), and a node:http body hands out every chunk of a
// read synchronously. A burst replayed into a few streams could then keep the event loop in one
// phase for hundreds of milliseconds: commits, export requests and their responses, timers and the
// HTTP surface would wait behind it. So once a slice of time has passed since the loop last turned,
// such a reader waits for the next turn (setImmediate runs right after pending I/O).
//
// Pacing. A read that emptied its socket needs no turn: the event loop goes on to the other sockets
// anyway. But at full rate (1,000 sessions × 20 events/s) that is about one event per read, and what
// a read costs beside its events (the callback into JavaScript, the HTTP and SSE parsers' entry, the
// hand-over of a chunk, the system calls) was as much as a third of the worker's CPU: runs where
// events arrived in bunches cost 39–41 µs of bridge CPU an event against 52–55. So while the loop is
// busy (its phase passed the slice), such a stream is not read again before PACE_MS: its next read
// finds several events in the kernel. An idle thread reads at once: pacing costs latency only where
// the events would otherwise wait in a queue of sockets behind a busy thread.
//
// Every reader due meanwhile waits on the same promise (one turn, one pace), not one each.

const SLICE_MS = 4;
/** How long a busy thread leaves a stream that it just emptied: at 20 events/s, two events or so a read. */
export const PACE_MS = 50;
/**
 * The phase of the event loop the reads are in: it begins with the first read after the loop last
 * turned (that read asks for an immediate, which ends the phase). A quiet thread's reads each begin
 * a phase of their own, so they are never held.
 */
let inPhase = false;
let phaseStart = 0;
/** The turn readers wait on, made only when one has to. */
let turn: Promise<void> | undefined;
let endTurn: (() => void) | undefined;
/** The pending pace: the streams emptied meanwhile are read again when it is over. */
let pace: Promise<void> | undefined;

function phaseOver(): void {
  inPhase = false;
  const release = endTurn;
  turn = undefined;
  endTurn = undefined;
  release?.();
}

/**
 * Asked after each chunk; `more`: another chunk may follow at once. Undefined within the current
 * slice (read on); else a promise to hold reading on: the loop's next turn when more may follow,
 * the pace when the chunk emptied the socket.
 */
export function yieldIfDue(more: boolean): Promise<void> | undefined {
  const now = performance.now();
  if (!inPhase) {
    inPhase = true;
    phaseStart = now;
    setImmediate(phaseOver);
    return undefined;
  }
  if (now - phaseStart < SLICE_MS) return undefined;
  if (more) {
    turn ??= new Promise((resolve) => (endTurn = resolve));
    return turn;
  }
  pace ??= new Promise((resolve) =>
    setTimeout(() => {
      pace = undefined;
      resolve();
    }, PACE_MS),
  );
  return pace;
}
