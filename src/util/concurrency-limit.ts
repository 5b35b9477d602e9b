// At most `max` calls of a function run at once; the others wait their turn in arrival order. Used
// where a caller can start many requests at once (every new pool reference is looked up at once).

/** Wraps `fn` so that at most `max` of its calls are in flight. */
export function limitConcurrency<A extends unknown[], R>(
  max: number,
  fn: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = (): void => {
    running--;
    waiting.shift()?.();
  };
  return async (...args: A): Promise<R> => {
    if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await fn(...args);
    } finally {
      release();
    }
  };
}
