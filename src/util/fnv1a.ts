// 32-bit FNV-1a, the one string hash of the bridge: cluster placement, a session's capture phase
// and the simulator's per-session seed. Each of those is compared across processes and versions
// (the replicas must agree on owners, stored span-state rows keep their phase, a seed replays the
// same events), so the function must never change.
//
// It hashes the string's UTF-16 code units, one step each, as JavaScript holds the string: no
// encoding per call. For text whose units are all below U+0100 that is the reference FNV-1a over
// its Latin-1 (for ASCII, UTF-8) bytes; a unit above U+00FF is one step, not its UTF-8 bytes.

/** The 32-bit FNV offset basis. */
export const FNV1A_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a of `text`'s UTF-16 code units, unsigned; another `basis` gives a seeded variant. */
export function fnv1a32(text: string, basis: number = FNV1A_OFFSET_BASIS): number {
  let h = basis;
  // Math.imul keeps the product modulo 2^32, where a float multiply would lose the low bits.
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}
