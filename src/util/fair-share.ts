// Cooperative yielding for the readers of many streams. A stream body that has data buffered hands
// out chunk after chunk through resolved promises (microtasks), so a thousand busy streams can keep
// the event loop in one macrotask for hundreds of milliseconds: commits, export requests and their
// responses, timers and the HTTP surface all wait behind them, and latency grows with load. Readers
// call yieldIfDue() after each chunk: once a slice of time has passed since the last yield, the
// caller waits for the next turn of the event loop (setImmediate runs right after pending I/O).

const SLICE_MS = 4;
let sliceStart = performance.now();

/** Resolves at once within the current slice (undefined: no await needed), else after pending I/O. */
export function yieldIfDue(): Promise<void> | undefined {
  const now = performance.now();
  if (now - sliceStart < SLICE_MS) return undefined;
  return new Promise((resolve) =>
    setImmediate(() => {
      sliceStart = performance.now();
      resolve();
    }),
  );
}
