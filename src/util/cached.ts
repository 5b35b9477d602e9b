// A figure read from somewhere costly (the store), served from memory for `ttlMs` and read by one
// caller at a time: a flood of scrapes costs one query per period, not one per scrape, and cannot
// take the connections that lease renewals and commits need.

/** Wraps `read`: resolves with the last value younger than `ttlMs`, or reads once for every waiting caller. */
export function cachedAsync<T>(
  read: () => Promise<T>,
  ttlMs: number,
  now: () => number = () => performance.now(),
): () => Promise<T> {
  let value: { v: T; at: number } | undefined;
  let reading: Promise<T> | undefined;
  return () => {
    if (value !== undefined && now() - value.at < ttlMs) return Promise.resolve(value.v);
    reading ??= read().then(
      (v) => {
        value = { v, at: now() };
        reading = undefined;
        return v;
      },
      (err: unknown) => {
        reading = undefined;
        throw err;
      },
    );
    return reading;
  };
}
