// Placement: which live replica should own a session. Rendezvous (highest random weight) hashing:
// every replica scores hash(replica, session) and the highest wins, so when a replica joins or
// leaves only the sessions it wins or held move — about 1/N of them — and every replica computes
// the same answer from the same list with no coordination.
import { fnv1a32 } from '../util/fnv1a.js';

/**
 * FNV-1a (util/fnv1a.ts), finished with murmur3's avalanche step: FNV-1a mixes the last units of a
 * string poorly into the high bits, and the highest score wins.
 */
function hash32(text: string): number {
  let h = fnv1a32(text);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The preferred owner of `sessionId` among `replicas`; undefined when there are none. */
export function preferredOwner(sessionId: string, replicas: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const r of replicas) {
    const score = hash32(`${r}\u0000${sessionId}`);
    // Ties (rare) go to the smaller id, so every replica agrees.
    if (score > bestScore || (score === bestScore && best !== undefined && r < best)) {
      best = r;
      bestScore = score;
    }
  }
  return best;
}
