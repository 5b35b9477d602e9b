// The lifecycle words every long-lived component uses, and the one helper that makes teardown
// idempotent.
//   - A resource (a database, a file, sockets, threads) is opened by a function or a static `open`
//     and released by `close()`.
//   - A loop (a reader, a timer, a worker set that moves data) runs from `start()` to `stop()`.
//   - The daemon and its supervisor, which order everything else, end with `shutdown(deadline)`:
//     `deadline` is an absolute time in epoch milliseconds on the steady clock (util/steady-clock.ts:
//     Date.now() that never goes back), never a duration, so each step can hand the same deadline
//     down without re-computing what is left of the grace period. On the wall clock itself, a step
//     back during shutdown (NTP, a restored VM) would have held the drain that much past its grace.
// Every `close`, `stop` and `shutdown` may be called again, from anywhere: the second call gets the
// first call's promise (once()).

/** Runs `fn` on the first call only; every call returns the first call's promise. */
export function once<A extends unknown[], T>(fn: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  let running: Promise<T> | undefined;
  return (...args: A) => (running ??= fn(...args));
}
