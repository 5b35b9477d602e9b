// A figure read from somewhere costly and possibly slow (the store), for a caller that must answer
// promptly (a scrape, a readiness probe). Read by one caller at a time and served from memory for
// `ttlMs`: a flood of scrapes costs one query per period, not one per scrape, and cannot take the
// connections that lease renewals and commits need. A read that takes longer than `waitMs` (the
// database paused, a network cut: the query only gives up at its own timeout) is not waited for:
// the caller gets the last value known, marked stale with its age, and the read goes on in the
// background, so the next caller gets its result. A read that fails is the same as a slow one.
//
//   fresh (younger than ttlMs) → served | older → one read → answered within waitMs: fresh
//                                                          → not: the last known, stale

/** The last value read, how old it is, and whether it is older than the period it is served for. */
export interface Known<T> {
  value: T;
  ageMs: number;
  stale: boolean;
}

export interface LastKnownOptions {
  /** How long a value is served without reading again. */
  ttlMs: number;
  /** How long a caller waits for a read before it is answered with the last known value. */
  waitMs: number;
  now?: () => number;
  /** Resolves after `ms` (tests pass their own). */
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    // Never keeps the process alive: an answer is waited for, not the timer.
    setTimeout(resolve, ms).unref();
  });

/**
 * Wraps `read`: resolves with the last value younger than `ttlMs`, else with a new read if it comes
 * within `waitMs` of its start, else with the last known value marked stale (undefined before any
 * read succeeded). Never rejects.
 */
export function lastKnown<T>(read: () => Promise<T>, o: LastKnownOptions): () => Promise<Known<T> | undefined> {
  const now = o.now ?? (() => performance.now());
  const sleep = o.sleep ?? realSleep;
  let last: { v: T; at: number } | undefined;
  let reading: { done: Promise<void>; startedAt: number } | undefined;
  const known = (): Known<T> | undefined => {
    if (last === undefined) return undefined;
    const ageMs = now() - last.at;
    return { value: last.v, ageMs, stale: ageMs >= o.ttlMs };
  };
  return async () => {
    if (last !== undefined && now() - last.at < o.ttlMs) return known();
    if (reading === undefined) {
      const r = {
        startedAt: now(),
        done: read().then(
          (v) => {
            last = { v, at: now() };
          },
          () => undefined,
        ),
      };
      reading = r;
      void r.done.finally(() => {
        if (reading === r) reading = undefined;
      });
    }
    // A read already out for a while is waited for only what is left of waitMs: callers one after
    // another (the gauges of one scrape) wait once in all, not once each.
    const left = reading.startedAt + o.waitMs - now();
    if (left > 0) await Promise.race([reading.done, sleep(left)]);
    return known();
  };
}
