// Exponential backoff with "full jitter": a random delay in [0, min(max, initial·2^attempt)].
// Jitter spreads a thousand sessions' reconnects after a service blip instead of synchronising them.

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

/** Delay before retry number `attempt` (0-based). `random` is injectable for tests. */
export function backoffDelay(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt, 30));
  // Never below initial/2: an immediate retry loop against a failing peer helps nobody.
  const floor = Math.min(policy.initialMs / 2, ceiling);
  return Math.round(floor + random() * (ceiling - floor));
}

/** Parses a Retry-After header (delta-seconds or HTTP date) into ms; undefined when absent/invalid. */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
