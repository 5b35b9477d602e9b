// At most `max` calls of a function run at once; the others wait their turn in arrival order. Used
// where a caller can start many requests at once (every new pool reference is looked up at once).

/**
 * Wraps `fn` so that at most `max` of its calls are in flight. A finished call hands its permit
 * straight to the oldest waiting one (semaphore below): counting the slot free and letting the
 * waiter take it a microtask later let a call arriving in between run beside it.
 */
export function limitConcurrency<A extends unknown[], R>(
  max: number,
  fn: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  const permits = semaphore(max);
  return async (...args: A): Promise<R> => {
    const release = await permits.acquire();
    try {
      return await fn(...args);
    } finally {
      release();
    }
  };
}

/** A count of permits taken and given back by hand, for holds that outlive one call. */
export interface Semaphore {
  /** Resolves with the function that gives the permit back (idempotent), in arrival order. */
  acquire(): Promise<() => void>;
}

export function semaphore(max: number): Semaphore {
  let held = 0;
  const waiting: Array<(release: () => void) => void> = [];
  const permit = (): (() => void) => {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      // Handed straight to the next in line: nobody arriving meanwhile can take it first.
      const next = waiting.shift();
      if (next) next(permit());
      else held--;
    };
  };
  return {
    acquire() {
      if (held < max) {
        held++;
        return Promise.resolve(permit());
      }
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}
