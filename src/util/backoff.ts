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

/**
 * A fixed wait (`upstream.backoff.auth`) as one of many: somewhere in [ms/2, ms]. Sessions refused
 * together (a revoked key or an auth backend that is down refuses them all in the same second)
 * would otherwise come back together at every retry, a thousand requests in one instant each time.
 */
export function spreadWait(ms: number, random: () => number = Math.random): number {
  return Math.round(ms / 2 + (random() * ms) / 2);
}

/**
 * A peer's Retry-After as one of many: never sooner than asked, and up to half again later (at most
 * `maxExtraMs` more). A service that tells every session "1 s" would otherwise get them all back
 * in the same millisecond, and answer 429 again.
 */
export function afterRetryAfter(ms: number, maxExtraMs: number, random: () => number = Math.random): number {
  return Math.round(ms + random() * Math.min(ms / 2, maxExtraMs));
}

/**
 * The longest wait a peer's Retry-After (or gRPC RetryInfo) is honoured for. A longer one is a
 * misconfigured or hostile peer: trusting a day-long wait stops delivery without a word, and a
 * wait beyond setTimeout's 2^31-1 ms is turned by Node into 1 ms, a retry storm against the peer
 * that asked for quiet.
 */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * Parses a Retry-After header (delta-seconds or HTTP date) into ms, at most MAX_RETRY_AFTER_MS;
 * undefined when absent/invalid. A date in the past is 0 (callers keep their own backoff floor).
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\d+$/.test(v.trim())) return Math.min(Number(v.trim()) * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}
